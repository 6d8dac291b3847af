/* Image files: read whole files (or stdin), pick the decoder by magic bytes,
 * pick the encoder by extension and write through an atomic wt_outfile. */
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

static const uint8_t png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
static const uint8_t jpeg_magic[3] = {0xff, 0xd8, 0xff};

wt_file_format wt_format_from_path(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    if (!dot)
        return WT_FORMAT_UNKNOWN;
    if (strcasecmp(dot, ".png") == 0)
        return WT_FORMAT_PNG;
    if (strcasecmp(dot, ".jpg") == 0 || strcasecmp(dot, ".jpeg") == 0)
        return WT_FORMAT_JPEG;
    if (strcasecmp(dot, ".npz") == 0)
        return WT_FORMAT_NPZ;
    return WT_FORMAT_UNKNOWN;
}

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

/* 1 when the first @p size bytes of @p data start like @p magic (or are a prefix of it). */
static int starts_like(const uint8_t *data, size_t size, const uint8_t *magic, size_t len)
{
    return memcmp(data, magic, size < len ? size : len) == 0;
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
    if (starts_like(data, size, png_magic, sizeof png_magic)) {
        if (size < sizeof png_magic)
            return wt_error_set(WT_ERR_FORMAT, "%s: truncated PNG data", name);
        return wt_png_decode(data, size, name, &o, img);
    }
    if (starts_like(data, size, jpeg_magic, sizeof jpeg_magic)) {
        if (size < sizeof jpeg_magic)
            return wt_error_set(WT_ERR_FORMAT, "%s: truncated JPEG data", name);
        return wt_jpeg_decode(data, size, name, &o, img);
    }
    return wt_error_set(WT_ERR_FORMAT, "%s: not a PNG or JPEG image", name);
}

static wt_status encode(wt_file_format format, FILE *fp, const char *name, const wt_image *img,
                        const wt_save_options *opt)
{
    switch (format) {
    case WT_FORMAT_PNG: return wt_png_encode(fp, name, img, opt);
    case WT_FORMAT_JPEG: return wt_jpeg_encode(fp, name, img, opt);
    case WT_FORMAT_NPZ:
        return wt_error_set(WT_ERR_INVALID, "%s: .npz holds coefficients, not images", name);
    case WT_FORMAT_UNKNOWN: break;
    }
    return wt_error_set(WT_ERR_INVALID, "%s: unknown output format (use .png, .jpg or .npz)",
                        name);
}

wt_status wt_image_save(const char *path, const wt_image *img, const wt_save_options *opt,
                        wt_file_format fallback)
{
    int is_stdout = strcmp(path, "-") == 0;
    const char *name = is_stdout ? "(stdout)" : path;
    wt_file_format format = is_stdout ? fallback : wt_format_from_path(path);
    if (format != WT_FORMAT_PNG && format != WT_FORMAT_JPEG)
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
