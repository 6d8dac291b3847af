/* Reading input files (see input.h): one way to open, sniff and read every
 * input, so that PNG, JPEG, .npz and later formats get the same bounds. */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How long a FIFO's reader waits for a writer to open it: a writer started
 * beside wavetool (`cat x > fifo &`, `<(cmd)`) opens it a moment later, and
 * a read with no writer yet would see end of file at once. */
#define FIFO_WRITER_WAIT_MS 3000

/* Wait until a writer has opened the FIFO @p fd (data or its close shows). */
static wt_status wait_for_writer(const char *path, int fd)
{
    struct pollfd p = {fd, POLLIN, 0};
    int r;
    do
        r = poll(&p, 1, FIFO_WRITER_WAIT_MS);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return wt_error_set(WT_ERR_IO, "%s: %s", path, strerror(errno));
    if (r == 0)
        return wt_error_set(WT_ERR_IO, "%s: no writer opened the FIFO within %d s", path,
                            FIFO_WRITER_WAIT_MS / 1000);
    return WT_OK;
}

wt_status wt_input_open(const char *path, int *fd, struct stat *st)
{
    /* O_NONBLOCK: opening a FIFO with no writer returns at once; a writer is
     * then waited for a bounded time, and reads block again afterwards */
    *fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (*fd < 0)
        return wt_error_set(WT_ERR_IO, "%s: %s", path, strerror(errno));
    int flags = fcntl(*fd, F_GETFL);
    wt_status status = WT_OK;
    if (fstat(*fd, st) != 0 || flags < 0)
        status = wt_error_set(WT_ERR_IO, "%s: %s", path, strerror(errno));
    else if (S_ISDIR(st->st_mode))
        status = wt_error_set(WT_ERR_IO, "%s: is a directory", path);
    else if (S_ISFIFO(st->st_mode))
        status = wait_for_writer(path, *fd);
    if (status == WT_OK && fcntl(*fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
        status = wt_error_set(WT_ERR_IO, "%s: %s", path, strerror(errno));
    if (status != WT_OK) {
        close(*fd);
        *fd = -1;
    }
    return status;
}

uint64_t wt_input_cap(uint64_t max_pixels, unsigned bytes_per_pixel, uint64_t ceiling)
{
    const uint64_t room = (uint64_t)64 << 20; /* headers, metadata, zip records */
    if (max_pixels > (ceiling - room) / 2 / (bytes_per_pixel ? bytes_per_pixel : 1))
        return ceiling;
    return 2 * max_pixels * bytes_per_pixel + room;
}

uint64_t wt_input_cap_text(uint64_t max_pixels, unsigned bytes_per_pixel, uint64_t ceiling,
                           const char *ceiling_text, char *text, size_t text_size)
{
    uint64_t limit = max_pixels ? max_pixels : WT_DEFAULT_MAX_PIXELS;
    uint64_t cap = wt_input_cap(limit, bytes_per_pixel, ceiling);
    if (cap == ceiling)
        snprintf(text, text_size, "%s", ceiling_text);
    else
        snprintf(text, text_size, "%llu MiB (the most --max-pixels %llu allows)",
                 (unsigned long long)(cap >> 20), (unsigned long long)limit);
    return cap;
}

wt_status wt_check_dimensions(const char *name, const char *what, uint64_t width, uint64_t height,
                              uint64_t max_pixels)
{
    uint64_t limit = max_pixels ? max_pixels : WT_DEFAULT_MAX_PIXELS;
    if (!width || !height)
        return wt_error_set(WT_ERR_FORMAT, "%s: %s image of %llux%llu pixels", name, what,
                            (unsigned long long)width, (unsigned long long)height);
    if (width > WT_MAX_SIDE || height > WT_MAX_SIDE)
        return wt_error_set(WT_ERR_LIMIT,
                            "%s: %llux%llu: width and height must be below 2^24 (%u at most)",
                            name, (unsigned long long)width, (unsigned long long)height,
                            WT_MAX_SIDE);
    if (width * height > limit) /* each < 2^24: no overflow */
        return wt_error_set(WT_ERR_LIMIT,
                            "%s: %llux%llu pixels exceeds the limit of %llu (--max-pixels)", name,
                            (unsigned long long)width, (unsigned long long)height,
                            (unsigned long long)limit);
    return WT_OK;
}

/* Grow @p buf to hold more than @p len bytes, at most @p cap + 1. */
static uint8_t *grow(uint8_t *buf, size_t *capacity, uint64_t cap)
{
    uint64_t want = *capacity > cap / 2 ? cap + 1 : 2 * (uint64_t)*capacity;
    if (want > SIZE_MAX || want <= *capacity)
        return NULL;
    uint8_t *grown = realloc(buf, (size_t)want);
    if (grown)
        *capacity = (size_t)want;
    return grown;
}

/* read(2) that retries after a signal */
static ssize_t read_some(int fd, uint8_t *buf, size_t len)
{
    ssize_t n;
    do
        n = read(fd, buf, len);
    while (n < 0 && errno == EINTR);
    return n;
}

wt_status wt_input_read(int fd, const char *name, uint64_t hint, uint64_t cap,
                        const char *cap_text, wt_input_check check, uint8_t **data,
                        size_t *size)
{
    if (hint > cap)
        return wt_error_set(WT_ERR_LIMIT, "%s: file is larger than %s", name, cap_text);
    size_t capacity = hint ? (size_t)hint + 1 : (size_t)1 << 16, len = 0;
    int checked = !check;
    uint8_t *buf = malloc(capacity);
    while (buf) {
        if (!checked && len >= WT_SNIFF_BYTES) {
            wt_status st = check(buf, len, name);
            checked = 1;
            if (st != WT_OK) {
                free(buf);
                return st;
            }
        }
        if (len == capacity) {
            if (len > cap) {
                free(buf);
                return wt_error_set(WT_ERR_LIMIT, "%s: file is larger than %s", name, cap_text);
            }
            uint8_t *grown = grow(buf, &capacity, cap);
            if (!grown)
                break;
            buf = grown;
        }
        /* the first reads stop at the sniffed bytes: nothing more before the check */
        size_t want = capacity - len;
        if (!checked && want > WT_SNIFF_BYTES - len)
            want = WT_SNIFF_BYTES - len;
        ssize_t n = read_some(fd, buf + len, want);
        if (n < 0) {
            int err = errno;
            free(buf);
            return wt_error_set(WT_ERR_IO, "%s: %s", name, strerror(err));
        }
        if (n == 0) {
            wt_status st = checked || !len ? WT_OK : check(buf, len, name);
            if (st != WT_OK) {
                free(buf);
                return st;
            }
            *data = buf;
            *size = len;
            return WT_OK;
        }
        len += (size_t)n;
    }
    free(buf);
    return wt_error_set(WT_ERR_NOMEM, "%s: out of memory reading the file", name);
}
