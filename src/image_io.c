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

/* Largest input file read into memory. */
#define MAX_INPUT_BYTES ((size_t)4 << 30)
#define DEFAULT_MAX_SCANS 1000

/* Read @p fd to its end into a malloc'ed buffer; @p hint is the expected size. */
static wt_status read_all(int fd, const char *name, size_t hint, uint8_t **data, size_t *size)
{
    size_t cap = hint ? hint + 1 : (size_t)1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        if (len == cap) {
            if (len > MAX_INPUT_BYTES) {
                free(buf);
                return wt_error_set(WT_ERR_LIMIT, "%s: file is larger than 4 GiB", name);
            }
            size_t grown_cap = cap > MAX_INPUT_BYTES / 2 ? MAX_INPUT_BYTES + 1 : cap * 2;
            uint8_t *grown = realloc(buf, grown_cap);
            if (!grown)
                break;
            buf = grown;
            cap = grown_cap;
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int err = errno;
            free(buf);
            return wt_error_set(WT_ERR_IO, "%s: %s", name, strerror(err));
        }
        if (n == 0) {
            *data = buf;
            *size = len;
            return WT_OK;
        }
        len += (size_t)n;
    }
    free(buf);
    return wt_error_set(WT_ERR_NOMEM, "%s: out of memory reading the file", name);
}

static wt_status read_path(const char *path, uint8_t **data, size_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return wt_error_set(WT_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    wt_status status = WT_OK;
    if (fstat(fd, &st) != 0)
        status = wt_error_set(WT_ERR_IO, "%s: %s", path, strerror(errno));
    else if (S_ISDIR(st.st_mode))
        status = wt_error_set(WT_ERR_IO, "%s: is a directory", path);
    else if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > MAX_INPUT_BYTES)
        status = wt_error_set(WT_ERR_LIMIT, "%s: file is larger than 4 GiB", path);
    if (status == WT_OK)
        status = read_all(fd, path, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, data, size);
    close(fd);
    return status;
}

wt_status wt_image_load(const char *path, const wt_load_options *opt, wt_image *img)
{
    uint8_t *data = NULL;
    size_t size = 0;
    int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "(stdin)" : path;
    memset(img, 0, sizeof *img);
    wt_warning_clear();
    wt_status st = is_stdin ? read_all(STDIN_FILENO, name, 0, &data, &size)
                            : read_path(path, &data, &size);
    if (st == WT_OK)
        st = wt_image_load_memory(data, size, name, opt, img);
    free(data);
    return st;
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
    char shown[1024], reason[1024];
    wt_escape_controls(shown, sizeof shown, name);
    size_t len = strlen(shown);
    const char *msg = wt_error_message();
    if (st == WT_OK || (strncmp(msg, shown, len) == 0 && msg[len] == ':'))
        return st;
    snprintf(reason, sizeof reason, "%s", msg);
    return wt_error_set(st, "%s: %s", name, reason);
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
    if (c && c->decode)
        return named_failure(c->decode(data, size, name, &o, img), name);
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

wt_status wt_image_save(const char *path, const wt_image *img, const wt_save_options *opt,
                        wt_file_format fallback)
{
    int is_stdout = strcmp(path, "-") == 0;
    const char *name = is_stdout ? "(stdout)" : path;
    wt_file_format format = is_stdout ? fallback : wt_format_from_path(path);
    if (!writes_images(format))
        return encode(format, NULL, name, img, opt); /* the error, before any file exists */
    wt_outfile out;
    wt_status st = wt_outfile_open(&out, path);
    if (st != WT_OK)
        return st;
    st = encode(format, out.fp, name, img, opt);
    if (st == WT_OK)
        return wt_outfile_commit(&out);
    wt_outfile_abort(&out);
    return st;
}
