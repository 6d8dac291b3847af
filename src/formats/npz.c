/* Coefficient files: a zip of .npy members, stored or deflated (np.load reads it
 * without pickle), written and read by our own code.
 *
 * Layout: one member per band, stored (method 0) or, with meta->compress,
 * deflated (method 8), "cA.npy", "cH1.npy" ... "cDL.npy", each a .npy v1.0
 * array (C, h, w) of '<f4' or '<i4' (host byte order), plus "meta.npy", a 1-D uint8 array of UTF-8 JSON. Sizes and offsets
 * of 4 GiB or more get ZIP64 records, as zip readers (Python's zipfile) expect.
 *
 * The reader treats the file as hostile: every length and offset is checked
 * against the file size before use, the data each member must hold is derived
 * from the meta's transform plan (so nothing larger than the file is ever
 * allocated), and CRCs are verified. Deflated members inflate into buffers of
 * their declared size, which deflate's ratio bounds by their stored size. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "image_codec.h"
#include "input.h"
#include "npy_header.h"
#include "wavetool_hooks.h"
#include "wavetool.h"

#define MAX_MEMBERS (4 * WT_MAX_LEVELS + 2) /* SWT with all_approx: 4L + meta */
#define MEMBER_NAME_CAP 16
#define ZIP_LOCAL_SIG 0x04034b50u
#define ZIP_CENTRAL_SIG 0x02014b50u
#define ZIP_END_SIG 0x06054b50u
#define ZIP64_END_SIG 0x06064b50u
#define ZIP64_LOCATOR_SIG 0x07064b50u
#define ZIP_LOCAL_LEN 30
#define ZIP_CENTRAL_LEN 46
#define ZIP_END_LEN 22
#define ZIP64_END_LEN 56
#define ZIP64_LOCATOR_LEN 20
#define ZIP_DOS_DATE 0x0021 /* 1980-01-01: files are byte-for-byte reproducible */
#define NPY_ALIGN 64
#define NPY_HEADER_CAP 4096      /* our headers are < 128 bytes; numpy's stay small */
#define META_CAP (64 * 1024)     /* JSON meta member */
#define CENTRAL_DIR_CAP (4u << 20)
#define READER_MEMBER_CAP 4096   /* members listed in a hostile directory */
#define STREAM_CAP ((uint64_t)4 << 30) /* coefficient files read from a pipe */
#define DEFLATE_MAX_RATIO 1032   /* zlib's most output for one deflated byte, about */
#define INFLATE_CHUNK (1u << 16)

static uint64_t zip64_threshold = 0xffffffffu;

void wt_npz_set_zip64_threshold(uint64_t bytes)
{
    zip64_threshold = bytes;
}

/* ---- little-endian fields ---------------------------------------------- */

static uint8_t *put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return p + 2;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
    return put16(put16(p, v & 0xffffu), v >> 16);
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
    return put32(put32(p, (uint32_t)v), (uint32_t)(v >> 32));
}

static unsigned get16(const uint8_t *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)get16(p) | (uint32_t)get16(p + 2) << 16;
}

static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* zlib's crc32 takes 32-bit lengths: feed big buffers in pieces. */
static uint32_t crc_update(uint32_t crc, const void *data, uint64_t len)
{
    const Bytef *p = data;
    while (len > 0) {
        uInt piece = len > (1u << 30) ? 1u << 30 : (uInt)len;
        crc = (uint32_t)crc32(crc, p, piece);
        p += piece;
        len -= piece;
    }
    return crc;
}

static void swap4(void *data, size_t count)
{
    uint8_t *p = data;
    for (size_t i = 0; i < count; i++, p += 4) {
        uint8_t a = p[0], b = p[1];
        p[0] = p[3];
        p[1] = p[2];
        p[2] = b;
        p[3] = a;
    }
}

static char host_order(void)
{
    return wt_host_little_endian() ? '<' : '>';
}

/* ---- names and meta ----------------------------------------------------- */

static const char band_letter[] = {'A', 'H', 'V', 'D'};

static void member_name(char *out, wt_band band, int level)
{
    if (band == WT_BAND_A)
        snprintf(out, MEMBER_NAME_CAP, "cA");
    else
        snprintf(out, MEMBER_NAME_CAP, "c%c%d", band_letter[band], level);
}

static const char *color_name(wt_color c)
{
    switch (c) {
    case WT_COLOR_GRAY: return "gray";
    case WT_COLOR_GRAY_ALPHA: return "gray_alpha";
    case WT_COLOR_RGB: return "rgb";
    case WT_COLOR_RGBA: return "rgba";
    }
    return (int)c > 4 && (int)c <= WT_MAX_CHANNELS ? "planes" : "?";
}

/* "planes" (more than 4 channels) gives 0: the channel count decides. */
static int color_parse(const char *name, wt_color *c)
{
    if (strcmp(name, "planes") == 0) {
        *c = (wt_color)0;
        return 1;
    }
    for (int i = WT_COLOR_GRAY; i <= WT_COLOR_RGBA; i++)
        if (strcmp(name, color_name((wt_color)i)) == 0) {
            *c = (wt_color)i;
            return 1;
        }
    return 0;
}

/* The JSON text of @p meta; wavelet names are plain ASCII, but quote anyway. */
static int meta_json(const wt_npz_meta *m, char *buf, size_t cap)
{
    char wavelet[2 * sizeof m->wavelet], *q = wavelet;
    for (const char *s = m->wavelet; s < m->wavelet + sizeof m->wavelet && *s; s++) {
        if (*s == '"' || *s == '\\')
            *q++ = '\\';
        *q++ = (unsigned char)*s < 0x20 ? '?' : *s;
    }
    *q = '\0';
    char undecimated[256] = "";
    if (m->transform != WT_TRANSFORM_DWT)
        snprintf(undecimated, sizeof undecimated,
                 ", \"transform\": \"%s\", \"start_level\": %d, \"norm\": %d, "
                 "\"all_approx\": %d, \"border\": \"%s\"",
                 wt_transform_name(m->transform), m->start_level, m->norm, m->all_approx,
                 wt_border_name(m->border));
    char samples[64] = "", type[16]; /* float32-held images: the type they came in */
    if (m->bit_depth == WT_DEPTH_F32) {
        wt_sample_type t = m->stored.bits ? m->stored : (wt_sample_type){WT_SAMPLE_FLOAT, 32};
        snprintf(samples, sizeof samples, ", \"samples\": \"%s\"",
                 wt_sample_type_name(t, type, sizeof type));
    }
    char pages[48] = "";
    if (m->pages)
        snprintf(pages, sizeof pages, ", \"pages\": %llu", (unsigned long long)m->pages);
    return snprintf(buf, cap,
                    "{\"wavelet\": \"%s\", \"mode\": \"%s\", \"method\": \"%s\", "
                    "\"levels\": %d, \"width\": %u, \"height\": %u, \"channels\": %d, "
                    "\"bit_depth\": %d, \"color\": \"%s\", \"wavetool\": \"%s\"%s%s%s}",
                    wavelet, wt_mode_name(m->mode), wt_method_name(m->method), m->levels,
                    m->width, m->height, m->channels, m->bit_depth, color_name(m->color),
                    WT_VERSION_STRING, undecimated, samples, pages);
}

/* .npy v1.0 header for @p descr and @p shape, padded to NPY_ALIGN; its length. */
static size_t npy_header(char *buf, size_t cap, const char *descr, const uint64_t *shape,
                         int ndim)
{
    char dims[128] = "";
    size_t n = 0;
    for (int i = 0; i < ndim; i++)
        n += (size_t)snprintf(dims + n, sizeof dims - n, "%s%llu", i ? ", " : "",
                              (unsigned long long)shape[i]);
    if (ndim == 1)
        snprintf(dims + n, sizeof dims - n, ",");
    char dict[256];
    int len = snprintf(dict, sizeof dict,
                       "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, dims);
    size_t total = 10 + (size_t)len + 1; /* magic, version, length, dict, '\n' */
    total = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    if (total > cap)
        return 0;
    memcpy(buf, WT_NPY_MAGIC "\x01\x00", 8);
    put16((uint8_t *)buf + 8, (unsigned)(total - 10));
    memcpy(buf + 10, dict, (size_t)len);
    memset(buf + 10 + len, ' ', total - 10 - (size_t)len - 1);
    buf[total - 1] = '\n';
    return total;
}

/* ---- writer --------------------------------------------------------------- */

typedef struct zip_member {
    char name[MEMBER_NAME_CAP + 4];
    uint64_t offset, size, csize; /* size: the .npy bytes; csize: as stored */
    uint32_t crc;
    unsigned method;              /* 0 stored, 8 deflated */
} zip_member;

typedef struct npz_writer {
    FILE *fp;
    const char *path;
    uint64_t pos;
    int error; /* errno of the first failed write */
    int compress; /* deflate members (numpy.savez_compressed) */
    int count;
    zip_member members[MAX_MEMBERS];
} npz_writer;

static void write_bytes(npz_writer *w, const void *data, uint64_t len)
{
    const uint8_t *p = data;
    while (len > 0 && !w->error) {
        size_t piece = len > (1u << 30) ? (size_t)1 << 30 : (size_t)len;
        if (fwrite(p, 1, piece, w->fp) != piece)
            w->error = errno ? errno : EIO;
        p += piece;
        len -= piece;
        w->pos += piece;
    }
}

static int needs_zip64(uint64_t v)
{
    return v >= zip64_threshold || v >= 0xffffffffu;
}

static void write_local_header(npz_writer *w, const zip_member *m)
{
    uint8_t h[ZIP_LOCAL_LEN + 20], *p = h;
    size_t name_len = strlen(m->name);
    int z64 = needs_zip64(m->size) || needs_zip64(m->csize);
    p = put32(p, ZIP_LOCAL_SIG);
    p = put16(p, z64 ? 45 : 20); /* version needed */
    p = put16(p, 0);             /* flags */
    p = put16(p, m->method);
    p = put16(p, 0);             /* time */
    p = put16(p, ZIP_DOS_DATE);
    p = put32(p, m->crc);
    p = put32(p, z64 ? 0xffffffffu : (uint32_t)m->csize);
    p = put32(p, z64 ? 0xffffffffu : (uint32_t)m->size);
    p = put16(p, (unsigned)name_len);
    p = put16(p, z64 ? 20 : 0);
    write_bytes(w, h, ZIP_LOCAL_LEN);
    write_bytes(w, m->name, name_len);
    if (z64) {
        p = put16(h, 1);
        p = put16(p, 16);
        p = put64(p, m->size);
        put64(p, m->csize);
        write_bytes(w, h, 20);
    }
}

/* A growing buffer of deflated bytes. */
typedef struct deflated {
    uint8_t *data;
    uint64_t len, cap;
} deflated;

/* Feed @p len bytes (@p flush Z_FINISH at the end) to @p z, appending its output. */
static int deflate_piece(z_stream *z, deflated *out, const void *data, uint64_t len, int flush)
{
    const Bytef *p = data;
    int rc = Z_OK;
    do {
        uInt piece = len > (1u << 30) ? 1u << 30 : (uInt)len;
        z->next_in = (Bytef *)(uintptr_t)p;
        z->avail_in = piece;
        p += piece;
        len -= piece;
        int f = len > 0 ? Z_NO_FLUSH : flush;
        do {
            if (out->cap - out->len < (1u << 16)) {
                uint64_t cap = out->cap ? out->cap * 2 : 1u << 20;
                uint8_t *grown = cap == (size_t)cap ? realloc(out->data, (size_t)cap) : NULL;
                if (!grown)
                    return Z_MEM_ERROR;
                out->data = grown;
                out->cap = cap;
            }
            uint64_t room = out->cap - out->len;
            z->next_out = out->data + out->len;
            z->avail_out = room > (1u << 30) ? 1u << 30 : (uInt)room;
            uInt before = z->avail_out;
            rc = deflate(z, f);
            out->len += before - z->avail_out;
            if (rc == Z_STREAM_ERROR)
                return rc;
        } while (z->avail_in > 0 || (f == Z_FINISH && rc != Z_STREAM_END));
    } while (len > 0);
    return Z_OK;
}

/* The .npy header and data as one raw deflate stream (zip method 8). */
static int deflate_member(const void *header, size_t header_len, const void *data,
                          uint64_t data_len, deflated *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return Z_MEM_ERROR;
    int rc = deflate_piece(&z, out, header, header_len, Z_NO_FLUSH);
    if (rc == Z_OK)
        rc = deflate_piece(&z, out, data, data_len, Z_FINISH);
    deflateEnd(&z);
    return rc;
}

/* One member: the .npy header then the raw array, stored or deflated. */
static void write_member(npz_writer *w, const char *name, const char *header, size_t header_len,
                         const void *data, uint64_t data_len)
{
    zip_member *m = &w->members[w->count++];
    snprintf(m->name, sizeof m->name, "%s.npy", name);
    m->offset = w->pos;
    m->size = m->csize = header_len + data_len;
    m->crc = crc_update(crc_update((uint32_t)crc32(0, Z_NULL, 0), header, header_len), data,
                        data_len);
    if (!w->compress) {
        write_local_header(w, m);
        write_bytes(w, header, header_len);
        write_bytes(w, data, data_len);
        return;
    }
    deflated out = {0};
    if (deflate_member(header, header_len, data, data_len, &out) != Z_OK) {
        w->error = w->error ? w->error : ENOMEM;
    } else {
        m->method = 8;
        m->csize = out.len;
        write_local_header(w, m);
        write_bytes(w, out.data, out.len);
    }
    free(out.data);
}

static void write_central_entry(npz_writer *w, const zip_member *m)
{
    uint8_t h[ZIP_CENTRAL_LEN], extra[28], *e = extra + 4;
    int big_size = needs_zip64(m->size) || needs_zip64(m->csize);
    int big_offset = needs_zip64(m->offset);
    if (big_size) {
        e = put64(e, m->size);
        e = put64(e, m->csize);
    }
    if (big_offset)
        e = put64(e, m->offset);
    unsigned extra_len = (unsigned)(e - extra);
    put16(put16(extra, 1), extra_len - 4);
    size_t name_len = strlen(m->name);
    uint8_t *p = put32(h, ZIP_CENTRAL_SIG);
    p = put16(p, 0x0300 | 45);                          /* made by: Unix */
    p = put16(p, big_size || big_offset ? 45 : 20);
    p = put16(p, 0);
    p = put16(p, m->method);
    p = put16(p, 0);
    p = put16(p, ZIP_DOS_DATE);
    p = put32(p, m->crc);
    p = put32(p, big_size ? 0xffffffffu : (uint32_t)m->csize);
    p = put32(p, big_size ? 0xffffffffu : (uint32_t)m->size);
    p = put16(p, (unsigned)name_len);
    p = put16(p, extra_len > 4 ? extra_len : 0);
    p = put16(p, 0);                                    /* comment */
    p = put16(p, 0);                                    /* disk */
    p = put16(p, 0);                                    /* internal attributes */
    p = put32(p, 0100644u << 16);                       /* external: -rw-r--r-- */
    put32(p, big_offset ? 0xffffffffu : (uint32_t)m->offset);
    write_bytes(w, h, sizeof h);
    write_bytes(w, m->name, name_len);
    if (extra_len > 4)
        write_bytes(w, extra, extra_len);
}

static void write_zip64_end(npz_writer *w, uint64_t cd_offset, uint64_t cd_size)
{
    uint8_t h[ZIP64_END_LEN + ZIP64_LOCATOR_LEN], *p = h;
    uint64_t record_offset = w->pos;
    p = put32(p, ZIP64_END_SIG);
    p = put64(p, ZIP64_END_LEN - 12);
    p = put16(p, 0x0300 | 45);
    p = put16(p, 45);
    p = put32(p, 0);
    p = put32(p, 0);
    p = put64(p, (uint64_t)w->count);
    p = put64(p, (uint64_t)w->count);
    p = put64(p, cd_size);
    p = put64(p, cd_offset);
    p = put32(p, ZIP64_LOCATOR_SIG);
    p = put32(p, 0);
    p = put64(p, record_offset);
    put32(p, 1);
    write_bytes(w, h, sizeof h);
}

static void write_directory(npz_writer *w)
{
    uint64_t cd_offset = w->pos;
    for (int i = 0; i < w->count; i++)
        write_central_entry(w, &w->members[i]);
    uint64_t cd_size = w->pos - cd_offset;
    int z64 = needs_zip64(cd_offset) || needs_zip64(cd_size);
    if (z64)
        write_zip64_end(w, cd_offset, cd_size);
    uint8_t h[ZIP_END_LEN], *p = put32(h, ZIP_END_SIG);
    p = put16(p, 0);
    p = put16(p, 0);
    p = put16(p, (unsigned)w->count);
    p = put16(p, (unsigned)w->count);
    p = put32(p, z64 ? 0xffffffffu : (uint32_t)cd_size);
    p = put32(p, z64 ? 0xffffffffu : (uint32_t)cd_offset);
    put16(p, 0);
    write_bytes(w, h, sizeof h);
}

static void write_band(npz_writer *w, const wt_pyramid *pyr, int level, wt_band band)
{
    char name[MEMBER_NAME_CAP], descr[8], header[256];
    size_t h, wd;
    member_name(name, band, level);
    wt_pyramid_band_shape(pyr, level, band, &h, &wd);
    uint64_t shape[3] = {(uint64_t)pyr->channels, h, wd};
    snprintf(descr, sizeof descr, "%c%s", host_order(), pyr->dtype == WT_INT32 ? "i4" : "f4");
    size_t header_len = npy_header(header, sizeof header, descr, shape, 3);
    const uint8_t *data = (const uint8_t *)pyr->data + wt_pyramid_offset(pyr, level, band, 0) * 4;
    write_member(w, name, header, header_len, data, shape[0] * shape[1] * shape[2] * 4);
}

static wt_status check_meta_matches(const char *path, const wt_pyramid *pyr,
                                    const wt_npz_meta *meta)
{
    if (!pyr->data || meta->height != pyr->height || meta->width != pyr->width ||
        meta->channels != pyr->channels || meta->levels != pyr->levels ||
        (int)meta->color != meta->channels ||
        (meta->bit_depth != 8 && meta->bit_depth != 16 && meta->bit_depth != WT_DEPTH_F32))
        return wt_error_set(WT_ERR_INVALID, "%s: coefficients do not match their description",
                            path);
    return WT_OK;
}

/* The members of a pyramid: cA of the last level, then cH, cV, cD of each level. */
static void write_pyramid_bands(npz_writer *w, const void *pyramid)
{
    const wt_pyramid *pyr = pyramid;
    write_band(w, pyr, pyr->levels, WT_BAND_A);
    for (int l = 1; l <= pyr->levels; l++)
        for (wt_band b = WT_BAND_H; b <= WT_BAND_D; b++)
            write_band(w, pyr, l, b);
}

/* A .npz at @p path (@p shown in messages) through a temporary file: the
 * members @p write_bands writes from @p bands, then "meta" (@p meta as JSON)
 * and the zip directory. */
static wt_status save_npz(const char *path, const char *shown, const wt_npz_meta *meta,
                          void (*write_bands)(npz_writer *w, const void *bands), const void *bands)
{
    char json[1024], header[256];
    int json_len = meta_json(meta, json, sizeof json);
    if (json_len < 0 || (size_t)json_len >= sizeof json)
        return wt_error_set(WT_ERR_INVALID, "%s: description too long", shown);
    npz_writer *w = calloc(1, sizeof *w);
    if (!w)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", shown);
    wt_outfile out;
    wt_status st = wt_outfile_open(&out, path);
    if (st == WT_OK) {
        w->fp = out.fp;
        w->path = shown;
        w->compress = meta->compress;
        write_bands(w, bands);
        uint64_t shape = (uint64_t)json_len;
        size_t header_len = npy_header(header, sizeof header, "|u1", &shape, 1);
        write_member(w, "meta", header, header_len, json, shape);
        write_directory(w);
        if (w->error)
            st = wt_error_set(WT_ERR_IO, "%s: %s", shown, strerror(w->error));
        if (st == WT_OK)
            st = wt_outfile_commit(&out);
        else
            wt_outfile_abort(&out);
    }
    free(w);
    return st;
}

wt_status wt_npz_save(const char *path, const wt_pyramid *pyr, const wt_npz_meta *meta)
{
    const char *shown = strcmp(path, "-") == 0 ? "(stdout)" : path;
    wt_status st = check_meta_matches(shown, pyr, meta);
    if (st != WT_OK)
        return st;
    return save_npz(path, shown, meta, write_pyramid_bands, pyr);
}

/* ---- reader: bytes ---------------------------------------------------------- */

/* A coefficient file being read: an open file, or stdin read into memory. */
typedef struct npz_reader {
    const char *name;
    int fd;
    uint8_t *mem;
    uint64_t size;
    uint64_t content; /* the .npy bytes its members declare (deflated: bounded by
                         deflate's ratio), the most coefficients it can hold */
} npz_reader;

static wt_status corrupt(const npz_reader *r, const char *what)
{
    return wt_error_set(WT_ERR_FORMAT, "%s: corrupt coefficient file (%s)", r->name, what);
}

/* @p len bytes at @p offset, all inside the file. */
static wt_status read_at(const npz_reader *r, uint64_t offset, void *buf, uint64_t len)
{
    if (offset > r->size || len > r->size - offset)
        return wt_error_set(WT_ERR_FORMAT, "%s: truncated coefficient file", r->name);
    if (r->mem) {
        memcpy(buf, r->mem + offset, (size_t)len);
        return WT_OK;
    }
    uint8_t *p = buf;
    while (len > 0) {
        size_t piece = len > (1u << 30) ? (size_t)1 << 30 : (size_t)len;
        ssize_t n = pread(r->fd, p, piece, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return wt_error_set(WT_ERR_IO, "%s: %s", r->name, strerror(errno));
        if (n == 0)
            return wt_error_set(WT_ERR_FORMAT, "%s: truncated coefficient file", r->name);
        p += n;
        offset += (uint64_t)n;
        len -= (uint64_t)n;
    }
    return WT_OK;
}

/* The first bytes of a stream must be those of a zip file. */
static wt_status check_npz_start(const uint8_t *data, size_t size, const char *name)
{
    if (wt_codec_npz.is_a(data, size))
        return WT_OK;
    return wt_error_set(WT_ERR_FORMAT, "%s: not a coefficient file (.npz: a zip archive)", name);
}

/* A stream (stdin, a pipe, a device) read whole into memory: its first bytes
 * checked before the rest is read, its size bounded by the coefficients that
 * --max-pixels allows (4 channels of 4 bytes), at most 4 GiB. */
static wt_status read_stream(npz_reader *r, int fd, uint64_t max_pixels)
{
    char cap_text[128];
    uint64_t cap = wt_input_cap_text(max_pixels, 16, STREAM_CAP,
                                     "4 GiB (read larger coefficient files from a file)",
                                     cap_text, sizeof cap_text);
    size_t size = 0;
    wt_status st = wt_input_read(fd, r->name, 0, cap, cap_text, check_npz_start, &r->mem, &size);
    r->size = size;
    return st;
}

static wt_status reader_open(npz_reader *r, const char *path, uint64_t max_pixels)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    if (strcmp(path, "-") == 0) {
        r->name = "(stdin)";
        wt_status s = read_stream(r, STDIN_FILENO, max_pixels);
        if (s == WT_OK && r->size == 0)
            return wt_error_set(WT_ERR_FORMAT, "%s: empty file", r->name);
        return s;
    }
    r->name = path;
    struct stat st;
    wt_status s = wt_input_open(path, &r->fd, &st);
    if (s != WT_OK)
        return s;
    if (!S_ISREG(st.st_mode)) { /* a pipe or device cannot be read at offsets */
        s = read_stream(r, r->fd, max_pixels);
        close(r->fd);
        r->fd = -1;
        if (s != WT_OK)
            return s;
    } else {
        r->size = (uint64_t)st.st_size;
    }
    if (r->size == 0)
        return wt_error_set(WT_ERR_FORMAT, "%s: empty file", path);
    return WT_OK;
}

static void reader_close(npz_reader *r)
{
    if (r->fd >= 0)
        close(r->fd);
    free(r->mem);
    r->fd = -1;
    r->mem = NULL;
}

/* ---- reader: zip directory ------------------------------------------------ */

typedef struct npz_member {
    char name[MEMBER_NAME_CAP];
    uint64_t data_offset, size, csize; /* size: the .npy bytes; csize: as stored */
    uint32_t crc;
    unsigned method;                   /* 0 stored, 8 deflated */
} npz_member;

typedef struct npz_directory {
    uint64_t cd_offset, cd_size, entries, content;
    int count;
    npz_member members[MAX_MEMBERS + 1];
} npz_directory;

/* The end-of-central-directory record: the last one within the comment range. */
static wt_status find_end_record(const npz_reader *r, uint8_t *tail, uint64_t *tail_start,
                                 uint64_t *end_pos)
{
    uint64_t tail_len = r->size < ZIP_END_LEN + 0xffff ? r->size : ZIP_END_LEN + 0xffff;
    *tail_start = r->size - tail_len;
    wt_status st = read_at(r, *tail_start, tail, tail_len);
    if (st != WT_OK)
        return st;
    for (uint64_t i = tail_len >= ZIP_END_LEN ? tail_len - ZIP_END_LEN + 1 : 0; i-- > 0;)
        if (get32(tail + i) == ZIP_END_SIG && i + ZIP_END_LEN + get16(tail + i + 20) <= tail_len) {
            *end_pos = *tail_start + i;
            return WT_OK;
        }
    return wt_error_set(WT_ERR_FORMAT, "%s: not a coefficient file (no zip directory)", r->name);
}

static wt_status read_zip64_end(const npz_reader *r, uint64_t end_pos, npz_directory *d)
{
    uint8_t loc[ZIP64_LOCATOR_LEN], rec[ZIP64_END_LEN];
    if (end_pos < ZIP64_LOCATOR_LEN)
        return corrupt(r, "ZIP64 locator missing");
    wt_status st = read_at(r, end_pos - ZIP64_LOCATOR_LEN, loc, sizeof loc);
    if (st != WT_OK)
        return st;
    if (get32(loc) != ZIP64_LOCATOR_SIG)
        return corrupt(r, "ZIP64 locator missing");
    uint64_t rec_pos = get64(loc + 8);
    uint64_t locator_pos = end_pos - ZIP64_LOCATOR_LEN;
    if (rec_pos > locator_pos || locator_pos - rec_pos < ZIP64_END_LEN)
        return corrupt(r, "ZIP64 record out of place");
    if ((st = read_at(r, rec_pos, rec, sizeof rec)) != WT_OK)
        return st;
    if (get32(rec) != ZIP64_END_SIG || get32(rec + 16) != 0 || get32(rec + 20) != 0)
        return corrupt(r, "bad ZIP64 record");
    d->entries = get64(rec + 32);
    d->cd_size = get64(rec + 40);
    d->cd_offset = get64(rec + 48);
    if (get64(rec + 24) != d->entries)
        return corrupt(r, "multi-disk archive");
    if (d->cd_offset > rec_pos || d->cd_size > rec_pos - d->cd_offset)
        return corrupt(r, "central directory out of bounds");
    return WT_OK;
}

static wt_status read_end(const npz_reader *r, npz_directory *d)
{
    uint8_t *tail = malloc(ZIP_END_LEN + 0xffff);
    if (!tail)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", r->name);
    uint64_t tail_start = 0, end_pos = 0;
    wt_status st = find_end_record(r, tail, &tail_start, &end_pos);
    if (st == WT_OK) {
        const uint8_t *e = tail + (end_pos - tail_start);
        d->entries = get16(e + 10);
        d->cd_size = get32(e + 12);
        d->cd_offset = get32(e + 16);
        if (get16(e + 4) != 0 || get16(e + 6) != 0 || get16(e + 8) != d->entries)
            st = corrupt(r, "multi-disk archive");
        else if (d->entries == 0xffff || d->cd_size == 0xffffffffu || d->cd_offset == 0xffffffffu)
            st = read_zip64_end(r, end_pos, d);
        else if (d->cd_offset > end_pos || d->cd_size > end_pos - d->cd_offset)
            st = corrupt(r, "central directory out of bounds");
    }
    free(tail);
    if (st == WT_OK && (d->entries > READER_MEMBER_CAP || d->cd_size > CENTRAL_DIR_CAP))
        st = wt_error_set(WT_ERR_LIMIT, "%s: zip directory too large (%llu members)", r->name,
                          (unsigned long long)d->entries);
    return st;
}

/* ZIP64 extra field: the 64-bit values of the fields saturated at 0xffffffff. */
static wt_status apply_zip64_extra(const npz_reader *r, const uint8_t *extra, unsigned len,
                                   uint64_t *usize, uint64_t *csize, uint64_t *offset)
{
    uint64_t *fields[3] = {usize, csize, offset};
    for (unsigned pos = 0; pos + 4 <= len;) {
        unsigned id = get16(extra + pos), n = get16(extra + pos + 2);
        if (n > len - pos - 4)
            return corrupt(r, "bad extra field");
        if (id == 1) {
            const uint8_t *v = extra + pos + 4;
            for (int i = 0; i < 3; i++) {
                if (*fields[i] != 0xffffffffu)
                    continue;
                if (v + 8 > extra + pos + 4 + n)
                    return corrupt(r, "short ZIP64 field");
                *fields[i] = get64(v);
                v += 8;
            }
        }
        pos += 4 + n;
    }
    return WT_OK;
}

/* Where a member's data start: after its local header (which must name the
 * same member), checked to lie before the central directory. */
static wt_status locate_data(const npz_reader *r, const npz_directory *d, uint64_t local,
                             const uint8_t *name, unsigned name_len, uint64_t size,
                             uint64_t *data_offset)
{
    uint8_t h[ZIP_LOCAL_LEN + MEMBER_NAME_CAP + 4];
    if (name_len > sizeof h - ZIP_LOCAL_LEN)
        return corrupt(r, "member name too long");
    if (local > d->cd_offset || d->cd_offset - local < ZIP_LOCAL_LEN + (uint64_t)name_len)
        return corrupt(r, "member offset out of bounds");
    wt_status st = read_at(r, local, h, ZIP_LOCAL_LEN + (uint64_t)name_len);
    if (st != WT_OK)
        return st;
    if (get32(h) != ZIP_LOCAL_SIG || get16(h + 26) != name_len ||
        memcmp(h + ZIP_LOCAL_LEN, name, name_len) != 0)
        return corrupt(r, "bad local header");
    uint64_t start = local + ZIP_LOCAL_LEN + get16(h + 26) + get16(h + 28);
    if (start > d->cd_offset || size > d->cd_offset - start)
        return corrupt(r, "member data out of bounds");
    *data_offset = start;
    return WT_OK;
}

/* "cA.npy" -> "cA"; 0 for names that are not ours (too long, no .npy). */
static int short_name(const uint8_t *name, unsigned len, char *out)
{
    if (len < 5 || len - 4 >= MEMBER_NAME_CAP || memcmp(name + len - 4, ".npy", 4) != 0)
        return 0;
    memcpy(out, name, len - 4);
    out[len - 4] = '\0';
    return strlen(out) == len - 4; /* no NUL inside */
}

static wt_status add_member(const npz_reader *r, npz_directory *d, const npz_member *m)
{
    for (int i = 0; i < d->count; i++)
        if (strcmp(d->members[i].name, m->name) == 0)
            return wt_error_set(WT_ERR_FORMAT, "%s: member %s appears twice", r->name, m->name);
    if (d->count > MAX_MEMBERS)
        return wt_error_set(WT_ERR_FORMAT, "%s: too many members for a coefficient file",
                            r->name);
    d->members[d->count++] = *m;
    d->content += m->size;
    return WT_OK;
}

static wt_status parse_central_entry(const npz_reader *r, npz_directory *d, const uint8_t *cd,
                                     uint64_t *pos)
{
    const uint8_t *e = cd + *pos;
    if (d->cd_size - *pos < ZIP_CENTRAL_LEN || get32(e) != ZIP_CENTRAL_SIG)
        return corrupt(r, "bad central directory");
    unsigned name_len = get16(e + 28), extra_len = get16(e + 30), comment_len = get16(e + 32);
    uint64_t entry_len = (uint64_t)ZIP_CENTRAL_LEN + name_len + extra_len + comment_len;
    if (entry_len > d->cd_size - *pos)
        return corrupt(r, "bad central directory");
    *pos += entry_len;
    npz_member m = {.crc = get32(e + 16)};
    if (!short_name(e + ZIP_CENTRAL_LEN, name_len, m.name))
        return WT_OK; /* not an array of ours: ignored */
    if (get16(e + 8) & 1)
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: member %s is encrypted", r->name, m.name);
    m.method = get16(e + 10);
    if (m.method != 0 && m.method != 8)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: member %s uses zip method %u; only stored (np.savez) and "
                            "deflated (np.savez_compressed) members are read",
                            r->name, m.name, m.method);
    uint64_t csize = get32(e + 20), usize = get32(e + 24), local = get32(e + 42);
    wt_status st = apply_zip64_extra(r, e + ZIP_CENTRAL_LEN + name_len, extra_len, &usize,
                                     &csize, &local);
    if (st == WT_OK && m.method == 0 && csize != usize)
        st = corrupt(r, "stored member with two sizes");
    if (st == WT_OK && m.method == 8 && usize / DEFLATE_MAX_RATIO > csize)
        st = wt_error_set(WT_ERR_FORMAT,
                          "%s: member %s claims %llu bytes from %llu deflated ones (more than "
                          "deflate can give)",
                          r->name, m.name, (unsigned long long)usize, (unsigned long long)csize);
    m.size = usize;
    m.csize = csize;
    if (st == WT_OK)
        st = locate_data(r, d, local, e + ZIP_CENTRAL_LEN, name_len, csize, &m.data_offset);
    return st == WT_OK ? add_member(r, d, &m) : st;
}

static wt_status read_directory(const npz_reader *r, npz_directory *d)
{
    memset(d, 0, sizeof *d);
    wt_status st = read_end(r, d);
    if (st != WT_OK)
        return st;
    uint8_t *cd = malloc(d->cd_size ? (size_t)d->cd_size : 1);
    if (!cd)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", r->name);
    st = read_at(r, d->cd_offset, cd, d->cd_size);
    uint64_t pos = 0;
    for (uint64_t i = 0; st == WT_OK && i < d->entries; i++)
        st = parse_central_entry(r, d, cd, &pos);
    free(cd);
    return st;
}

static const npz_member *find_member(const npz_directory *d, const char *name)
{
    for (int i = 0; i < d->count; i++)
        if (strcmp(d->members[i].name, name) == 0)
            return &d->members[i];
    return NULL;
}

/* ---- reader: member bytes ------------------------------------------------- */

static wt_status deflate_error(const npz_reader *r, const npz_member *m, const char *what)
{
    return wt_error_set(WT_ERR_FORMAT, "%s: member %s is damaged (%s)", r->name, m->name, what);
}

/* Where the next inflated bytes go: skipped ones to @p scratch, wanted ones to
 * @p buf, and past the end of a whole member one probe byte (that must not come). */
static uint8_t *inflate_target(uint64_t produced, uint64_t skip, uint64_t want, int whole,
                               uint8_t *buf, uint8_t *scratch, uInt *room)
{
    uint64_t left = produced < skip ? skip - produced : want - produced;
    if (produced < skip) {
        *room = left > INFLATE_CHUNK ? INFLATE_CHUNK : (uInt)left;
        return scratch;
    }
    if (produced < want) {
        *room = left > (1u << 30) ? 1u << 30 : (uInt)left;
        return buf + (produced - skip);
    }
    *room = whole ? 1 : 0;
    return scratch;
}

/* Inflate the member into a buffer of its declared size at most: bytes
 * [@p skip, @p skip + @p len) of it into @p buf; reading up to its end checks
 * that the stream ends exactly there. */
static wt_status inflate_member(const npz_reader *r, const npz_member *m, uint64_t skip,
                                uint8_t *buf, uint64_t len)
{
    uint8_t *in = malloc(2 * INFLATE_CHUNK), *scratch = in + INFLATE_CHUNK;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (!in || inflateInit2(&z, -15) != Z_OK) {
        free(in);
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", r->name);
    }
    uint64_t want = skip + len, produced = 0, in_pos = 0;
    int whole = want == m->size, rc = Z_OK;
    wt_status st = WT_OK;
    while (st == WT_OK && rc == Z_OK) {
        if (z.avail_in == 0 && in_pos < m->csize) {
            uInt n = m->csize - in_pos > INFLATE_CHUNK ? INFLATE_CHUNK : (uInt)(m->csize - in_pos);
            st = read_at(r, m->data_offset + in_pos, in, n);
            z.next_in = in;
            z.avail_in = n;
            in_pos += n;
        }
        uInt room;
        z.next_out = inflate_target(produced, skip, want, whole, buf, scratch, &room);
        if (st != WT_OK || room == 0)
            break;
        z.avail_out = room;
        rc = inflate(&z, Z_NO_FLUSH);
        produced += room - z.avail_out;
        if (produced > m->size)
            st = deflate_error(r, m, "inflates past its declared size");
        else if (rc == Z_BUF_ERROR && z.avail_in == 0 && in_pos == m->csize)
            st = deflate_error(r, m, "truncated deflate stream");
        else if (rc == Z_BUF_ERROR)
            rc = Z_OK;
        else if (rc != Z_OK && rc != Z_STREAM_END)
            st = deflate_error(r, m, z.msg ? z.msg : "bad deflate data");
    }
    if (st == WT_OK && produced < want)
        st = deflate_error(r, m, "inflates short of its declared size");
    inflateEnd(&z);
    free(in);
    return st;
}

/* Bytes [@p skip, @p skip + @p len) of a member's .npy content. */
static wt_status member_read(const npz_reader *r, const npz_member *m, uint64_t skip, void *buf,
                             uint64_t len)
{
    if (skip > m->size || len > m->size - skip)
        return deflate_error(r, m, "shorter than its array");
    if (m->method == 0)
        return read_at(r, m->data_offset + skip, buf, len);
    return inflate_member(r, m, skip, buf, len);
}

/* ---- reader: .npy headers ------------------------------------------------- */

typedef struct npy_array {
    char kind;      /* 'f', 'i', 'u' */
    int itemsize;
    int swap;       /* stored in the other byte order */
    int ndim;
    uint64_t shape[WT_NPY_MAX_DIMS];
    uint64_t header_len, data_len;
} npy_array;

typedef wt_text_cursor text_cursor; /* src/npy_header.c's, for the JSON meta too */

/* A non-negative decimal integer that fits 63 bits. */
static int parse_uint(text_cursor *c, uint64_t *v)
{
    wt_cursor_skip_space(c);
    *v = 0;
    const char *start = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        unsigned digit = (unsigned)(*c->p++ - '0');
        if (*v > (UINT64_C(1) << 62) / 5) /* *10 would pass 2^63 */
            return 0;
        *v = *v * 10 + digit;
    }
    return c->p > start;
}

/* This reader's dtypes: f, i or u of 1-8 bytes, any byte order. */
static int parse_descr(const char *descr, npy_array *a)
{
    char order = descr[0];
    if (order != '<' && order != '>' && order != '|' && order != '=')
        return 0;
    a->kind = descr[1];
    if ((a->kind != 'f' && a->kind != 'i' && a->kind != 'u') || descr[2] < '1' ||
        descr[2] > '8' || descr[3] != '\0')
        return 0;
    a->itemsize = descr[2] - '0';
    a->swap = a->itemsize > 1 && order != '=' && order != host_order();
    return order != '|' || a->itemsize == 1;
}

/* The shared parser's header under this reader's policy: its dtypes, C order,
 * a length that fits. */
static int npy_array_from(const wt_npy_header *h, npy_array *a)
{
    int ok = 0;
    if (!parse_descr(h->descr, a) || h->fortran) /* Fortran order: the data would be transposed */
        return 0;
    a->ndim = h->ndim;
    memcpy(a->shape, h->shape, sizeof a->shape);
    a->header_len = h->header_len;
    a->data_len = wt_npy_data_bytes(h, (uint64_t)a->itemsize, &ok);
    return ok;
}

static wt_status read_npy_header(const npz_reader *r, const npz_member *m, npy_array *a,
                                 uint8_t *buf, size_t cap)
{
    memset(a, 0, sizeof *a);
    if (m->size < 10)
        return wt_error_set(WT_ERR_FORMAT, "%s: member %s is not a .npy array", r->name, m->name);
    size_t first = m->size < cap ? (size_t)m->size : cap;
    wt_status st = member_read(r, m, 0, buf, first);
    if (st != WT_OK)
        return st;
    wt_npy_header h;
    wt_npy_result res = wt_npy_parse_header(buf, first, cap, &h);
    if (res == WT_NPY_NOT_NPY)
        return wt_error_set(WT_ERR_FORMAT, "%s: member %s is not a .npy array", r->name, m->name);
    if (res != WT_NPY_OK || !npy_array_from(&h, a))
        return wt_error_set(WT_ERR_FORMAT, "%s: member %s has a bad .npy header", r->name,
                            m->name);
    return WT_OK;
}

/* The member holds exactly the bytes its shape needs. */
static wt_status check_data_len(const npz_reader *r, const npz_member *m, const npy_array *a)
{
    if (a->data_len != m->size - a->header_len)
        return wt_error_set(WT_ERR_FORMAT,
                            "%s: member %s holds %llu data bytes, its shape needs %llu",
                            r->name, m->name, (unsigned long long)(m->size - a->header_len),
                            (unsigned long long)a->data_len);
    return WT_OK;
}

static void format_shape(char *out, size_t cap, const uint64_t *shape, int ndim)
{
    size_t n = (size_t)snprintf(out, cap, "(");
    for (int i = 0; i < ndim && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%llu", i ? ", " : "",
                              (unsigned long long)shape[i]);
    if (n < cap)
        snprintf(out + n, cap - n, ndim == 1 ? ",)" : ")");
}

/* ---- reader: meta ---------------------------------------------------------- */

/* A JSON string (escapes decoded; non-ASCII \u escapes refused). */
static int json_string(text_cursor *c, char *out, size_t cap)
{
    wt_cursor_skip_space(c);
    if (c->p >= c->end || *c->p != '"')
        return 0;
    c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != '"') {
        char ch = *c->p++;
        if ((unsigned char)ch < 0x20)
            return 0;
        if (ch == '\\') {
            if (c->p >= c->end)
                return 0;
            ch = *c->p++;
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *hit = strchr(from, ch);
            if (!hit || !ch)
                return 0; /* \u escapes never occur in our meta */
            ch = to[hit - from];
        }
        if (n + 1 >= cap)
            return 0;
        out[n++] = ch;
    }
    out[n] = '\0';
    return c->p++ < c->end;
}

typedef struct meta_fields {
    char wavelet[32], mode[32], method[32], color[32];
    uint64_t levels, width, height, channels, bit_depth;
    unsigned seen;
    /* optional: undecimated transforms */
    char transform[32], border[32];
    uint64_t start_level, norm, all_approx;
    char samples[32]; /* optional: the stored type of float32-held images */
    uint64_t pages; /* optional: a stack's page count */
} meta_fields;

/* The optional keys of undecimated transforms; 1 when @p key is one. */
static int undecimated_pair(text_cursor *c, const char *key, meta_fields *f, int *ok)
{
    if (strcmp(key, "samples") == 0) {
        *ok = json_string(c, f->samples, sizeof f->samples);
        return 1;
    }
    if (strcmp(key, "transform") == 0 || strcmp(key, "border") == 0) {
        *ok = json_string(c, key[0] == 't' ? f->transform : f->border, sizeof f->transform);
        return 1;
    }
    uint64_t *v = strcmp(key, "pages") == 0         ? &f->pages
                  : strcmp(key, "start_level") == 0 ? &f->start_level
                  : strcmp(key, "norm") == 0      ? &f->norm
                  : strcmp(key, "all_approx") == 0 ? &f->all_approx
                                                   : NULL;
    if (v)
        *ok = parse_uint(c, v);
    return v != NULL;
}

/* One "key": value pair; unknown keys with scalar values are skipped. */
static int json_pair(text_cursor *c, meta_fields *f)
{
    static const char *const text_keys[] = {"wavelet", "mode", "method", "color"};
    static const char *const int_keys[] = {"levels", "width", "height", "channels", "bit_depth"};
    char key[32], ignored[256];
    uint64_t number;
    if (!json_string(c, key, sizeof key) || !wt_cursor_accept_char(c, ':'))
        return 0;
    int ok = 0;
    if (undecimated_pair(c, key, f, &ok))
        return ok;
    char *texts[] = {f->wavelet, f->mode, f->method, f->color};
    uint64_t *ints[] = {&f->levels, &f->width, &f->height, &f->channels, &f->bit_depth};
    for (unsigned i = 0; i < 4; i++)
        if (strcmp(key, text_keys[i]) == 0) {
            f->seen |= 1u << i;
            return json_string(c, texts[i], sizeof f->wavelet);
        }
    for (unsigned i = 0; i < 5; i++)
        if (strcmp(key, int_keys[i]) == 0) {
            f->seen |= 1u << (4 + i);
            return parse_uint(c, ints[i]);
        }
    return json_string(c, ignored, sizeof ignored) || parse_uint(c, &number) ||
           wt_cursor_accept_word(c, "true") || wt_cursor_accept_word(c, "false") || wt_cursor_accept_word(c, "null");
}

static int parse_meta_json(const char *text, size_t len, meta_fields *f)
{
    text_cursor c = {text, text + len};
    memset(f, 0, sizeof *f);
    if (!wt_cursor_accept_char(&c, '{'))
        return 0;
    if (wt_cursor_accept_char(&c, '}'))
        return 0;
    do {
        if (!json_pair(&c, f))
            return 0;
    } while (wt_cursor_accept_char(&c, ','));
    if (!wt_cursor_accept_char(&c, '}'))
        return 0;
    wt_cursor_skip_space(&c);
    return c.p == c.end && f->seen == 0x1ff;
}

static wt_status meta_value_error(const npz_reader *r, const char *what, const char *value)
{
    return wt_error_set(WT_ERR_FORMAT, "%s: unknown %s '%s' in the coefficient file", r->name,
                        what, value);
}

/* "samples": the stored type of a float32-held image ("int16", "float64"...). */
static wt_status stored_from_fields(const npz_reader *r, const meta_fields *f, wt_npz_meta *meta)
{
    static const char *const kinds[] = {"uint", "int", "float"};
    if (!f->samples[0]) {
        meta->stored = meta->bit_depth == WT_DEPTH_F32 ? (wt_sample_type){WT_SAMPLE_FLOAT, 32}
                                                      : (wt_sample_type){0, 0};
        return WT_OK;
    }
    for (int k = 0; k < 3 && meta->bit_depth == WT_DEPTH_F32; k++) {
        size_t len = strlen(kinds[k]);
        wt_sample_type t = {(wt_sample_kind)k, atoi(f->samples + len)};
        char again[16];
        if (strncmp(f->samples, kinds[k], len) == 0 && wt_sample_type_known(t) &&
            strcmp(wt_sample_type_name(t, again, sizeof again), f->samples) == 0) {
            meta->stored = t;
            return WT_OK;
        }
    }
    return meta_value_error(r, "sample type", f->samples);
}

/* Meta fields into @p meta, each checked. */
static wt_status meta_from_fields(const npz_reader *r, const meta_fields *f, wt_npz_meta *meta)
{
    memset(meta, 0, sizeof *meta);
    if (f->transform[0] && wt_transform_parse(f->transform, &meta->transform) != WT_OK)
        return meta_value_error(r, "transform", f->transform);
    if (f->border[0] && wt_border_parse(f->border, &meta->border) != WT_OK)
        return meta_value_error(r, "border", f->border);
    if (f->start_level > WT_MAX_LEVELS || f->norm > 1 || f->all_approx > 1)
        return wt_error_set(WT_ERR_FORMAT, "%s: impossible undecimated transform description",
                            r->name);
    if (f->pages > UINT32_MAX)
        return wt_error_set(WT_ERR_FORMAT, "%s: impossible page count", r->name);
    meta->pages = f->pages;
    meta->start_level = (int)f->start_level;
    meta->norm = (int)f->norm;
    meta->all_approx = (int)f->all_approx;
    if (meta->transform != WT_TRANSFORM_STARLET && !wt_wavelet_find(f->wavelet))
        return meta_value_error(r, "wavelet", f->wavelet);
    snprintf(meta->wavelet, sizeof meta->wavelet, "%s", f->wavelet);
    if (wt_mode_parse(f->mode, &meta->mode) != WT_OK)
        return meta_value_error(r, "mode", f->mode);
    if (wt_method_parse(f->method, &meta->method) != WT_OK)
        return meta_value_error(r, "method", f->method);
    if (!color_parse(f->color, &meta->color))
        return meta_value_error(r, "colour type", f->color);
    if (f->levels > WT_MAX_LEVELS || f->width == 0 || f->width > UINT32_MAX || f->height == 0 ||
        f->height > UINT32_MAX ||
        (meta->color ? f->channels != (uint64_t)meta->color
                     : f->channels <= 4 || f->channels > WT_MAX_CHANNELS) ||
        (f->bit_depth != 8 && f->bit_depth != 16 && f->bit_depth != WT_DEPTH_F32))
        return wt_error_set(WT_ERR_FORMAT,
                            "%s: impossible image description (%llux%llu, %llu channels, "
                            "%llu-bit, %llu levels)",
                            r->name, (unsigned long long)f->width,
                            (unsigned long long)f->height, (unsigned long long)f->channels,
                            (unsigned long long)f->bit_depth, (unsigned long long)f->levels);
    meta->levels = (int)f->levels;
    meta->width = (uint32_t)f->width;
    meta->height = (uint32_t)f->height;
    meta->channels = (int)f->channels;
    meta->bit_depth = (int)f->bit_depth;
    meta->color = (wt_color)meta->channels;
    return stored_from_fields(r, f, meta);
}

/* Read a whole small member's data (after its .npy header) and check its CRC. */
static wt_status read_small_member(const npz_reader *r, const npz_member *m, uint8_t *buf,
                                   size_t cap)
{
    if (m->size > cap)
        return wt_error_set(WT_ERR_LIMIT, "%s: member %s is too large", r->name, m->name);
    wt_status st = member_read(r, m, 0, buf, m->size);
    if (st == WT_OK && crc_update((uint32_t)crc32(0, Z_NULL, 0), buf, m->size) != m->crc)
        st = wt_error_set(WT_ERR_FORMAT, "%s: member %s is damaged (CRC mismatch)", r->name,
                          m->name);
    return st;
}

static wt_status read_meta(const npz_reader *r, const npz_directory *d, wt_npz_meta *meta)
{
    const npz_member *m = find_member(d, "meta");
    if (!m)
        return wt_error_set(WT_ERR_FORMAT,
                            "%s: not a wavetool coefficient file (no meta member)", r->name);
    uint8_t *buf = malloc(META_CAP);
    if (!buf)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", r->name);
    npy_array a;
    meta_fields f;
    wt_status st = read_small_member(r, m, buf, META_CAP);
    if (st == WT_OK)
        st = read_npy_header(r, m, &a, buf, NPY_HEADER_CAP);
    if (st == WT_OK && (a.kind != 'u' || a.itemsize != 1 || a.ndim != 1))
        st = wt_error_set(WT_ERR_FORMAT, "%s: meta member is not a uint8 text array", r->name);
    if (st == WT_OK)
        st = check_data_len(r, m, &a);
    if (st == WT_OK &&
        !parse_meta_json((const char *)buf + a.header_len, (size_t)a.data_len, &f))
        st = wt_error_set(WT_ERR_FORMAT, "%s: unreadable meta member (expected wavetool's JSON)",
                          r->name);
    if (st == WT_OK)
        st = meta_from_fields(r, &f, meta);
    free(buf);
    return st;
}

/* ---- reader: bands ---------------------------------------------------------- */

static wt_status plan_from_meta(const npz_reader *r, const wt_npz_meta *meta, wt_pyramid *pyr)
{
    wt_params params = {wt_wavelet_find(meta->wavelet), meta->mode, meta->method, meta->levels};
    wt_status st = wt_params_resolve(&params);
    if (st == WT_OK)
        st = wt_pyramid_plan(pyr, &params, meta->height, meta->width, meta->channels);
    if (st != WT_OK)
        return wt_error_prefix(st == WT_ERR_LIMIT ? WT_ERR_LIMIT : WT_ERR_FORMAT, r->name);
    /* every coefficient is stored in the file: a plan larger than the file is a lie */
    if (pyr->total > r->content / 4)
        return wt_error_set(WT_ERR_FORMAT,
                            "%s: its description (%ux%u, %d channels, %d levels) needs more "
                            "data than the file holds",
                            r->name, meta->width, meta->height, meta->channels, meta->levels);
    return wt_pyramid_alloc(pyr, &params, meta->height, meta->width, meta->channels);
}

static wt_status check_band_header(const npz_reader *r, const npz_member *m, const npy_array *a,
                                   const wt_pyramid *pyr, const uint64_t *expected)
{
    char want = pyr->dtype == WT_INT32 ? 'i' : 'f';
    if (a->kind != want || a->itemsize != 4)
        return wt_error_set(WT_ERR_FORMAT, "%s: member %s is not %s", r->name, m->name,
                            want == 'i' ? "int32" : "float32");
    if (a->ndim != 3 || a->shape[0] != expected[0] || a->shape[1] != expected[1] ||
        a->shape[2] != expected[2]) {
        char got[160], exp[96];
        format_shape(got, sizeof got, a->shape, a->ndim);
        format_shape(exp, sizeof exp, expected, 3);
        return wt_error_set(WT_ERR_FORMAT, "%s: member %s has shape %s, expected %s", r->name,
                            m->name, got, exp);
    }
    return WT_OK;
}

/* Member @p name into @p dst: its .npy header of @p like's dtype and the
 * shape @p expected, its length, its CRC; byte order made the host's. */
static wt_status read_member_array(const npz_reader *r, const npz_directory *d, const char *name,
                                   const wt_pyramid *like, const uint64_t *expected,
                                   uint8_t *dst)
{
    uint8_t header[NPY_HEADER_CAP];
    npy_array a;
    const npz_member *m = find_member(d, name);
    if (!m)
        return wt_error_set(WT_ERR_FORMAT, "%s: member %s is missing", r->name, name);
    wt_status st = read_npy_header(r, m, &a, header, sizeof header);
    if (st == WT_OK)
        st = check_band_header(r, m, &a, like, expected);
    if (st == WT_OK)
        st = check_data_len(r, m, &a);
    if (st == WT_OK)
        st = member_read(r, m, a.header_len, dst, a.data_len);
    if (st != WT_OK)
        return st;
    uint32_t crc = crc_update((uint32_t)crc32(0, Z_NULL, 0), header, a.header_len);
    if (crc_update(crc, dst, a.data_len) != m->crc)
        return wt_error_set(WT_ERR_FORMAT, "%s: member %s is damaged (CRC mismatch)", r->name,
                            m->name);
    if (a.swap)
        swap4(dst, (size_t)(a.data_len / 4));
    return WT_OK;
}

static wt_status read_band(const npz_reader *r, const npz_directory *d, wt_pyramid *pyr,
                           int level, wt_band band)
{
    char name[MEMBER_NAME_CAP];
    size_t h, w;
    member_name(name, band, level);
    wt_pyramid_band_shape(pyr, level, band, &h, &w);
    uint64_t expected[3] = {(uint64_t)pyr->channels, h, w};
    uint8_t *dst = (uint8_t *)pyr->data + wt_pyramid_offset(pyr, level, band, 0) * 4;
    return read_member_array(r, d, name, pyr, expected, dst);
}

static wt_status read_bands(const npz_reader *r, const npz_directory *d, wt_pyramid *pyr)
{
    wt_status st = read_band(r, d, pyr, pyr->levels, WT_BAND_A);
    for (int l = 1; st == WT_OK && l <= pyr->levels; l++)
        for (wt_band b = WT_BAND_H; st == WT_OK && b <= WT_BAND_D; b++)
            st = read_band(r, d, pyr, l, b);
    return st;
}

/* ---- undecimated band stacks -------------------------------------------------- */

/* Member name of band @p i of a stack (wt_ustack_index's order). */
static void stack_member_name(const wt_uparams *p, int i, char *out)
{
    int L = p->levels;
    if (p->transform == WT_TRANSFORM_STARLET) {
        if (i == 0)
            snprintf(out, MEMBER_NAME_CAP, "c");
        else
            snprintf(out, MEMBER_NAME_CAP, "w%d", i);
    } else if (i == 0) {
        snprintf(out, MEMBER_NAME_CAP, "cA");
    } else if (i <= 3 * L) {
        snprintf(out, MEMBER_NAME_CAP, "c%c%d", band_letter[1 + (i - 1) % 3], L - (i - 1) / 3);
    } else {
        snprintf(out, MEMBER_NAME_CAP, "cA%d", i - 3 * L);
    }
}

/* What write_stack_bands writes. */
typedef struct stack_bands {
    const wt_uparams *params;
    const float *bands;
    const wt_npz_meta *meta;
} stack_bands;

/* The members of an undecimated stack, in wt_ustack_index's order. */
static void write_stack_bands(npz_writer *w, const void *stack)
{
    const stack_bands *s = stack;
    char header[256], name[MEMBER_NAME_CAP], descr[8];
    uint64_t shape[3] = {(uint64_t)s->meta->channels, s->meta->height, s->meta->width};
    uint64_t band = shape[0] * shape[1] * shape[2];
    snprintf(descr, sizeof descr, "%cf4", host_order());
    size_t header_len = npy_header(header, sizeof header, descr, shape, 3);
    for (int i = 0; i < wt_ustack_bands(s->params); i++) {
        stack_member_name(s->params, i, name);
        write_member(w, name, header, header_len, s->bands + (size_t)i * band, band * 4);
    }
}

wt_status wt_npz_save_stack(const char *path, const wt_uparams *params, const float *bands,
                            const wt_npz_meta *meta)
{
    const char *shown = strcmp(path, "-") == 0 ? "(stdout)" : path;
    if (!bands || meta->transform != params->transform || meta->levels != params->levels ||
        (int)meta->color != meta->channels ||
        (meta->bit_depth != 8 && meta->bit_depth != 16 && meta->bit_depth != WT_DEPTH_F32) ||
        wt_uparams_check(params, meta->height, meta->width) != WT_OK)
        return wt_error_set(WT_ERR_INVALID, "%s: coefficients do not match their description",
                            shown);
    stack_bands stack = {params, bands, meta};
    return save_npz(path, shown, meta, write_stack_bands, &stack);
}

/* The transform a meta describes; its size checked against the file. */
static wt_status uparams_from_meta(const npz_reader *r, const wt_npz_meta *meta, wt_uparams *p)
{
    *p = (wt_uparams){meta->transform, wt_wavelet_find(meta->wavelet), meta->levels,
                      meta->start_level, meta->norm, meta->all_approx, meta->border};
    if (wt_uparams_check(p, meta->height, meta->width) != WT_OK) {
        char reason[512];
        snprintf(reason, sizeof reason, "%s", wt_error_message());
        return wt_error_set(WT_ERR_FORMAT, "%s: %s", r->name, reason);
    }
    uint64_t plane = (uint64_t)meta->height * meta->width * (uint64_t)meta->channels;
    if (plane > r->content / 4 / (uint64_t)wt_ustack_bands(p))
        return wt_error_set(WT_ERR_FORMAT,
                            "%s: its description (%ux%u, %d channels, %d bands) needs more "
                            "data than the file holds",
                            r->name, meta->width, meta->height, meta->channels,
                            wt_ustack_bands(p));
    return WT_OK;
}


static wt_status read_stack(const npz_reader *r, const npz_directory *d, const wt_uparams *p,
                            const wt_npz_meta *meta, float **stack)
{
    uint64_t expected[3] = {(uint64_t)meta->channels, meta->height, meta->width};
    size_t band = (size_t)(expected[0] * expected[1] * expected[2]);
    int nb = wt_ustack_bands(p);
    *stack = malloc(band * (size_t)nb * sizeof **stack);
    if (!*stack)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory (%zu MiB of coefficients)",
                            r->name, band * (size_t)nb * 4 >> 20);
    wt_status st = WT_OK;
    char name[MEMBER_NAME_CAP];
    const wt_pyramid like = {.dtype = WT_FLOAT32}; /* stacks are float32 */
    for (int i = 0; st == WT_OK && i < nb; i++) {
        stack_member_name(p, i, name);
        st = read_member_array(r, d, name, &like, expected,
                               (uint8_t *)(*stack + (size_t)i * band));
    }
    if (st != WT_OK) {
        free(*stack);
        *stack = NULL;
    }
    return st;
}

/* Any coefficient file; @p stack NULL: DWT files only. The image it describes
 * gets the limits of every image read (@p opt NULL: the defaults). */
static wt_status load_file(const char *path, const wt_load_options *opt, wt_pyramid *pyr,
                           float **stack, wt_uparams *up, wt_npz_meta *meta)
{
    npz_reader r;
    uint64_t max_pixels = opt && opt->max_pixels ? opt->max_pixels : WT_DEFAULT_MAX_PIXELS;
    memset(pyr, 0, sizeof *pyr);
    if (stack)
        *stack = NULL;
    npz_directory *d = malloc(sizeof *d);
    wt_status st = d ? reader_open(&r, path, max_pixels)
                     : wt_error_set(WT_ERR_NOMEM, "out of memory");
    if (st == WT_OK)
        st = read_directory(&r, d);
    if (st == WT_OK)
        r.content = d->content;
    if (st == WT_OK)
        st = read_meta(&r, d, meta);
    if (st == WT_OK)
        st = wt_check_dimensions(r.name, "coefficient file's", meta->width, meta->height,
                                 max_pixels);
    if (st == WT_OK && meta->pages)
        st = wt_error_set(WT_ERR_UNSUPPORTED,
                          "%s: coefficients of a stack of %llu pages: read page by page, "
                          "from a file (not a pipe)",
                          r.name, (unsigned long long)meta->pages);
    int undecimated = st == WT_OK && meta->transform != WT_TRANSFORM_DWT;
    if (undecimated && !stack)
        st = wt_error_set(WT_ERR_UNSUPPORTED, "%s: holds an undecimated (%s) transform",
                          r.name, wt_transform_name(meta->transform));
    else if (undecimated) {
        st = uparams_from_meta(&r, meta, up);
        if (st == WT_OK)
            st = read_stack(&r, d, up, meta, stack);
    } else {
        if (st == WT_OK)
            st = plan_from_meta(&r, meta, pyr);
        if (st == WT_OK)
            st = read_bands(&r, d, pyr);
        if (st != WT_OK)
            wt_pyramid_free(pyr);
    }
    if (d)
        reader_close(&r);
    free(d);
    return st;
}

wt_status wt_npz_load(const char *path, wt_pyramid *pyr, wt_npz_meta *meta)
{
    return load_file(path, NULL, pyr, NULL, NULL, meta);
}

wt_status wt_npz_load_any(const char *path, const wt_load_options *opt, wt_pyramid *pyr,
                          float **stack, wt_uparams *params, wt_npz_meta *meta)
{
    return load_file(path, opt, pyr, stack, params, meta);
}

/* ---- the registry's row ------------------------------------------------ */

/* A zip's first member, or the end record of an empty one. */
static int is_npz(const uint8_t *data, size_t size)
{
    return wt_starts_like(data, size, "PK\x03\x04", 4) ||
           wt_starts_like(data, size, "PK\x05\x06", 4);
}

/* Coefficients are float32 or int32: a quarter of the file's bytes. */
static uint64_t npz_probe(const uint8_t *head, size_t size, const char *path)
{
    (void)head;
    (void)size;
    struct stat sb;
    return stat(path, &sb) == 0 && sb.st_size > 0 ? (uint64_t)sb.st_size / 4 : 0;
}

static const char *const npz_extensions[] = {"npz", NULL};

const wt_codec wt_codec_npz = {
    {"NPZ", npz_extensions, WT_HOLDS_COEFFS, 0, 0, 1},
    is_npz, 4, NULL, NULL, npz_probe,
};

/* ---- stacks: a leading page axis, written and read a page at a time --------
 * Every member is stored (N, C, h, w): its size is known before the first
 * page, so each member's place is reserved in the output and each page's bands
 * are written at their offsets; the CRCs run on page by page (pages come in
 * order) and the local headers, the meta and the directory are written last. */

/* A member of a stack: its .npy header and the bytes of one page. */
typedef struct stack_member {
    char header[256];
    size_t header_len;
    uint64_t page_bytes, data_start;
} stack_member;

struct wt_npz_stack_writer {
    wt_outfile out;
    npz_writer w;
    wt_npz_meta meta;
    int nmembers, undecimated;
    stack_member sm[MAX_MEMBERS];
    wt_pyramid plan; /* DWT: the pages' plan (data NULL) */
    uint64_t end, written;
};

/* Name, dtype and (C, h, w) of member @p i of a DWT page (write_all's order). */
static void dwt_member(const wt_pyramid *p, int i, char *name, uint64_t *shape)
{
    int level = i == 0 ? p->levels : 1 + (i - 1) / 3;
    wt_band band = i == 0 ? WT_BAND_A : (wt_band)(WT_BAND_H + (i - 1) % 3);
    size_t h, w;
    member_name(name, band, level);
    wt_pyramid_band_shape(p, level, band, &h, &w);
    shape[0] = (uint64_t)p->channels, shape[1] = h, shape[2] = w;
}

/* The members' places: each local header, .npy header and N pages. */
static void reserve_members(wt_npz_stack_writer *s, const wt_uparams *up)
{
    uint64_t pos = 0, n = s->meta.pages;
    char descr[8];
    snprintf(descr, sizeof descr, "%c%s", host_order(),
             !s->undecimated && s->plan.dtype == WT_INT32 ? "i4" : "f4");
    s->nmembers = s->undecimated ? wt_ustack_bands(up) : 1 + 3 * s->plan.levels;
    for (int i = 0; i < s->nmembers; i++) {
        zip_member *m = &s->w.members[i];
        stack_member *sm = &s->sm[i];
        char name[MEMBER_NAME_CAP];
        uint64_t shape[4] = {n, (uint64_t)s->meta.channels, s->meta.height, s->meta.width};
        if (s->undecimated)
            stack_member_name(up, i, name);
        else
            dwt_member(&s->plan, i, name, shape + 1);
        snprintf(m->name, sizeof m->name, "%s.npy", name);
        sm->header_len = npy_header(sm->header, sizeof sm->header, descr, shape, 4);
        sm->page_bytes = shape[1] * shape[2] * shape[3] * 4;
        m->offset = pos;
        m->size = m->csize = sm->header_len + n * sm->page_bytes;
        m->crc = crc_update((uint32_t)crc32(0, Z_NULL, 0), sm->header, sm->header_len);
        uint64_t local = ZIP_LOCAL_LEN + strlen(m->name) + (needs_zip64(m->size) ? 20 : 0);
        sm->data_start = pos + local + sm->header_len;
        pos = sm->data_start + n * sm->page_bytes;
    }
    s->w.count = s->nmembers;
    s->end = pos;
}

static wt_status stack_writer_error(const wt_npz_stack_writer *s)
{
    return wt_error_set(WT_ERR_IO, "%s: %s", s->w.path, strerror(s->w.error));
}

/* Write @p len bytes at @p offset of the output. */
static void write_at(npz_writer *w, uint64_t offset, const void *data, uint64_t len)
{
    if (!w->error && fseeko(w->fp, (off_t)offset, SEEK_SET) != 0)
        w->error = errno ? errno : EIO;
    w->pos = offset;
    write_bytes(w, data, len);
}

wt_status wt_npz_stack_writer_open(const char *path, const wt_npz_meta *meta,
                                   const wt_pyramid *shape, const wt_uparams *ustack,
                                   wt_npz_stack_writer **out)
{
    *out = NULL;
    if (strcmp(path, "-") == 0)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "(stdout): a stack's coefficient file is written in place: not to "
                            "standard output");
    if (meta->compress)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: --compress is not available for stacks (members are written "
                            "in place, page by page)", path);
    if (!meta->pages || (!ustack && (!shape || shape->levels != meta->levels)))
        return wt_error_set(WT_ERR_INVALID, "%s: coefficients do not match their description",
                            path);
    wt_npz_stack_writer *s = calloc(1, sizeof *s);
    if (!s)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", path);
    s->meta = *meta;
    s->undecimated = ustack != NULL;
    if (shape) {
        s->plan = *shape;
        s->plan.data = NULL, s->plan.owned = 0;
    }
    wt_status st = wt_outfile_open(&s->out, path);
    if (st != WT_OK) {
        free(s);
        return st;
    }
    s->w.fp = s->out.fp;
    s->w.path = path;
    reserve_members(s, ustack);
    *out = s;
    return WT_OK;
}

/* Page s->written of member @p i from @p data. */
static void add_member_page(wt_npz_stack_writer *s, int i, const void *data)
{
    stack_member *sm = &s->sm[i];
    write_at(&s->w, sm->data_start + s->written * sm->page_bytes, data, sm->page_bytes);
    s->w.members[i].crc = crc_update(s->w.members[i].crc, data, sm->page_bytes);
}

static wt_status check_room(const wt_npz_stack_writer *s)
{
    if (s->written >= s->meta.pages)
        return wt_error_set(WT_ERR_INVALID, "%s: more than %llu pages", s->w.path,
                            (unsigned long long)s->meta.pages);
    return WT_OK;
}

wt_status wt_npz_stack_add_pyramid(wt_npz_stack_writer *s, const wt_pyramid *pyr)
{
    wt_status st = check_room(s);
    if (st == WT_OK && (s->undecimated || !pyr->data || pyr->total != s->plan.total ||
                        pyr->levels != s->plan.levels || pyr->dtype != s->plan.dtype))
        st = wt_error_set(WT_ERR_INVALID, "%s: page %llu does not match page 0", s->w.path,
                          (unsigned long long)s->written);
    for (int i = 0; st == WT_OK && i < s->nmembers; i++) {
        char name[MEMBER_NAME_CAP];
        uint64_t shape[3];
        dwt_member(pyr, i, name, shape);
        int level = i == 0 ? pyr->levels : 1 + (i - 1) / 3;
        wt_band band = i == 0 ? WT_BAND_A : (wt_band)(WT_BAND_H + (i - 1) % 3);
        add_member_page(s, i, (const uint8_t *)pyr->data + wt_pyramid_offset(pyr, level, band, 0) * 4);
    }
    if (st == WT_OK && s->w.error)
        st = stack_writer_error(s);
    if (st == WT_OK)
        s->written++;
    return st;
}

wt_status wt_npz_stack_add_bands(wt_npz_stack_writer *s, const float *bands)
{
    wt_status st = check_room(s);
    if (st == WT_OK && !s->undecimated)
        st = wt_error_set(WT_ERR_INVALID, "%s: not an undecimated stack", s->w.path);
    for (int i = 0; st == WT_OK && i < s->nmembers; i++)
        add_member_page(s, i, (const uint8_t *)bands + (uint64_t)i * s->sm[i].page_bytes);
    if (st == WT_OK && s->w.error)
        st = stack_writer_error(s);
    if (st == WT_OK)
        s->written++;
    return st;
}

wt_status wt_npz_stack_writer_commit(wt_npz_stack_writer *s)
{
    char json[1024], header[256];
    wt_status st = s->written == s->meta.pages
                       ? WT_OK
                       : wt_error_set(WT_ERR_INVALID, "%s: %llu of %llu pages written",
                                      s->w.path, (unsigned long long)s->written,
                                      (unsigned long long)s->meta.pages);
    int json_len = meta_json(&s->meta, json, sizeof json);
    if (st == WT_OK && (json_len < 0 || (size_t)json_len >= sizeof json))
        st = wt_error_set(WT_ERR_INVALID, "%s: description too long", s->w.path);
    for (int i = 0; st == WT_OK && i < s->nmembers; i++) {
        write_at(&s->w, s->w.members[i].offset, NULL, 0);
        write_local_header(&s->w, &s->w.members[i]);
        write_bytes(&s->w, s->sm[i].header, s->sm[i].header_len);
    }
    if (st == WT_OK) {
        uint64_t meta_len = (uint64_t)json_len;
        size_t header_len = npy_header(header, sizeof header, "|u1", &meta_len, 1);
        write_at(&s->w, s->end, NULL, 0);
        write_member(&s->w, "meta", header, header_len, json, meta_len);
        write_directory(&s->w);
        if (s->w.error)
            st = stack_writer_error(s);
    }
    if (st == WT_OK)
        st = wt_outfile_commit(&s->out);
    else
        wt_outfile_abort(&s->out);
    free(s);
    return st;
}

void wt_npz_stack_writer_abort(wt_npz_stack_writer *s)
{
    if (!s)
        return;
    wt_outfile_abort(&s->out);
    free(s);
}

/* ---- stacks: reading ------------------------------------------------------- */

struct wt_npz_stack_reader {
    npz_reader r;
    npz_directory d;
    wt_npz_meta meta;
    wt_uparams up;
    wt_pyramid plan; /* DWT pages: the plan (data NULL) */
    int nmembers, undecimated;
    const npz_member *m[MAX_MEMBERS];
    uint64_t header_len[MAX_MEMBERS], page_bytes[MAX_MEMBERS];
    uint32_t crc[MAX_MEMBERS];
    int swap;
    uint64_t next;
};

/* Member @p i's header: (N, C, h, w) of the page's dtype, stored, its length. */
static wt_status open_stack_member(wt_npz_stack_reader *s, int i, const char *name,
                                   const uint64_t *page_shape)
{
    uint8_t header[NPY_HEADER_CAP];
    npy_array a;
    const npz_member *m = find_member(&s->d, name);
    if (!m)
        return wt_error_set(WT_ERR_FORMAT, "%s: member %s is missing", s->r.name, name);
    if (m->method != 0)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: member %s is deflated: a stack is read from stored members",
                            s->r.name, name);
    wt_status st = read_npy_header(&s->r, m, &a, header, sizeof header);
    char want = !s->undecimated && s->plan.dtype == WT_INT32 ? 'i' : 'f';
    uint64_t expected[4] = {s->meta.pages, page_shape[0], page_shape[1], page_shape[2]};
    if (st == WT_OK && (a.kind != want || a.itemsize != 4 || a.ndim != 4 ||
                        memcmp(a.shape, expected, sizeof expected) != 0)) {
        char got[160], exp[128];
        format_shape(got, sizeof got, a.shape, a.ndim);
        format_shape(exp, sizeof exp, expected, 4);
        st = wt_error_set(WT_ERR_FORMAT, "%s: member %s is %c%d %s, expected %s %s", s->r.name,
                          name, a.kind, 8 * a.itemsize, got, want == 'i' ? "int32" : "float32",
                          exp);
    }
    if (st == WT_OK)
        st = check_data_len(&s->r, m, &a);
    if (st != WT_OK)
        return st;
    s->m[i] = m;
    s->swap = a.swap;
    s->header_len[i] = a.header_len;
    s->page_bytes[i] = page_shape[0] * page_shape[1] * page_shape[2] * 4;
    s->crc[i] = crc_update((uint32_t)crc32(0, Z_NULL, 0), header, a.header_len);
    return WT_OK;
}

/* The transform of the meta and every member's header. */
static wt_status open_stack_members(wt_npz_stack_reader *s)
{
    char name[MEMBER_NAME_CAP];
    uint64_t shape[3] = {(uint64_t)s->meta.channels, s->meta.height, s->meta.width};
    wt_status st = WT_OK;
    if (s->undecimated) {
        s->up = (wt_uparams){s->meta.transform, wt_wavelet_find(s->meta.wavelet),
                             s->meta.levels, s->meta.start_level, s->meta.norm,
                             s->meta.all_approx, s->meta.border};
        if (wt_uparams_check(&s->up, s->meta.height, s->meta.width) != WT_OK)
            return wt_error_prefix(WT_ERR_FORMAT, s->r.name);
        s->nmembers = wt_ustack_bands(&s->up);
    } else {
        wt_params params = {wt_wavelet_find(s->meta.wavelet), s->meta.mode, s->meta.method,
                            s->meta.levels};
        st = wt_params_resolve(&params);
        if (st == WT_OK)
            st = wt_pyramid_plan(&s->plan, &params, s->meta.height, s->meta.width,
                                 s->meta.channels);
        if (st != WT_OK)
            return wt_error_prefix(st == WT_ERR_LIMIT ? WT_ERR_LIMIT : WT_ERR_FORMAT, s->r.name);
        s->nmembers = 1 + 3 * s->plan.levels;
    }
    for (int i = 0; st == WT_OK && i < s->nmembers; i++) {
        if (s->undecimated)
            stack_member_name(&s->up, i, name);
        else
            dwt_member(&s->plan, i, name, shape);
        st = open_stack_member(s, i, name, shape);
    }
    return st;
}

wt_status wt_npz_stack_reader_open(const char *path, const wt_load_options *opt,
                                   wt_npz_stack_reader **out, wt_npz_meta *meta,
                                   wt_uparams *params)
{
    uint64_t max_pixels = opt && opt->max_pixels ? opt->max_pixels : WT_DEFAULT_MAX_PIXELS;
    *out = NULL;
    wt_npz_stack_reader *s = calloc(1, sizeof *s);
    if (!s)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", path);
    wt_status st = reader_open(&s->r, path, max_pixels);
    if (st == WT_OK)
        st = read_directory(&s->r, &s->d);
    if (st == WT_OK) {
        s->r.content = s->d.content;
        st = read_meta(&s->r, &s->d, &s->meta);
    }
    if (st == WT_OK)
        st = wt_check_dimensions(s->r.name, "coefficient file's", s->meta.width,
                                 s->meta.height, max_pixels);
    if (st == WT_OK && !s->meta.pages)
        st = wt_error_set(WT_ERR_INVALID, "%s: coefficients of one image, not of a stack",
                          s->r.name);
    s->undecimated = s->meta.transform != WT_TRANSFORM_DWT;
    if (st == WT_OK)
        st = open_stack_members(s);
    if (st != WT_OK) {
        wt_npz_stack_reader_close(s);
        return st;
    }
    *meta = s->meta;
    if (params)
        *params = s->up;
    *out = s;
    return WT_OK;
}

/* Where member @p i's page goes: in a DWT pyramid at its band's offset, in a
 * band stack one band after another. */
static uint8_t *member_target(const wt_npz_stack_reader *s, int i, uint8_t *base,
                              const wt_pyramid *pyr)
{
    if (s->undecimated)
        return base + (uint64_t)i * s->page_bytes[0];
    int level = i == 0 ? pyr->levels : 1 + (i - 1) / 3;
    wt_band band = i == 0 ? WT_BAND_A : (wt_band)(WT_BAND_H + (i - 1) % 3);
    return base + wt_pyramid_offset(pyr, level, band, 0) * 4;
}

/* Page @p k of every member into its place in @p base. */
static wt_status read_stack_page(wt_npz_stack_reader *s, uint64_t k, uint8_t *base,
                                 const wt_pyramid *pyr)
{
    wt_status st = WT_OK;
    for (int i = 0; st == WT_OK && i < s->nmembers; i++) {
        uint8_t *dst = member_target(s, i, base, pyr);
        st = member_read(&s->r, s->m[i], s->header_len[i] + k * s->page_bytes[i], dst,
                         s->page_bytes[i]);
        if (st == WT_OK)
            s->crc[i] = crc_update(s->crc[i], dst, s->page_bytes[i]);
        if (st == WT_OK && k + 1 == s->meta.pages && s->crc[i] != s->m[i]->crc)
            st = wt_error_set(WT_ERR_FORMAT, "%s: member %s is damaged (CRC mismatch)",
                              s->r.name, s->m[i]->name);
        if (st == WT_OK && s->swap)
            swap4(dst, (size_t)(s->page_bytes[i] / 4));
    }
    return st;
}

wt_status wt_npz_stack_read_page(wt_npz_stack_reader *s, uint64_t k, wt_pyramid *pyr,
                                 float **bands)
{
    if (k != s->next || k >= s->meta.pages)
        return wt_error_set(WT_ERR_INVALID, "%s: pages are read in order (page %llu asked, %llu "
                            "next)", s->r.name, (unsigned long long)k,
                            (unsigned long long)s->next);
    size_t bytes = 0;
    for (int i = 0; i < s->nmembers; i++)
        bytes += (size_t)s->page_bytes[i];
    uint8_t *dst = NULL;
    if (s->undecimated) {
        if (!*bands)
            *bands = malloc(bytes ? bytes : 1);
        dst = (uint8_t *)*bands;
    } else {
        if (!pyr->data) {
            wt_params params = {wt_wavelet_find(s->meta.wavelet), s->meta.mode,
                                s->meta.method, s->meta.levels};
            wt_params_resolve(&params);
            if (wt_pyramid_alloc(pyr, &params, s->meta.height, s->meta.width,
                                 s->meta.channels) != WT_OK)
                return wt_error_prefix(WT_ERR_NOMEM, s->r.name);
        }
        dst = pyr->data;
    }
    if (!dst)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", s->r.name);
    wt_status st = read_stack_page(s, k, dst, pyr);
    if (st == WT_OK)
        s->next++;
    return st;
}

void wt_npz_stack_reader_close(wt_npz_stack_reader *s)
{
    if (!s)
        return;
    reader_close(&s->r);
    free(s);
}

int wt_npz_is_stack(const char *path)
{
    wt_npz_stack_reader *s = NULL;
    wt_npz_meta meta;
    struct stat sb;
    if (strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0; /* a stream is read once: as one image's coefficients */
    s = calloc(1, sizeof *s);
    int stack = s && reader_open(&s->r, path, 0) == WT_OK &&
                read_directory(&s->r, &s->d) == WT_OK && read_meta(&s->r, &s->d, &meta) == WT_OK &&
                meta.pages > 0;
    wt_npz_stack_reader_close(s);
    wt_error_clear();
    return stack;
}
