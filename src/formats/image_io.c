/* Image files: read whole files (or stdin), pick the decoder by the first bytes
 * and the encoder by extension through the format registry (src/format.c), and
 * write through an atomic wt_outfile. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image_codec.h"
#include "image_meta.h"
#include "input.h"
#include "jpeg_gpu.h" /* wt_gpu_jpeg_note_clear */
#include "wavetool_hooks.h" /* wt_error_prefix */

/* Largest input file read into memory. */
#define MAX_INPUT_BYTES ((uint64_t)4 << 30)
/* Bytes per pixel of the largest samples (RGBA, 16-bit). */
#define MAX_PIXEL_BYTES 8
#define DEFAULT_MAX_SCANS 1000

static wt_status not_an_image(const char *name);
static wt_status named_failure(wt_status st, const char *name);

/* The first bytes must be those of a format that decodes images. */
static wt_status check_image_start(const uint8_t *data, size_t size, const char *name)
{
    const wt_codec *c = wt_codec_sniff(data, size);
    if (!c)
        return not_an_image(name);
    if (!c->decode)
        return wt_error_set(WT_ERR_FORMAT, "%s: %s holds wavelet coefficients, not an image",
                            name, c->info.name);
    return WT_OK;
}

/* Read an image file or stream whole: its format known from its first bytes,
 * its size bounded by what --max-pixels allows. */
static wt_status read_image_input(int fd, const char *name, uint64_t hint, uint64_t max_pixels,
                                  uint8_t **data, size_t *size)
{
    char cap_text[128];
    uint64_t cap = wt_input_cap_text(max_pixels, MAX_PIXEL_BYTES, MAX_INPUT_BYTES, "4 GiB",
                                     cap_text, sizeof cap_text);
    return wt_input_read(fd, name, hint, cap, cap_text, check_image_start, data, size);
}

/* The codec that decodes a regular file from the file itself (pread), not
 * from a copy in memory (a huge TIFF takes its decoded size, not twice that):
 * NULL when the file is read whole. */
static const wt_codec *file_loader(int fd, const struct stat *st)
{
    uint8_t head[WT_SNIFF_BYTES];
    if (!S_ISREG(st->st_mode))
        return NULL;
    ssize_t n = pread(fd, head, sizeof head, 0);
    const wt_codec *c = n > 0 ? wt_codec_sniff(head, (size_t)n) : NULL;
    return c && c->load_file && (uint64_t)st->st_size >= c->magic_size ? c : NULL;
}

static wt_status load_file(const wt_codec *c, int fd, const char *name, uint64_t size,
                           const wt_load_options *opt, wt_image *img)
{
    wt_load_options o = opt ? *opt : (wt_load_options){0};
    if (!o.max_pixels)
        o.max_pixels = WT_DEFAULT_MAX_PIXELS;
    return named_failure(c->load_file(fd, size, name, &o, img), name);
}

wt_status wt_image_load(const char *path, const wt_load_options *opt, wt_image *img)
{
    uint8_t *data = NULL;
    size_t size = 0;
    uint64_t max_pixels = opt ? opt->max_pixels : 0;
    int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "(stdin)" : path;
    memset(img, 0, sizeof *img);
    wt_warning_clear();
    wt_gpu_jpeg_note_clear();
    int fd = STDIN_FILENO;
    struct stat st;
    wt_status status = is_stdin ? WT_OK : wt_input_open(path, &fd, &st);
    const wt_codec *loader = status == WT_OK && !is_stdin ? file_loader(fd, &st) : NULL;
    if (loader) {
        status = load_file(loader, fd, name, (uint64_t)st.st_size, opt, img);
        close(fd);
        return status;
    }
    if (status == WT_OK) {
        uint64_t hint = !is_stdin && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
        status = read_image_input(fd, name, hint, max_pixels, &data, &size);
        if (!is_stdin)
            close(fd);
    }
    if (status == WT_OK)
        status = wt_image_load_memory(data, size, name, opt, img);
    free(data);
    return status;
}

/* "not a PNG or JPEG image": the names of the formats that decode images */
static wt_status not_an_image(const char *name)
{
    char names[256];
    size_t len = 0, count = 0, n = 0;
    names[0] = '\0';
    for (int f = 1; f <= wt_format_count(); f++)
        count += wt_codec_of((wt_file_format)f)->decode != NULL;
    for (int f = 1; f <= wt_format_count(); f++) {
        const wt_codec *c = wt_codec_of((wt_file_format)f);
        if (!c->decode)
            continue;
        const char *sep = n == 0 ? "" : n + 1 == count ? " or " : ", ";
        int w = snprintf(names + len, sizeof names - len, "%s%s", sep, c->info.name);
        len += w > 0 && (size_t)w < sizeof names - len ? (size_t)w : 0;
        n++;
    }
    return wt_error_set(WT_ERR_FORMAT, "%s: not a %s image", name, names);
}

/* A decoder's failure that does not name the file yet (an allocation's
 * "out of memory for a 3072x2048 image"): the file's name in front. */
static wt_status named_failure(wt_status st, const char *name)
{
    char shown[1024];
    wt_escape_controls(shown, sizeof shown, name);
    size_t len = strlen(shown);
    const char *msg = wt_error_message();
    if (st == WT_OK || (strncmp(msg, shown, len) == 0 && msg[len] == ':'))
        return st;
    return wt_error_prefix(st, name);
}

wt_status wt_image_load_memory(const void *data, size_t size, const char *name,
                               const wt_load_options *opt, wt_image *img)
{
    wt_load_options o = opt ? *opt : (wt_load_options){0};
    if (!o.max_pixels)
        o.max_pixels = WT_DEFAULT_MAX_PIXELS;
    if (o.max_scans <= 0)
        o.max_scans = DEFAULT_MAX_SCANS;
    memset(img, 0, sizeof *img);
    wt_warning_clear();
    if (size == 0)
        return wt_error_set(WT_ERR_FORMAT, "%s: empty file", name);
    /* the extension may lie: the bytes decide */
    const wt_codec *c = wt_codec_sniff(data, size);
    if (c && size < c->magic_size)
        return wt_error_set(WT_ERR_FORMAT, "%s: truncated %s data", name, c->info.name);
    if (c && c->decode) {
        wt_status st = named_failure(c->decode(data, size, name, &o, img), name);
        if (st == WT_OK)
            wt_meta_read(c, data, size, img);
        return st;
    }
    if (c)
        return wt_error_set(WT_ERR_FORMAT, "%s: %s holds wavelet coefficients, not an image",
                            name, c->info.name);
    return not_an_image(name);
}

static wt_status encode(wt_file_format format, FILE *fp, const char *name, const wt_image *img,
                        const wt_save_options *opt)
{
    const wt_codec *c = wt_codec_of(format);
    char exts[256];
    if (c && c->encode)
        return c->encode(fp, name, img, opt);
    if (c)
        return wt_error_set(WT_ERR_INVALID, "%s: .%s holds coefficients, not images", name,
                            c->info.extensions[0]);
    return wt_error_set(WT_ERR_INVALID, "%s: unknown output format (use %s)", name,
                        wt_format_list(exts, sizeof exts, WT_HOLDS_IMAGE | WT_HOLDS_COEFFS, ".",
                                       ", ", " or "));
}

/* 1 when @p format writes images */
static int writes_images(wt_file_format format)
{
    const wt_codec *c = wt_codec_of(format);
    return c && c->encode;
}

wt_status wt_image_check_holds(wt_file_format format, const char *name, wt_sample_type type,
                               int channels)
{
    const wt_format_info *info = wt_format_describe(format);
    char t[16], floats[128];
    if (!info || !(info->holds & WT_HOLDS_IMAGE))
        return WT_OK; /* the encoder's own message */
    if (!info->floats && !wt_sample_type_is_exact(type))
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: %s holds 8/16-bit unsigned samples, not %s (--depth 8 or 16 "
                            "converts; %s hold it)",
                            name, info->name, wt_sample_type_name(type, t, sizeof t),
                            wt_format_list(floats, sizeof floats, WT_HOLDS_FLOATS | WT_LIST_USUAL,
                                           ".", ", ", " and "));
    if (channels > 4 && channels > info->max_channels) /* JPEG's 4th (alpha) is dropped */
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: %s holds 1 to %d channels, not %d", name,
                            info->name, info->max_channels, channels);
    return WT_OK;
}

/* What wt_image_save checks before any file exists. */
static wt_status check_savable(wt_file_format format, const char *name, const wt_image *img)
{
    if (!writes_images(format))
        return encode(format, NULL, name, img, NULL); /* the error: no encoder */
    return wt_image_check_holds(format, name, wt_image_stored(img), img->channels);
}

/* @p img encoded into @p fp in its stored type: float32 held, uint8/16
 * written go through every codec's integer path. */
static wt_status encode_stored(FILE *fp, const char *name, wt_file_format format,
                               const wt_image *img, const wt_save_options *opt)
{
    wt_sample_type type = wt_image_stored(img);
    if (img->bit_depth != WT_DEPTH_F32 || !wt_sample_type_is_exact(type))
        return encode(format, fp, name, img, opt);
    wt_image exact = {0};
    wt_status st = wt_image_convert(img, type, &exact);
    if (st == WT_OK)
        st = encode(format, fp, name, &exact, opt);
    wt_image_free(&exact);
    return st;
}

wt_status wt_image_save(const char *path, const wt_image *img, const wt_save_options *opt,
                        wt_file_format fallback)
{
    int is_stdout = strcmp(path, "-") == 0;
    const char *name = is_stdout ? "(stdout)" : path;
    wt_file_format format = is_stdout ? fallback : wt_format_from_path(path);
    wt_gpu_jpeg_note_clear();
    wt_status st = check_savable(format, name, img);
    wt_outfile out;
    if (st == WT_OK)
        st = wt_outfile_open(&out, path);
    if (st != WT_OK)
        return st;
    st = encode_stored(out.fp, name, format, img, opt);
    if (st == WT_OK)
        return wt_outfile_commit(&out);
    wt_outfile_abort(&out);
    return st;
}

wt_status wt_image_write(wt_outfile *out, const wt_image *img, const wt_save_options *opt,
                         wt_file_format format)
{
    wt_status st = check_savable(format, out->final_path, img);
    return st == WT_OK ? encode_stored(out->fp, out->final_path, format, img, opt) : st;
}
