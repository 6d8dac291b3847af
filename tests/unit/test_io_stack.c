/* test_io: stacks (multi-page files, .npz page streams). Helpers, main and
 * shared declarations: test_io.c, test_io.h. */
#include "test_io.h"

/* ---- stacks ------------------------------------------------------------------ */

/* Pages of @p pages x (h x w) gray 16-bit, each filled from its number. */
static void stack_page(wt_image *img, int k, uint32_t w, uint32_t h)
{
    assert_int_equal(wt_image_alloc(img, w, h, 1, 16), WT_OK);
    img->color = WT_COLOR_GRAY;
    for (size_t i = 0; i < (size_t)w * h; i++)
        ((uint16_t *)img->pixels)[i] = (uint16_t)(1000 * k + i * 7);
}

/* wt_stack_writer then wt_stack_open/read: the pages come back in order. */
static void stack_roundtrip(const char *name, wt_stack_layout layout)
{
    const int pages = 3;
    wt_stack_writer *w;
    assert_int_equal(wt_stack_writer_open(scratch(name), WT_FORMAT_UNKNOWN, pages, &w), WT_OK);
    for (int k = 0; k < pages; k++) {
        wt_image img;
        stack_page(&img, k, 7, 5);
        assert_int_equal(wt_stack_writer_add(w, &img), WT_OK);
        wt_image_free(&img);
    }
    assert_int_equal(wt_stack_writer_commit(w), WT_OK);
    wt_load_options opt = {.stack = layout};
    wt_stack *s;
    assert_int_equal(wt_stack_open(scratch(name), &opt, &s), WT_OK);
    assert_int_equal(wt_stack_pages(s), pages);
    for (int k = 0; k < pages; k++) {
        wt_image want, got;
        stack_page(&want, k, 7, 5);
        if (wt_stack_read(s, (size_t)k, &got) != WT_OK)
            fail_msg("%s", wt_error_message());
        assert_int_equal(got.width, 7);
        assert_int_equal(got.height, 5);
        assert_int_equal(got.bit_depth, 16);
        assert_memory_equal(got.pixels, want.pixels, wt_image_bytes(&want));
        wt_image_free(&want);
        wt_image_free(&got);
    }
    wt_stack_close(s);
}

void test_stack_files(void **state)
{
    (void)state;
    stack_roundtrip("s.tif", WT_STACK_AUTO);
    stack_roundtrip("s.npy", WT_STACK_FIRST);
    /* one-image formats hold no stack; a page of another size is refused */
    wt_stack_writer *w;
    assert_int_equal(wt_stack_writer_open(scratch("s.png"), WT_FORMAT_UNKNOWN, 2, &w),
                     WT_ERR_UNSUPPORTED);
    assert_message_has("s.png: PNG holds one image");
    assert_int_equal(wt_stack_writer_open(scratch("t.tif"), WT_FORMAT_UNKNOWN, 2, &w), WT_OK);
    wt_image a, b;
    stack_page(&a, 0, 4, 4);
    stack_page(&b, 1, 4, 5);
    assert_int_equal(wt_stack_writer_add(w, &a), WT_OK);
    assert_int_equal(wt_stack_writer_add(w, &b), WT_ERR_INVALID);
    wt_stack_writer_abort(w);
    assert_int_equal(access(scratch("t.tif"), F_OK), -1);
    wt_image_free(&a);
    wt_image_free(&b);
}

/* wt_stack_reread_rows: a band of rows a strip at a time, gathered here. */
typedef struct gathered_rows {
    wt_image img;
    uint32_t next, bands;
} gathered_rows;

static wt_status gather_band(void *arg, const wt_image *band, uint32_t y0)
{
    gathered_rows *g = arg;
    size_t row_bytes = wt_image_bytes(&g->img) / g->img.height;
    assert_int_equal(y0, g->next);
    assert_int_equal(band->width, g->img.width);
    assert_true(y0 + band->height <= g->img.height);
    memcpy((unsigned char *)g->img.pixels + y0 * row_bytes, band->pixels,
           band->height * row_bytes);
    g->next += band->height;
    g->bands++;
    return WT_OK;
}

static wt_status refuse_band(void *arg, const wt_image *band, uint32_t y0)
{
    (void)arg, (void)band, (void)y0;
    return wt_error_set(WT_ERR_INVALID, "the band's own error");
}

/* A 2-page stack of @p w x @p h written to @p name and opened under @p opt;
 * each page read again by rows (in @p bands bands at least) equals its
 * whole read. */
static wt_stack *reread_equals_read(const char *name, const wt_load_options *opt, uint32_t w,
                                    uint32_t h, uint32_t bands)
{
    wt_stack_writer *sw;
    assert_int_equal(wt_stack_writer_open(scratch(name), WT_FORMAT_UNKNOWN, 2, &sw), WT_OK);
    for (int k = 0; k < 2; k++) {
        wt_image img;
        stack_page(&img, k, w, h);
        assert_int_equal(wt_stack_writer_add(sw, &img), WT_OK);
        wt_image_free(&img);
    }
    assert_int_equal(wt_stack_writer_commit(sw), WT_OK);
    wt_stack *s;
    assert_int_equal(wt_stack_open(scratch(name), opt, &s), WT_OK);
    assert_int_equal(wt_stack_rereads_rows(s), 1);
    for (int k = 1; k >= 0; k--) { /* out of order: the reader goes back */
        wt_image page;
        gathered_rows g = {0};
        assert_int_equal(wt_stack_read(s, (size_t)k, &page), WT_OK);
        assert_int_equal(wt_image_alloc(&g.img, w, h, 1, 16), WT_OK);
        if (wt_stack_reread_rows(s, (size_t)k, gather_band, &g) != WT_OK)
            fail_msg("%s", wt_error_message());
        assert_int_equal(g.next, h);
        assert_true(g.bands >= bands);
        assert_memory_equal(g.img.pixels, page.pixels, wt_image_bytes(&page));
        wt_image_free(&page);
        wt_image_free(&g.img);
    }
    return s;
}

/* Every page of a TIFF or .npy stack read again by rows equals its whole
 * read; a band's error stops the read; a file written to since it was opened
 * is refused, naming it; formats without rows say so. */
void test_stack_reread_rows(void **state)
{
    (void)state;
    wt_load_options first = {.stack = WT_STACK_FIRST};
    wt_stack_close(reread_equals_read("r.npy", &first, 2100, 600, 2)); /* 1.26 M samples */
    wt_stack *s = reread_equals_read("r.tif", NULL, 300, 200, 2); /* strips, not the page */
    assert_int_equal(wt_stack_reread_rows(s, 0, refuse_band, NULL), WT_ERR_INVALID);
    assert_message_has("the band's own error");
    assert_int_equal(wt_stack_reread_rows(s, 2, refuse_band, NULL), WT_ERR_INVALID);
    /* written to since: refused, the file named */
    struct timespec times[2] = {{0, UTIME_OMIT}, {12345, 0}};
    assert_int_equal(utimensat(AT_FDCWD, scratch("r.tif"), times, 0), 0);
    assert_int_equal(wt_stack_reread_rows(s, 0, refuse_band, NULL), WT_ERR_IO);
    assert_message_has("r.tif: changed since it was read");
    wt_stack_close(s);
    /* a PNG is read whole: no rows */
    wt_image png;
    stack_page(&png, 0, 8, 8);
    assert_int_equal(wt_image_save(scratch("r.png"), &png, NULL, WT_FORMAT_UNKNOWN), WT_OK);
    wt_image_free(&png);
    assert_int_equal(wt_stack_open(scratch("r.png"), NULL, &s), WT_OK);
    assert_int_equal(wt_stack_rereads_rows(s), 0);
    assert_int_equal(wt_stack_reread_rows(s, 0, refuse_band, NULL), WT_ERR_UNSUPPORTED);
    wt_stack_close(s);
}

/* A stack's .npz written a page at a time and read back a page at a time. */
void test_npz_stack(void **state)
{
    (void)state;
    wt_pyramid pages[2];
    forward_random(&pages[0], "db2", WT_MODE_SYMMETRIC, 2, 3, 19, 23);
    forward_random(&pages[1], "db2", WT_MODE_SYMMETRIC, 2, 3, 19, 23);
    wt_npz_meta meta = meta_for(&pages[0], "db2", WT_MODE_SYMMETRIC, WT_METHOD_CONV);
    meta.pages = 2;
    wt_npz_stack_writer *w;
    assert_int_equal(wt_npz_stack_writer_open(scratch("st.npz"), &meta, &pages[0], NULL, &w), WT_OK);
    for (int k = 0; k < 2; k++)
        assert_int_equal(wt_npz_stack_add_pyramid(w, &pages[k]), WT_OK);
    assert_int_equal(wt_npz_stack_writer_commit(w), WT_OK);
    assert_int_equal(wt_npz_is_stack(scratch("st.npz")), 1);
    wt_pyramid one = {0};
    wt_npz_meta got;
    assert_int_equal(wt_npz_load(scratch("st.npz"), &one, &got), WT_ERR_UNSUPPORTED);
    assert_message_has("a stack of 2 pages");
    wt_npz_stack_reader *r;
    wt_uparams up;
    assert_int_equal(wt_npz_stack_reader_open(scratch("st.npz"), NULL, &r, &got, &up), WT_OK);
    assert_int_equal(got.pages, 2);
    wt_pyramid pyr = {0};
    float *bands = NULL;
    assert_int_equal(wt_npz_stack_read_page(r, 1, &pyr, &bands), WT_ERR_INVALID); /* in order */
    for (int k = 0; k < 2; k++) {
        if (wt_npz_stack_read_page(r, (uint64_t)k, &pyr, &bands) != WT_OK)
            fail_msg("%s", wt_error_message());
        assert_memory_equal(pyr.data, pages[k].data, pages[k].total * 4);
    }
    wt_npz_stack_reader_close(r);
    wt_pyramid_free(&pyr);
    wt_pyramid_free(&pages[0]);
    wt_pyramid_free(&pages[1]);
}
