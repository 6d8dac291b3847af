/* Stacks (see wavetool.h): files of many pages read a page at a time and
 * stacks of images written a page at a time through an atomic output, both
 * through the page hooks of the format registry's rows (src/format.h): a
 * codec that declares them holds stacks; this file names no format. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image_codec.h"
#include "input.h"
#include "jpeg_gpu.h" /* wt_gpu_jpeg_note_clear */

struct wt_stack {
    char *path;
    const char *name; /* as messages show it */
    wt_load_options opt;
    int fd;
    size_t pages;
    const wt_page_reader *reader; /* NULL: one image, read by wt_image_load */
    void *state;                  /* the reader's */
    struct stat opened;           /* the file as opened: a reread finds it unchanged */
};

/* The codec of a regular file's first bytes (NULL: none, or unreadable). */
static const wt_codec *sniff_file(int fd)
{
    uint8_t head[WT_SNIFF_BYTES];
    ssize_t n = pread(fd, head, sizeof head, 0);
    return n > 0 ? wt_codec_sniff(head, (size_t)n) : NULL;
}

/* A regular file's pages, when its codec reads pages and finds them. */
static wt_status open_pages(wt_stack *s, const struct stat *st)
{
    const wt_codec *c = sniff_file(s->fd);
    if (!c || !c->pages_in)
        return WT_OK; /* one image, read by wt_image_load */
    wt_status status =
        c->pages_in->open(s->fd, (uint64_t)st->st_size, s->name, &s->opt, &s->state, &s->pages);
    if (status == WT_OK && s->state)
        s->reader = c->pages_in;
    return status;
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
        s->opened = sb;
        if (S_ISREG(sb.st_mode))
            st = open_pages(s, &sb);
        if (!s->reader) {
            close(s->fd);
            s->fd = -1;
            s->pages = 1;
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
    wt_gpu_jpeg_note_clear();
    if (k >= s->pages)
        return wt_error_set(WT_ERR_INVALID, "%s: no page %zu (%zu pages)", s->name, k, s->pages);
    if (s->reader)
        return s->reader->read(s->state, k, &s->opt, img);
    return wt_image_load(s->path, &s->opt, img);
}

wt_status wt_stack_read_in(wt_stack *s, size_t k, wt_pixel_room *room, wt_image *img)
{
    wt_pixel_room *kept = s->opt.room;
    s->opt.room = room;
    wt_status st = wt_stack_read(s, k, img);
    s->opt.room = kept;
    return st;
}

int wt_stack_rereads_rows(const wt_stack *s)
{
    return s && s->reader && s->reader->read_rows;
}

static int same_time(struct timespec a, struct timespec b)
{
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* WT_OK when the open file is as it was opened: same size, modification and
 * change time (a file replaced under its name is still the one open). */
static wt_status check_unchanged(const wt_stack *s)
{
    struct stat now;
    if (fstat(s->fd, &now) != 0)
        return wt_error_set(WT_ERR_IO, "%s: %s", s->name, strerror(errno));
    if (now.st_size != s->opened.st_size || !same_time(now.st_mtim, s->opened.st_mtim) ||
        !same_time(now.st_ctim, s->opened.st_ctim))
        return wt_error_set(WT_ERR_IO, "%s: changed since it was read", s->name);
    return WT_OK;
}

wt_status wt_stack_reread_rows(wt_stack *s, size_t k, wt_rows_fn fn, void *ctx)
{
    if (!wt_stack_rereads_rows(s))
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: not read again by rows", s->name);
    if (k >= s->pages)
        return wt_error_set(WT_ERR_INVALID, "%s: no page %zu (%zu pages)", s->name, k, s->pages);
    wt_status st = check_unchanged(s);
    if (st == WT_OK)
        st = s->reader->read_rows(s->state, k, fn, ctx);
    if (st == WT_OK) /* written to while read */
        st = check_unchanged(s);
    return st;
}

void wt_stack_close(wt_stack *s)
{
    if (!s)
        return;
    if (s->reader)
        s->reader->close(s->state);
    if (s->fd >= 0)
        close(s->fd);
    free(s->path);
    free(s);
}

/* ---- writing ----------------------------------------------------------------- */

struct wt_stack_writer {
    wt_outfile out;
    const char *name;
    const wt_page_writer *codec;
    void *state; /* the codec's */
    size_t pages, written;
    wt_image first; /* the first page's layout (pixels NULL) */
};

static const char *shown_output(const char *path)
{
    return strcmp(path, "-") == 0 ? "(stdout)" : path;
}

/* "--ext npy": the formats that write stacks to a pipe, as --ext options */
static const char *streaming_formats(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int f = 1; f <= wt_format_count(); f++) {
        const wt_codec *c = wt_codec_of((wt_file_format)f);
        if (c->pages_out && !c->pages_out->in_place) {
            int n = snprintf(buf + len, size - len, "%s--ext %s", len ? " or " : "",
                             c->info.extensions[0]);
            len += n > 0 && (size_t)n < size - len ? (size_t)n : 0;
        }
    }
    return buf;
}

/* The page writer of @p format into @p out, or the reason there is none. */
static wt_status page_writer_of(wt_file_format format, int is_stdout, const char *name,
                                size_t pages, const wt_page_writer **out)
{
    const wt_codec *c = wt_codec_of(format);
    char list[256];
    if (!c || !c->pages_out || !c->pages_in)
        return wt_error_set(
            WT_ERR_UNSUPPORTED, "%s: %s holds one image, not a stack of %zu pages (write %s)",
            name, c ? c->info.name : "this format", pages,
            wt_format_list(list, sizeof list, WT_HOLDS_STACK | WT_LIST_USUAL, ".", ", ", " or "));
    if (is_stdout && c->pages_out->in_place)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: a multi-page %s is written in place: not to standard output "
                            "(%s streams)",
                            name, c->info.name, streaming_formats(list, sizeof list));
    *out = c->pages_out;
    return WT_OK;
}

wt_status wt_stack_writer_open(const char *path, wt_file_format fallback, size_t pages,
                               wt_stack_writer **out)
{
    *out = NULL;
    int is_stdout = strcmp(path, "-") == 0;
    wt_file_format format = is_stdout ? fallback : wt_format_from_path(path);
    const char *name = shown_output(path);
    const wt_page_writer *codec = NULL;
    wt_status st = page_writer_of(format, is_stdout, name, pages, &codec);
    if (st != WT_OK)
        return st;
    wt_stack_writer *w = calloc(1, sizeof *w);
    if (!w)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", name);
    w->name = name;
    w->codec = codec;
    w->pages = pages;
    st = wt_outfile_open(&w->out, path);
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
    return w->codec->start(w->out.fp, w->name, page, w->pages, &w->state);
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
        st = w->codec->add(w->state, w->out.fp, w->name, page);
    if (st == WT_OK)
        w->written++;
    return st;
}

/* The codec's end of the file; its state is gone after. */
static wt_status finish_pages(wt_stack_writer *w)
{
    wt_status st = w->codec->finish && w->state ? w->codec->finish(w->state) : WT_OK;
    w->state = NULL;
    return st;
}

wt_status wt_stack_writer_commit(wt_stack_writer *w)
{
    wt_status st = w->written == w->pages
                       ? WT_OK
                       : wt_error_set(WT_ERR_INVALID, "%s: %zu of %zu pages written", w->name,
                                      w->written, w->pages);
    wt_status closed = finish_pages(w);
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
    if (w->codec->discard && w->state)
        w->codec->discard(w->state);
    wt_outfile_abort(&w->out);
    free(w);
}
