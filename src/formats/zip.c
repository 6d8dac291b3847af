/* The zip container of coefficient files: see zip.h. Written by our own code,
 * byte-for-byte reproducible (a fixed DOS date). The reader treats the file as
 * hostile: every length and offset is checked against the file size before
 * use, deflated members inflate into buffers of their declared size (which
 * deflate's ratio bounds by their stored size). */
#include "zip.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "image_codec.h"
#include "input.h"
#include "wavetool_hooks.h"

#define ZIP_LOCAL_SIG 0x04034b50u
#define ZIP_CENTRAL_SIG 0x02014b50u
#define ZIP_END_SIG 0x06054b50u
#define ZIP64_END_SIG 0x06064b50u
#define ZIP64_LOCATOR_SIG 0x07064b50u
#define ZIP_CENTRAL_LEN 46
#define ZIP_END_LEN 22
#define ZIP64_END_LEN 56
#define ZIP64_LOCATOR_LEN 20
#define ZIP_DOS_DATE 0x0021 /* 1980-01-01: files are byte-for-byte reproducible */
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

uint8_t *zip_put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return p + 2;
}

uint8_t *zip_put32(uint8_t *p, uint32_t v)
{
    return zip_put16(zip_put16(p, v & 0xffffu), v >> 16);
}

uint8_t *zip_put64(uint8_t *p, uint64_t v)
{
    return zip_put32(zip_put32(p, (uint32_t)v), (uint32_t)(v >> 32));
}

unsigned zip_get16(const uint8_t *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

uint32_t zip_get32(const uint8_t *p)
{
    return (uint32_t)zip_get16(p) | (uint32_t)zip_get16(p + 2) << 16;
}

uint64_t zip_get64(const uint8_t *p)
{
    return (uint64_t)zip_get32(p) | (uint64_t)zip_get32(p + 4) << 32;
}

/* zlib's crc32 takes 32-bit lengths: feed big buffers in pieces. */
uint32_t zip_crc_update(uint32_t crc, const void *data, uint64_t len)
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

uint32_t zip_crc_start(void)
{
    return (uint32_t)crc32(0, Z_NULL, 0);
}

/* ---- writer --------------------------------------------------------------- */

void zip_write_bytes(zip_writer *w, const void *data, uint64_t len)
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

int zip_needs_zip64(uint64_t v)
{
    return v >= zip64_threshold || v >= 0xffffffffu;
}

uint64_t zip_local_header_len(const zip_member *m)
{
    int z64 = zip_needs_zip64(m->size) || zip_needs_zip64(m->csize);
    return ZIP_LOCAL_LEN + strlen(m->name) + (z64 ? 20 : 0);
}

void zip_write_local_header(zip_writer *w, const zip_member *m)
{
    uint8_t h[ZIP_LOCAL_LEN + 20], *p = h;
    size_t name_len = strlen(m->name);
    int z64 = zip_needs_zip64(m->size) || zip_needs_zip64(m->csize);
    p = zip_put32(p, ZIP_LOCAL_SIG);
    p = zip_put16(p, z64 ? 45 : 20); /* version needed */
    p = zip_put16(p, 0);             /* flags */
    p = zip_put16(p, m->method);
    p = zip_put16(p, 0);             /* time */
    p = zip_put16(p, ZIP_DOS_DATE);
    p = zip_put32(p, m->crc);
    p = zip_put32(p, z64 ? 0xffffffffu : (uint32_t)m->csize);
    p = zip_put32(p, z64 ? 0xffffffffu : (uint32_t)m->size);
    p = zip_put16(p, (unsigned)name_len);
    p = zip_put16(p, z64 ? 20 : 0);
    zip_write_bytes(w, h, ZIP_LOCAL_LEN);
    zip_write_bytes(w, m->name, name_len);
    if (z64) {
        p = zip_put16(h, 1);
        p = zip_put16(p, 16);
        p = zip_put64(p, m->size);
        zip_put64(p, m->csize);
        zip_write_bytes(w, h, 20);
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
void zip_write_member(zip_writer *w, const char *name, const void *header, size_t header_len,
                      const void *data, uint64_t data_len)
{
    zip_member *m = &w->members[w->count++];
    snprintf(m->name, sizeof m->name, "%s.npy", name);
    m->offset = w->pos;
    m->size = m->csize = header_len + data_len;
    m->crc = zip_crc_update(zip_crc_update(zip_crc_start(), header, header_len), data, data_len);
    if (!w->compress) {
        zip_write_local_header(w, m);
        zip_write_bytes(w, header, header_len);
        zip_write_bytes(w, data, data_len);
        return;
    }
    deflated out = {0};
    if (deflate_member(header, header_len, data, data_len, &out) != Z_OK) {
        w->error = w->error ? w->error : ENOMEM;
    } else {
        m->method = 8;
        m->csize = out.len;
        zip_write_local_header(w, m);
        zip_write_bytes(w, out.data, out.len);
    }
    free(out.data);
}

static void write_central_entry(zip_writer *w, const zip_member *m)
{
    uint8_t h[ZIP_CENTRAL_LEN], extra[28], *e = extra + 4;
    int big_size = zip_needs_zip64(m->size) || zip_needs_zip64(m->csize);
    int big_offset = zip_needs_zip64(m->offset);
    if (big_size) {
        e = zip_put64(e, m->size);
        e = zip_put64(e, m->csize);
    }
    if (big_offset)
        e = zip_put64(e, m->offset);
    unsigned extra_len = (unsigned)(e - extra);
    zip_put16(zip_put16(extra, 1), extra_len - 4);
    size_t name_len = strlen(m->name);
    uint8_t *p = zip_put32(h, ZIP_CENTRAL_SIG);
    p = zip_put16(p, 0x0300 | 45);                          /* made by: Unix */
    p = zip_put16(p, big_size || big_offset ? 45 : 20);
    p = zip_put16(p, 0);
    p = zip_put16(p, m->method);
    p = zip_put16(p, 0);
    p = zip_put16(p, ZIP_DOS_DATE);
    p = zip_put32(p, m->crc);
    p = zip_put32(p, big_size ? 0xffffffffu : (uint32_t)m->csize);
    p = zip_put32(p, big_size ? 0xffffffffu : (uint32_t)m->size);
    p = zip_put16(p, (unsigned)name_len);
    p = zip_put16(p, extra_len > 4 ? extra_len : 0);
    p = zip_put16(p, 0);                                    /* comment */
    p = zip_put16(p, 0);                                    /* disk */
    p = zip_put16(p, 0);                                    /* internal attributes */
    p = zip_put32(p, 0100644u << 16);                       /* external: -rw-r--r-- */
    zip_put32(p, big_offset ? 0xffffffffu : (uint32_t)m->offset);
    zip_write_bytes(w, h, sizeof h);
    zip_write_bytes(w, m->name, name_len);
    if (extra_len > 4)
        zip_write_bytes(w, extra, extra_len);
}

static void write_zip64_end(zip_writer *w, uint64_t cd_offset, uint64_t cd_size)
{
    uint8_t h[ZIP64_END_LEN + ZIP64_LOCATOR_LEN], *p = h;
    uint64_t record_offset = w->pos;
    p = zip_put32(p, ZIP64_END_SIG);
    p = zip_put64(p, ZIP64_END_LEN - 12);
    p = zip_put16(p, 0x0300 | 45);
    p = zip_put16(p, 45);
    p = zip_put32(p, 0);
    p = zip_put32(p, 0);
    p = zip_put64(p, (uint64_t)w->count);
    p = zip_put64(p, (uint64_t)w->count);
    p = zip_put64(p, cd_size);
    p = zip_put64(p, cd_offset);
    p = zip_put32(p, ZIP64_LOCATOR_SIG);
    p = zip_put32(p, 0);
    p = zip_put64(p, record_offset);
    zip_put32(p, 1);
    zip_write_bytes(w, h, sizeof h);
}

void zip_write_directory(zip_writer *w)
{
    uint64_t cd_offset = w->pos;
    for (int i = 0; i < w->count; i++)
        write_central_entry(w, &w->members[i]);
    uint64_t cd_size = w->pos - cd_offset;
    int z64 = zip_needs_zip64(cd_offset) || zip_needs_zip64(cd_size);
    if (z64)
        write_zip64_end(w, cd_offset, cd_size);
    uint8_t h[ZIP_END_LEN], *p = zip_put32(h, ZIP_END_SIG);
    p = zip_put16(p, 0);
    p = zip_put16(p, 0);
    p = zip_put16(p, (unsigned)w->count);
    p = zip_put16(p, (unsigned)w->count);
    p = zip_put32(p, z64 ? 0xffffffffu : (uint32_t)cd_size);
    p = zip_put32(p, z64 ? 0xffffffffu : (uint32_t)cd_offset);
    zip_put16(p, 0);
    zip_write_bytes(w, h, sizeof h);
}

/* Write @p len bytes at @p offset of the output. */
void zip_write_at(zip_writer *w, uint64_t offset, const void *data, uint64_t len)
{
    if (!w->error && fseeko(w->fp, (off_t)offset, SEEK_SET) != 0)
        w->error = errno ? errno : EIO;
    w->pos = offset;
    zip_write_bytes(w, data, len);
}

/* ---- reader: bytes ---------------------------------------------------------- */

wt_status zip_corrupt(const zip_reader *r, const char *what)
{
    return wt_error_set(WT_ERR_FORMAT, "%s: zip_corrupt coefficient file (%s)", r->name, what);
}

/* @p len bytes at @p offset, all inside the file. */
static wt_status read_at(const zip_reader *r, uint64_t offset, void *buf, uint64_t len)
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
static wt_status read_stream(zip_reader *r, int fd, uint64_t max_pixels)
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

wt_status zip_reader_open(zip_reader *r, const char *path, uint64_t max_pixels)
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

void zip_reader_close(zip_reader *r)
{
    if (r->fd >= 0)
        close(r->fd);
    free(r->mem);
    r->fd = -1;
    r->mem = NULL;
}

/* ---- reader: zip directory ------------------------------------------------ */

/* The end-of-central-directory record: the last one within the comment range. */
static wt_status find_end_record(const zip_reader *r, uint8_t *tail, uint64_t *tail_start,
                                 uint64_t *end_pos)
{
    uint64_t tail_len = r->size < ZIP_END_LEN + 0xffff ? r->size : ZIP_END_LEN + 0xffff;
    *tail_start = r->size - tail_len;
    wt_status st = read_at(r, *tail_start, tail, tail_len);
    if (st != WT_OK)
        return st;
    for (uint64_t i = tail_len >= ZIP_END_LEN ? tail_len - ZIP_END_LEN + 1 : 0; i-- > 0;)
        if (zip_get32(tail + i) == ZIP_END_SIG && i + ZIP_END_LEN + zip_get16(tail + i + 20) <= tail_len) {
            *end_pos = *tail_start + i;
            return WT_OK;
        }
    return wt_error_set(WT_ERR_FORMAT, "%s: not a coefficient file (no zip directory)", r->name);
}

static wt_status read_zip64_end(const zip_reader *r, uint64_t end_pos, zip_directory *d)
{
    uint8_t loc[ZIP64_LOCATOR_LEN], rec[ZIP64_END_LEN];
    if (end_pos < ZIP64_LOCATOR_LEN)
        return zip_corrupt(r, "ZIP64 locator missing");
    wt_status st = read_at(r, end_pos - ZIP64_LOCATOR_LEN, loc, sizeof loc);
    if (st != WT_OK)
        return st;
    if (zip_get32(loc) != ZIP64_LOCATOR_SIG)
        return zip_corrupt(r, "ZIP64 locator missing");
    uint64_t rec_pos = zip_get64(loc + 8);
    uint64_t locator_pos = end_pos - ZIP64_LOCATOR_LEN;
    if (rec_pos > locator_pos || locator_pos - rec_pos < ZIP64_END_LEN)
        return zip_corrupt(r, "ZIP64 record out of place");
    if ((st = read_at(r, rec_pos, rec, sizeof rec)) != WT_OK)
        return st;
    if (zip_get32(rec) != ZIP64_END_SIG || zip_get32(rec + 16) != 0 || zip_get32(rec + 20) != 0)
        return zip_corrupt(r, "bad ZIP64 record");
    d->entries = zip_get64(rec + 32);
    d->cd_size = zip_get64(rec + 40);
    d->cd_offset = zip_get64(rec + 48);
    if (zip_get64(rec + 24) != d->entries)
        return zip_corrupt(r, "multi-disk archive");
    if (d->cd_offset > rec_pos || d->cd_size > rec_pos - d->cd_offset)
        return zip_corrupt(r, "central directory out of bounds");
    return WT_OK;
}

static wt_status read_end(const zip_reader *r, zip_directory *d)
{
    uint8_t *tail = malloc(ZIP_END_LEN + 0xffff);
    if (!tail)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", r->name);
    uint64_t tail_start = 0, end_pos = 0;
    wt_status st = find_end_record(r, tail, &tail_start, &end_pos);
    if (st == WT_OK) {
        const uint8_t *e = tail + (end_pos - tail_start);
        d->entries = zip_get16(e + 10);
        d->cd_size = zip_get32(e + 12);
        d->cd_offset = zip_get32(e + 16);
        if (zip_get16(e + 4) != 0 || zip_get16(e + 6) != 0 || zip_get16(e + 8) != d->entries)
            st = zip_corrupt(r, "multi-disk archive");
        else if (d->entries == 0xffff || d->cd_size == 0xffffffffu || d->cd_offset == 0xffffffffu)
            st = read_zip64_end(r, end_pos, d);
        else if (d->cd_offset > end_pos || d->cd_size > end_pos - d->cd_offset)
            st = zip_corrupt(r, "central directory out of bounds");
    }
    free(tail);
    if (st == WT_OK && (d->entries > READER_MEMBER_CAP || d->cd_size > CENTRAL_DIR_CAP))
        st = wt_error_set(WT_ERR_LIMIT, "%s: zip directory too large (%llu members)", r->name,
                          (unsigned long long)d->entries);
    return st;
}

/* ZIP64 extra field: the 64-bit values of the fields saturated at 0xffffffff. */
static wt_status apply_zip64_extra(const zip_reader *r, const uint8_t *extra, unsigned len,
                                   uint64_t *usize, uint64_t *csize, uint64_t *offset)
{
    uint64_t *fields[3] = {usize, csize, offset};
    for (unsigned pos = 0; pos + 4 <= len;) {
        unsigned id = zip_get16(extra + pos), n = zip_get16(extra + pos + 2);
        if (n > len - pos - 4)
            return zip_corrupt(r, "bad extra field");
        if (id == 1) {
            const uint8_t *v = extra + pos + 4;
            for (int i = 0; i < 3; i++) {
                if (*fields[i] != 0xffffffffu)
                    continue;
                if (v + 8 > extra + pos + 4 + n)
                    return zip_corrupt(r, "short ZIP64 field");
                *fields[i] = zip_get64(v);
                v += 8;
            }
        }
        pos += 4 + n;
    }
    return WT_OK;
}

/* Where a member's data start: after its local header (which must name the
 * same member), checked to lie before the central directory. */
static wt_status locate_data(const zip_reader *r, const zip_directory *d, uint64_t local,
                             const uint8_t *name, unsigned name_len, uint64_t size,
                             uint64_t *data_offset)
{
    uint8_t h[ZIP_LOCAL_LEN + ZIP_NAME_CAP + 4];
    if (name_len > sizeof h - ZIP_LOCAL_LEN)
        return zip_corrupt(r, "member name too long");
    if (local > d->cd_offset || d->cd_offset - local < ZIP_LOCAL_LEN + (uint64_t)name_len)
        return zip_corrupt(r, "member offset out of bounds");
    wt_status st = read_at(r, local, h, ZIP_LOCAL_LEN + (uint64_t)name_len);
    if (st != WT_OK)
        return st;
    if (zip_get32(h) != ZIP_LOCAL_SIG || zip_get16(h + 26) != name_len ||
        memcmp(h + ZIP_LOCAL_LEN, name, name_len) != 0)
        return zip_corrupt(r, "bad local header");
    uint64_t start = local + ZIP_LOCAL_LEN + zip_get16(h + 26) + zip_get16(h + 28);
    if (start > d->cd_offset || size > d->cd_offset - start)
        return zip_corrupt(r, "member data out of bounds");
    *data_offset = start;
    return WT_OK;
}

/* "cA.npy" -> "cA"; 0 for names that are not ours (too long, no .npy). */
static int short_name(const uint8_t *name, unsigned len, char *out)
{
    if (len < 5 || len - 4 >= ZIP_NAME_CAP || memcmp(name + len - 4, ".npy", 4) != 0)
        return 0;
    memcpy(out, name, len - 4);
    out[len - 4] = '\0';
    return strlen(out) == len - 4; /* no NUL inside */
}

static wt_status add_member(const zip_reader *r, zip_directory *d, const zip_entry *m)
{
    for (int i = 0; i < d->count; i++)
        if (strcmp(d->members[i].name, m->name) == 0)
            return wt_error_set(WT_ERR_FORMAT, "%s: member %s appears twice", r->name, m->name);
    if (d->count > ZIP_MAX_MEMBERS)
        return wt_error_set(WT_ERR_FORMAT, "%s: too many members for a coefficient file",
                            r->name);
    d->members[d->count++] = *m;
    d->content += m->size;
    return WT_OK;
}

static wt_status parse_central_entry(const zip_reader *r, zip_directory *d, const uint8_t *cd,
                                     uint64_t *pos)
{
    const uint8_t *e = cd + *pos;
    if (d->cd_size - *pos < ZIP_CENTRAL_LEN || zip_get32(e) != ZIP_CENTRAL_SIG)
        return zip_corrupt(r, "bad central directory");
    unsigned name_len = zip_get16(e + 28), extra_len = zip_get16(e + 30), comment_len = zip_get16(e + 32);
    uint64_t entry_len = (uint64_t)ZIP_CENTRAL_LEN + name_len + extra_len + comment_len;
    if (entry_len > d->cd_size - *pos)
        return zip_corrupt(r, "bad central directory");
    *pos += entry_len;
    zip_entry m = {.crc = zip_get32(e + 16)};
    if (!short_name(e + ZIP_CENTRAL_LEN, name_len, m.name))
        return WT_OK; /* not an array of ours: ignored */
    if (zip_get16(e + 8) & 1)
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: member %s is encrypted", r->name, m.name);
    m.method = zip_get16(e + 10);
    if (m.method != 0 && m.method != 8)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: member %s uses zip method %u; only stored (np.savez) and "
                            "deflated (np.savez_compressed) members are read",
                            r->name, m.name, m.method);
    uint64_t csize = zip_get32(e + 20), usize = zip_get32(e + 24), local = zip_get32(e + 42);
    wt_status st = apply_zip64_extra(r, e + ZIP_CENTRAL_LEN + name_len, extra_len, &usize,
                                     &csize, &local);
    if (st == WT_OK && m.method == 0 && csize != usize)
        st = zip_corrupt(r, "stored member with two sizes");
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

wt_status zip_read_directory(const zip_reader *r, zip_directory *d)
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

const zip_entry *zip_find(const zip_directory *d, const char *name)
{
    for (int i = 0; i < d->count; i++)
        if (strcmp(d->members[i].name, name) == 0)
            return &d->members[i];
    return NULL;
}

/* ---- reader: member bytes ------------------------------------------------- */

static wt_status deflate_error(const zip_reader *r, const zip_entry *m, const char *what)
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
static wt_status inflate_member(const zip_reader *r, const zip_entry *m, uint64_t skip,
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
wt_status zip_entry_read(const zip_reader *r, const zip_entry *m, uint64_t skip, void *buf,
                         uint64_t len)
{
    if (skip > m->size || len > m->size - skip)
        return deflate_error(r, m, "shorter than its array");
    if (m->method == 0)
        return read_at(r, m->data_offset + skip, buf, len);
    return inflate_member(r, m, skip, buf, len);
}
