/* Stacks (see wavetool.h): multi-page TIFF and 3-D .npy files read a page at
 * a time through the codecs' page readers (src/tiff_io.c, npy_io.c), and
 * stacks of images written a page at a time (multi-page TIFF, (N, H, W[, C])
 * .npy) through an atomic output. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image_codec.h"
#include "input.h"

struct wt_stack {
    char *path;
    const char *name; /* as messages show it */
    wt_load_options opt;
    int fd;
    size_t pages;
    wt_tiff_pages *tiff;
    wt_npy_pages *npy;
};

/* The codec of a regular file's first bytes (NULL: none, or unreadable). */
static const wt_codec *sniff_file(int fd)
{
    uint8_t head[WT_SNIFF_BYTES];
    ssize_t n = pread(fd, head, sizeof head, 0);
    return n > 0 ? wt_codec_sniff(head, (size_t)n) : NULL;
}

/* A regular file's pages: TIFF always, .npy under --stack first|last. */
static wt_status open_pages(wt_stack *s, const struct stat *st)
{
    const wt_codec *c = sniff_file(s->fd);
    wt_image layout;
    uint64_t size = (uint64_t)st->st_size;
    if (c == &wt_codec_tiff && size >= c->magic_size)
        return wt_tiff_pages_open(s->fd, size, s->name, &s->opt, &s->tiff, &s->pages, &layout);
    if (c == &wt_codec_npy && s->opt.stack != WT_STACK_AUTO)
        return wt_npy_pages_open(s->fd, size, s->name, &s->opt, &s->npy, &s->pages, &layout);
    return WT_OK; /* one image, read by wt_image_load */
}

wt_status wt_stack_open(const char *path, const wt_load_options *opt, wt_stack **out)
{
    *out = NULL;
    wt_stack *s = calloc(1, sizeof *s);
    if (s)
        s->path = strdup(path);
    if (!s || !s->path) {
        free(s);
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    }
    s->name = s->path;
    s->opt = opt ? *opt : (wt_load_options){0};
    if (!s->opt.max_pixels)
        s->opt.max_pixels = WT_DEFAULT_MAX_PIXELS;
    s->fd = -1;
    s->pages = 1;
    wt_status st = WT_OK;
    struct stat sb;
    /* only a regular file is opened here: a FIFO is opened once, by wt_image_load */
    if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
        wt_input_open(path, &s->fd, &sb) == WT_OK) {
        if (S_ISREG(sb.st_mode))
            st = open_pages(s, &sb);
        if (!s->tiff && !s->npy) {
            close(s->fd);
            s->fd = -1;
        }
    } /* an input that does not open: wt_image_load says why, on the first read */
    if (st != WT_OK) {
        wt_stack_close(s);
        return st;
    }
    *out = s;
    return WT_OK;
}

size_t wt_stack_pages(const wt_stack *s)
{
    return s->pages;
}

wt_status wt_stack_read(wt_stack *s, size_t k, wt_image *img)
{
    memset(img, 0, sizeof *img);
    wt_warning_clear();
    if (k >= s->pages)
        return wt_error_set(WT_ERR_INVALID, "%s: no page %zu (%zu pages)", s->name, k, s->pages);
    if (s->tiff)
        return wt_tiff_pages_read(s->tiff, k, &s->opt, img);
    if (s->npy)
        return wt_npy_pages_read(s->npy, k, &s->opt, img);
    return wt_image_load(s->path, &s->opt, img);
}

void wt_stack_close(wt_stack *s)
{
    if (!s)
        return;
    wt_tiff_pages_close(s->tiff);
    wt_npy_pages_close(s->npy);
    if (s->fd >= 0)
        close(s->fd);
    free(s->path);
    free(s);
}

/* ---- writing ----------------------------------------------------------------- */

struct wt_stack_writer {
    wt_outfile out;
    const char *name;
    wt_file_format format;
    size_t pages, written;
    wt_image first; /* the first page's layout (pixels NULL) */
    wt_tiff_page_writer *tiff;
};

static const char *shown_output(const char *path)
{
    return strcmp(path, "-") == 0 ? "(stdout)" : path;
}

wt_status wt_stack_writer_open(const char *path, wt_file_format fallback, size_t pages,
                               wt_stack_writer **out)
{
    *out = NULL;
    int is_stdout = strcmp(path, "-") == 0;
    wt_file_format format = is_stdout ? fallback : wt_format_from_path(path);
    const wt_format_info *info = wt_format_describe(format);
    const char *name = shown_output(path);
    if (format != wt_format_from_ext("tif") && format != wt_format_from_ext("npy"))
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: %s holds one image, not a stack of %zu pages (write .tif or "
                            ".npy)",
                            name, info ? info->name : "this format", pages);
    if (is_stdout && format == wt_format_from_ext("tif"))
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: a multi-page TIFF is written in place: not to standard output "
                            "(--ext npy streams)",
                            name);
    wt_stack_writer *w = calloc(1, sizeof *w);
    if (!w)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", name);
    w->name = name;
    w->format = format;
    w->pages = pages;
    wt_status st = wt_outfile_open(&w->out, path);
    if (st != WT_OK) {
        free(w);
        return st;
    }
    *out = w;
    return WT_OK;
}

static int same_page_layout(const wt_image *a, const wt_image *b)
{
    return a->width == b->width && a->height == b->height && a->channels == b->channels &&
           a->bit_depth == b->bit_depth;
}

/* The first page: its layout fixed, the file started. */
static wt_status start_pages(wt_stack_writer *w, const wt_image *page)
{
    w->first = *page;
    w->first.pixels = NULL;
    FILE *fp = w->out.fp;
    if (w->format == wt_format_from_ext("npy"))
        return wt_npy_write_stack_header(fp, w->name, page, w->pages);
    if (fflush(fp) != 0)
        return wt_error_set(WT_ERR_IO, "%s: %s", w->name, strerror(errno));
    uint64_t total = (uint64_t)wt_image_bytes(page) * w->pages;
    return wt_tiff_page_writer_open(fileno(fp), w->name, total, &w->tiff);
}

wt_status wt_stack_writer_add(wt_stack_writer *w, const wt_image *page)
{
    wt_status st = WT_OK;
    if (w->written == w->pages)
        return wt_error_set(WT_ERR_INVALID, "%s: more than %zu pages", w->name, w->pages);
    if (w->written == 0)
        st = start_pages(w, page);
    else if (!same_page_layout(page, &w->first))
        st = wt_error_set(WT_ERR_INVALID, "%s: page %zu differs from page 0 in size or type",
                          w->name, w->written);
    if (st == WT_OK)
        st = w->tiff ? wt_tiff_page_writer_add(w->tiff, page)
                     : wt_npy_write_stack_page(w->out.fp, w->name, page);
    if (st == WT_OK)
        w->written++;
    return st;
}

wt_status wt_stack_writer_commit(wt_stack_writer *w)
{
    wt_status st = w->written == w->pages
                       ? WT_OK
                       : wt_error_set(WT_ERR_INVALID, "%s: %zu of %zu pages written", w->name,
                                      w->written, w->pages);
    wt_status closed = wt_tiff_page_writer_close(w->tiff);
    w->tiff = NULL;
    st = st != WT_OK ? st : closed;
    if (st == WT_OK)
        st = wt_outfile_commit(&w->out);
    else
        wt_outfile_abort(&w->out);
    free(w);
    return st;
}

void wt_stack_writer_abort(wt_stack_writer *w)
{
    if (!w)
        return;
    wt_tiff_page_writer_discard(w->tiff);
    wt_outfile_abort(&w->out);
    free(w);
}
