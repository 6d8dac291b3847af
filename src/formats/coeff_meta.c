/* The coefficient file's meta: the image and transform a file describes, as
 * UTF-8 JSON in the member "meta" (a 1-D uint8 array), written through the
 * JSON writer and read back by a small parser of exactly what wavetool
 * writes (unknown keys with scalar values are skipped). */
#include "coeff_meta.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "image_codec.h"
#include "image_meta.h"
#include "json.h"
#include "npz_member.h"
#include "transform.h"

#define META_CAP (64 * 1024) /* JSON meta member */

typedef wt_text_cursor text_cursor; /* src/npy_header.c's */

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

/* "samples": the type a float32-held image came in. */
static void samples_key(wt_json *j, const wt_npz_meta *m)
{
    char type[16];
    wt_sample_type t = m->stored.bits ? m->stored : (wt_sample_type){WT_SAMPLE_FLOAT, 32};
    wt_json_key_string(j, "samples", wt_sample_type_name(t, type, sizeof type));
}

/* The keys of undecimated transforms. */
static void undecimated_keys(wt_json *j, const wt_npz_meta *m)
{
    wt_json_key_string(j, "transform", wt_transform_name(m->transform));
    wt_json_key_int(j, "start_level", m->start_level);
    wt_json_key_int(j, "norm", m->norm);
    wt_json_key_int(j, "all_approx", m->all_approx);
    wt_json_key_string(j, "border", wt_border_name(m->border));
}

/* A volume's keys: its z size and its axes ("0,1,2"). */
static void volume_keys(wt_json *j, const wt_npz_meta *m)
{
    char axes[8];
    size_t n = 0;
    for (const char *a = m->axes; *a && n + 2 < sizeof axes; a++)
        n += (size_t)snprintf(axes + n, sizeof axes - n, n ? ",%c" : "%c", *a);
    axes[n] = '\0';
    wt_json_key_uint(j, "depth", m->depth);
    wt_json_key_string(j, "axes", axes);
}

static const char *const resolution_units[] = {"", "none", "inch", "cm"}; /* wt_res_unit */

/* The input's resolution: its unit ("none": an aspect ratio) and values. */
static void resolution_keys(wt_json *j, const wt_image_meta *image)
{
    if (!image || image->unit == WT_RES_NONE)
        return;
    wt_json_key_string(j, "resolution_unit", resolution_units[image->unit]);
    wt_json_key_number(j, "x_resolution", "%.15g", image->xres);
    wt_json_key_number(j, "y_resolution", "%.15g", image->yres);
}

char *coeff_meta_json(const wt_npz_meta *m)
{
    char wavelet[sizeof m->wavelet + 1];
    snprintf(wavelet, sizeof wavelet, "%.*s", (int)sizeof m->wavelet, m->wavelet);
    wt_json j;
    wt_json_init(&j, 1);
    wt_json_begin_object(&j);
    wt_json_key_string(&j, "wavelet", wavelet);
    wt_json_key_string(&j, "mode", wt_mode_name(m->mode));
    wt_json_key_string(&j, "method", wt_method_name(m->method));
    wt_json_key_int(&j, "levels", m->levels);
    wt_json_key_uint(&j, "width", m->width);
    wt_json_key_uint(&j, "height", m->height);
    wt_json_key_int(&j, "channels", m->channels);
    wt_json_key_int(&j, "bit_depth", m->bit_depth);
    wt_json_key_string(&j, "color", color_name(m->color));
    wt_json_key_string(&j, "wavetool", WT_VERSION_STRING);
    if (wt_transform_class_of(m->transform)->layout == WT_LAYOUT_STACK)
        undecimated_keys(&j, m);
    if (wt_transform_class_of(m->transform)->layout == WT_LAYOUT_PACKET)
        wt_json_key_string(&j, "transform", wt_transform_name(m->transform));
    if (m->bit_depth == WT_DEPTH_F32)
        samples_key(&j, m);
    if (m->pages)
        wt_json_key_uint(&j, "pages", (unsigned long long)m->pages);
    if (m->depth)
        volume_keys(&j, m);
    resolution_keys(&j, m->image);
    wt_json_end_object(&j);
    return wt_json_finish(&j);
}

void coeff_meta_write(zip_writer *w, const char *json)
{
    uint64_t len = strlen(json);
    npz_write_array(w, "meta", 'u', 1, &len, 1, json);
}

void coeff_meta_write_image(zip_writer *w, const wt_image_meta *image)
{
    uint64_t len;
    if (image && image->icc) {
        len = image->icc_size;
        npz_write_array(w, "icc_profile", 'u', 1, &len, 1, image->icc);
    }
    if (image && image->exif) {
        len = image->exif_size;
        npz_write_array(w, "exif", 'u', 1, &len, 1, image->exif);
    }
    if (image && image->xmp) {
        len = image->xmp_size;
        npz_write_array(w, "xmp", 'u', 1, &len, 1, image->xmp);
    }
}

/* ---- reading ------------------------------------------------------------------ */

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

/* A JSON number (finite). */
static int parse_number(text_cursor *c, double *v)
{
    char text[40];
    size_t n = 0;
    wt_cursor_skip_space(c);
    while (c->p + n < c->end && n + 1 < sizeof text && c->p[n] &&
           strchr("0123456789+-.eE", c->p[n]))
        text[n] = c->p[n], n++;
    text[n] = '\0';
    char *end = NULL;
    *v = n ? strtod(text, &end) : 0;
    if (!n || end != text + n || !isfinite(*v))
        return 0;
    c->p += n;
    return 1;
}

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
    uint64_t depth; /* optional: a volume's z size and axes */
    char axes[32];
    char resolution_unit[16]; /* optional: the input's resolution */
    double x_resolution, y_resolution;
} meta_fields;

/* The input's resolution keys; 1 when @p key is one. */
static int resolution_pair(text_cursor *c, const char *key, meta_fields *f, int *ok)
{
    if (strcmp(key, "resolution_unit") == 0) {
        *ok = json_string(c, f->resolution_unit, sizeof f->resolution_unit);
        return 1;
    }
    double *v = strcmp(key, "x_resolution") == 0   ? &f->x_resolution
                : strcmp(key, "y_resolution") == 0 ? &f->y_resolution
                                                   : NULL;
    if (v)
        *ok = parse_number(c, v);
    return v != NULL;
}

/* The optional keys of undecimated transforms; 1 when @p key is one. */
static int undecimated_pair(text_cursor *c, const char *key, meta_fields *f, int *ok)
{
    if (strcmp(key, "samples") == 0) {
        *ok = json_string(c, f->samples, sizeof f->samples);
        return 1;
    }
    if (strcmp(key, "axes") == 0) {
        *ok = json_string(c, f->axes, sizeof f->axes);
        return 1;
    }
    if (strcmp(key, "transform") == 0 || strcmp(key, "border") == 0) {
        *ok = json_string(c, key[0] == 't' ? f->transform : f->border, sizeof f->transform);
        return 1;
    }
    uint64_t *v = strcmp(key, "pages") == 0         ? &f->pages
                  : strcmp(key, "depth") == 0       ? &f->depth
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
    if (!json_string(c, key, sizeof key) || !wt_cursor_accept_char(c, ':'))
        return 0;
    int ok = 0;
    if (undecimated_pair(c, key, f, &ok) || resolution_pair(c, key, f, &ok))
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
    double real;
    return json_string(c, ignored, sizeof ignored) || parse_number(c, &real) ||
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

static wt_status meta_value_error(const zip_reader *r, const char *what, const char *value)
{
    return wt_error_set(WT_ERR_FORMAT, "%s: unknown %s '%s' in the coefficient file", r->name,
                        what, value);
}

/* "samples": the stored type of a float32-held image ("int16", "float64"...). */
static wt_status stored_from_fields(const zip_reader *r, const meta_fields *f, wt_npz_meta *meta)
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

/* "depth" and "axes" ("0,1,2": distinct axes of a volume, in order). */
static wt_status volume_from_fields(const meta_fields *f, wt_npz_meta *meta)
{
    int axes[3], n = 0;
    if (!f->depth && !f->axes[0])
        return WT_OK;
    if (!f->depth || f->depth > UINT32_MAX || f->pages ||
        wt_volume_parse_axes(f->axes, axes, &n) != WT_OK)
        return WT_ERR_FORMAT;
    wt_error_clear();
    meta->depth = (uint32_t)f->depth;
    for (int k = 0; k < n; k++)
        meta->axes[k] = (char)('0' + axes[k]);
    meta->axes[n] = '\0';
    return WT_OK;
}

/* Meta fields into @p meta, each checked. */
static wt_status meta_from_fields(const zip_reader *r, const meta_fields *f, wt_npz_meta *meta)
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
    if (volume_from_fields(f, meta) != WT_OK)
        return wt_error_set(WT_ERR_FORMAT,
                            "%s: impossible volume description (depth %llu, axes '%s')", r->name,
                            (unsigned long long)f->depth, f->axes);
    meta->start_level = (int)f->start_level;
    meta->norm = (int)f->norm;
    meta->all_approx = (int)f->all_approx;
    if ((wt_transform_class_of(meta->transform)->params & WT_TPARAM_WAVELET) &&
        !wt_wavelet_find(f->wavelet))
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

/* The member "meta" of @p d parsed into @p f. */
static wt_status read_fields(const zip_reader *r, const zip_directory *d, meta_fields *f)
{
    const zip_entry *m = zip_find(d, "meta");
    if (!m)
        return wt_error_set(WT_ERR_FORMAT,
                            "%s: not a wavetool coefficient file (no meta member)", r->name);
    uint8_t *buf = malloc(META_CAP);
    if (!buf)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", r->name);
    npy_array a;
    wt_status st = npz_read_small(r, m, buf, META_CAP);
    if (st == WT_OK)
        st = npz_read_header(r, m, &a, buf, NPZ_HEADER_CAP);
    if (st == WT_OK && (a.kind != 'u' || a.itemsize != 1 || a.ndim != 1))
        st = wt_error_set(WT_ERR_FORMAT, "%s: meta member is not a uint8 text array", r->name);
    if (st == WT_OK)
        st = npz_check_data_len(r, m, &a);
    if (st == WT_OK &&
        !parse_meta_json((const char *)buf + a.header_len, (size_t)a.data_len, f))
        st = wt_error_set(WT_ERR_FORMAT, "%s: unreadable meta member (expected wavetool's JSON)",
                          r->name);
    free(buf);
    return st;
}

wt_status coeff_meta_read(const zip_reader *r, const zip_directory *d, wt_npz_meta *meta)
{
    meta_fields f;
    wt_status st = read_fields(r, d, &f);
    return st == WT_OK ? meta_from_fields(r, &f, meta) : st;
}

/* ---- the input's metadata ------------------------------------------------------ */

/* The bytes of the 1-D uint8 member @p name (an ICC profile, Exif) into
 * *@p data (malloc'ed); NULL when the file has no such member. */
static wt_status read_bytes_member(const zip_reader *r, const zip_directory *d,
                                   const char *name, uint8_t **data, size_t *size)
{
    const zip_entry *m = zip_find(d, name);
    *data = NULL;
    *size = 0;
    if (!m)
        return WT_OK;
    uint8_t header[NPZ_HEADER_CAP];
    uint8_t *buf = m->size <= META_MAX_BYTES + NPZ_HEADER_CAP ? malloc(m->size ? m->size : 1)
                                                              : NULL;
    npy_array a;
    wt_status st = buf ? npz_read_small(r, m, buf, m->size)
                       : wt_error_set(WT_ERR_LIMIT, "%s: member %s is too large", r->name, name);
    if (st == WT_OK)
        st = npz_read_header(r, m, &a, header, sizeof header);
    if (st == WT_OK && (a.kind != 'u' || a.itemsize != 1 || a.ndim != 1))
        st = wt_error_set(WT_ERR_FORMAT, "%s: member %s is not a 1-D uint8 array", r->name,
                          name);
    if (st == WT_OK)
        st = npz_check_data_len(r, m, &a);
    if (st == WT_OK) {
        *data = wt_meta_copy(buf + a.header_len, (size_t)a.data_len);
        *size = *data ? (size_t)a.data_len : 0;
    }
    free(buf);
    return st;
}

/* The resolution keys of @p f into @p image (unknown units are left out). */
static void resolution_from_fields(const meta_fields *f, wt_image_meta *image)
{
    for (int u = WT_RES_ASPECT; u <= WT_RES_CM; u++)
        if (strcmp(f->resolution_unit, resolution_units[u]) == 0 && f->x_resolution > 0 &&
            f->y_resolution > 0) {
            image->unit = (wt_res_unit)u;
            image->xres = f->x_resolution;
            image->yres = f->y_resolution;
        }
}

wt_status coeff_meta_read_image(const zip_reader *r, const zip_directory *d,
                                wt_image_meta **out)
{
    *out = NULL;
    meta_fields f;
    wt_image_meta *image = calloc(1, sizeof *image);
    wt_status st = image ? read_fields(r, d, &f)
                         : wt_error_set(WT_ERR_NOMEM, "%s: out of memory", r->name);
    if (st == WT_OK) {
        image->refs = 1;
        resolution_from_fields(&f, image);
        st = read_bytes_member(r, d, "icc_profile", &image->icc, &image->icc_size);
    }
    if (st == WT_OK)
        st = read_bytes_member(r, d, "exif", &image->exif, &image->exif_size);
    if (st == WT_OK)
        st = read_bytes_member(r, d, "xmp", &image->xmp, &image->xmp_size);
    if (st == WT_OK && (image->unit != WT_RES_NONE || image->icc || image->exif || image->xmp))
        *out = image;
    else
        wt_image_meta_release(image);
    return st;
}

wt_status coeff_file_open(coeff_file *f, const char *path, uint64_t max_pixels,
                          wt_npz_meta *meta)
{
    memset(f, 0, sizeof *f);
    f->r.fd = -1;
    f->d = malloc(sizeof *f->d);
    if (!f->d)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", path);
    wt_status st = zip_reader_open(&f->r, path, max_pixels);
    if (st == WT_OK)
        st = zip_read_directory(&f->r, f->d);
    if (st == WT_OK)
        f->r.content = f->d->content;
    if (st == WT_OK && meta)
        st = coeff_meta_read(&f->r, f->d, meta);
    return st;
}

void coeff_file_close(coeff_file *f)
{
    zip_reader_close(&f->r); /* also after a failed open: it may hold the file */
    free(f->d);
    f->d = NULL;
}

int coeff_meta_peek(const char *path, wt_npz_meta *meta)
{
    struct stat sb;
    if (strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    coeff_file f;
    int read = coeff_file_open(&f, path, 0, meta) == WT_OK;
    coeff_file_close(&f);
    wt_error_clear();
    return read;
}
