/* The CPU engine's transform in one buffer (src/engine/dwt_inplace.c, through
 * wt_forward_image_consume, wt_roundtrip_image and wt_roundtrip_image_consume):
 * the same bytes as the regular path (wt_forward_image, wt_inverse_image) over
 * wavelets, modes, levels, odd and thin shapes, channels and sample types, also
 * on pixels borrowed from a room (wt_image.room: never freed nor realloc'd);
 * and its peak memory, read from /proc/self/status, within 3x a 16-bit image. */

#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wavetool.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t next_random(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

/* An image of random samples (float32: in [-1000, 1000)). */
static void random_image(wt_image *img, uint32_t w, uint32_t h, int channels, int depth)
{
    assert_int_equal(wt_image_alloc(img, w, h, channels, depth), WT_OK);
    size_t n = (size_t)w * h * (size_t)channels;
    for (size_t i = 0; i < n; i++) {
        uint32_t r = next_random();
        if (depth == 8)
            ((uint8_t *)img->pixels)[i] = (uint8_t)r;
        else if (depth == 16)
            ((uint16_t *)img->pixels)[i] = (uint16_t)r;
        else
            ((float *)img->pixels)[i] = (float)r / 4294967296.0f * 2000.0f - 1000.0f;
    }
}

static void copy_image(const wt_image *from, wt_image *to)
{
    assert_int_equal(
        wt_image_alloc(to, from->width, from->height, from->channels, from->bit_depth), WT_OK);
    memcpy(to->pixels, from->pixels, wt_image_bytes(from));
}

typedef struct config {
    const char *wavelet;
    wt_mode mode;
    int levels;
    uint32_t w, h;
    int channels, depth;
} config;

static const config configs[] = {
    {"haar", WT_MODE_SYMMETRIC, 3, 200, 136, 1, 16},
    {"haar", WT_MODE_SYMMETRIC, 3, 201, 77, 1, 8},
    {"db3", WT_MODE_SYMMETRIC, 2, 37, 29, 3, 8},
    {"db3", WT_MODE_PERIODIZATION, 4, 300, 130, 1, 16},
    {"sym8", WT_MODE_ZERO, 3, 131, 67, 2, WT_DEPTH_F32},
    {"sym8", WT_MODE_SMOOTH, 2, 65, 250, 1, WT_DEPTH_F32},
    {"db4", WT_MODE_PERIODIC, 5, 150, 93, 4, 16},
    {"coif2", WT_MODE_REFLECT, 3, 90, 91, 5, 8},
    {"bior4.4", WT_MODE_ANTISYMMETRIC, 2, 129, 130, 1, 16},
    {"cdf97", WT_MODE_SYMMETRIC, 4, 257, 140, 1, 16}, /* lifting */
    {"db8", WT_MODE_SYMMETRIC, 6, 70, 90, 1, 16}, /* coarse levels narrower than the filter */
    {"db10", WT_MODE_SYMMETRIC, 2, 9, 300, 1, 16},  /* narrow from the start: regular path */
    {"db2", WT_MODE_CONSTANT, 3, 1, 40, 1, 16},     /* one column */
    {"db2", WT_MODE_SYMMETRIC, 3, 40, 1, 1, 16},    /* one row */
    {"haar", WT_MODE_SYMMETRIC, 0, 33, 21, 2, 8},   /* no level */
};

static wt_params params_of(const config *c)
{
    wt_params p = {wt_wavelet_find(c->wavelet), c->mode, WT_METHOD_AUTO, c->levels};
    assert_non_null(p.wavelet);
    return p;
}

static void test_forward_equals_regular(void **state)
{
    (void)state;
    wt_engine *e;
    assert_int_equal(wt_engine_open(&e, "cpu"), WT_OK);
    for (size_t i = 0; i < sizeof configs / sizeof *configs; i++) {
        const config *c = &configs[i];
        wt_params p = params_of(c);
        wt_image img, given;
        wt_pyramid ref, got;
        random_image(&img, c->w, c->h, c->channels, c->depth);
        copy_image(&img, &given);
        assert_int_equal(wt_pyramid_alloc(&ref, &p, c->h, c->w, c->channels), WT_OK);
        assert_int_equal(wt_forward_image(e, &p, &img, &ref), WT_OK);
        assert_int_equal(wt_forward_image_consume(e, &p, &given, &got), WT_OK);
        assert_null(given.pixels);
        assert_int_equal(got.total, ref.total);
        if (memcmp(got.data, ref.data, ref.total * 4) != 0)
            fail_msg("config %zu (%s, %ux%u x%d): coefficients differ", i, c->wavelet, c->w,
                     c->h, c->channels);
        wt_pyramid_free(&ref);
        wt_pyramid_free(&got);
        wt_image_free(&img);
    }
    wt_engine_close(e);
}

static void test_roundtrip_equals_regular(void **state)
{
    (void)state;
    wt_engine *e;
    assert_int_equal(wt_engine_open(&e, "cpu"), WT_OK);
    for (size_t i = 0; i < sizeof configs / sizeof *configs; i++) {
        const config *c = &configs[i];
        wt_params p = params_of(c);
        wt_image img, ref, got;
        wt_pyramid pyr;
        random_image(&img, c->w, c->h, c->channels, c->depth);
        copy_image(&img, &ref);
        copy_image(&img, &got);
        assert_int_equal(wt_pyramid_alloc(&pyr, &p, c->h, c->w, c->channels), WT_OK);
        assert_int_equal(wt_forward_image(e, &p, &img, &pyr), WT_OK);
        assert_int_equal(wt_inverse_image(e, &p, &pyr, &ref), WT_OK);
        assert_int_equal(wt_roundtrip_image(e, &p, &img, &got), WT_OK);
        if (memcmp(got.pixels, ref.pixels, wt_image_bytes(&ref)) != 0)
            fail_msg("config %zu (%s, %ux%u x%d): reconstructions differ", i, c->wavelet, c->w,
                     c->h, c->channels);
        wt_image given, again; /* the image given up: the same reconstruction */
        copy_image(&img, &given);
        copy_image(&img, &again);
        assert_int_equal(wt_roundtrip_image_consume(e, &p, &given, &again), WT_OK);
        assert_null(given.pixels);
        if (memcmp(again.pixels, ref.pixels, wt_image_bytes(&ref)) != 0)
            fail_msg("config %zu (%s, %ux%u x%d): consumed reconstructions differ", i,
                     c->wavelet, c->w, c->h, c->channels);
        wt_image_free(&given);
        wt_image_free(&again);
        wt_pyramid_free(&pyr);
        wt_image_free(&img);
        wt_image_free(&ref);
        wt_image_free(&got);
    }
    wt_engine_close(e);
}

/* ---- borrowed pixels (wt_image.room) ---------------------------------------- */

/* A room as a file worker keeps one, counting its growths; refuses above
 * @p most bytes. */
typedef struct test_room {
    wt_pixel_room room;
    size_t most;
    int grown;
} test_room;

static int test_reserve(wt_pixel_room *room, size_t bytes)
{
    test_room *t = room->owner;
    if (bytes <= room->size)
        return 1;
    if (bytes > t->most)
        return 0;
    free(room->data);
    room->data = malloc(bytes);
    room->size = room->data ? bytes : 0;
    t->grown++;
    return room->data != NULL;
}

static void room_init(test_room *t, size_t most)
{
    memset(t, 0, sizeof *t);
    t->room = (wt_pixel_room){NULL, 0, test_reserve, t};
    t->most = most;
}

/* @p from's copy in @p room (it must take it). */
static void copy_into_room(const wt_image *from, test_room *room, wt_image *to)
{
    assert_int_equal(wt_image_alloc_in(to, &room->room, from->width, from->height,
                                       from->channels, from->bit_depth),
                     WT_OK);
    assert_ptr_equal(to->pixels, room->room.data);
    assert_ptr_equal(to->room, &room->room);
    memcpy(to->pixels, from->pixels, wt_image_bytes(from));
}

/* The in-place paths on borrowed pixels (a worker's room): the same bytes,
 * and the room's memory neither freed nor realloc'd (freed here at the end:
 * a free or realloc through the image would be a double free). */
static void test_borrowed_pixels(void **state)
{
    (void)state;
    wt_engine *e;
    assert_int_equal(wt_engine_open(&e, "cpu"), WT_OK);
    test_room in, out;
    room_init(&in, SIZE_MAX);
    room_init(&out, SIZE_MAX);
    for (size_t i = 0; i < sizeof configs / sizeof *configs; i++) {
        const config *c = &configs[i];
        wt_params p = params_of(c);
        wt_image img, given, ref, back;
        wt_pyramid pyr, got;
        random_image(&img, c->w, c->h, c->channels, c->depth);
        copy_into_room(&img, &in, &given);
        assert_int_equal(wt_pyramid_alloc(&pyr, &p, c->h, c->w, c->channels), WT_OK);
        assert_int_equal(wt_forward_image(e, &p, &img, &pyr), WT_OK);
        assert_int_equal(wt_forward_image_consume(e, &p, &given, &got), WT_OK);
        assert_null(given.pixels);
        assert_null(given.room);
        if (memcmp(got.data, pyr.data, pyr.total * 4) != 0)
            fail_msg("config %zu (%s): coefficients of borrowed pixels differ", i, c->wavelet);
        copy_image(&img, &ref);
        assert_int_equal(wt_inverse_image(e, &p, &pyr, &ref), WT_OK);
        copy_into_room(&img, &out, &back);
        assert_int_equal(wt_roundtrip_image(e, &p, &img, &back), WT_OK);
        if (memcmp(back.pixels, ref.pixels, wt_image_bytes(&ref)) != 0)
            fail_msg("config %zu (%s): reconstructions into borrowed pixels differ", i,
                     c->wavelet);
        wt_image_free(&back); /* forgets borrowed pixels, frees its own */
        wt_pyramid_free(&pyr);
        wt_pyramid_free(&got);
        wt_image_free(&img);
        wt_image_free(&ref);
    }
    assert_true(in.grown >= 1 && in.grown < (int)(sizeof configs / sizeof *configs));
    free(in.room.data);
    free(out.room.data);
    wt_engine_close(e);
}

/* A room that cannot hold the image: the pixels are the image's own. */
static void test_room_refusing(void **state)
{
    (void)state;
    test_room small;
    room_init(&small, 100);
    wt_image img;
    assert_int_equal(wt_image_alloc_in(&img, &small.room, 10, 10, 1, 8), WT_OK);
    assert_ptr_equal(img.room, &small.room);
    wt_image_free(&img);
    assert_non_null(small.room.data); /* only forgotten */
    assert_int_equal(wt_image_alloc_in(&img, &small.room, 11, 10, 1, 8), WT_OK);
    assert_null(img.room);
    assert_true(img.pixels != small.room.data);
    wt_image_drop_pixels(&img);
    assert_null(img.pixels);
    assert_int_equal(wt_image_alloc_in(&img, NULL, 3, 2, 4, 16), WT_OK);
    assert_null(img.room);
    wt_image_free(&img);
    free(small.room.data);
}

/* kB of a /proc/self/status line ("VmHWM:", "VmRSS:") */
static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, strlen(key)) == 0)
            kb = strtol(line + strlen(key), NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

/* Resets VmHWM to the current RSS (Linux 4.0+); 0 when it cannot. */
static int reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return 0;
    int ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok;
}

/* Peak memory above the RSS before the image is made, in units of the
 * decoded 16-bit image: decompose (consume) 2.5x, roundtrip 3.5x, where the
 * regular path takes 8x and 9x. The large blocks are mapped (a fixed mmap
 * threshold: glibc's moves), so what is freed leaves the RSS. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1 /* its allocator copies on realloc and keeps freed blocks */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static void test_peak_memory(void **state)
{
    (void)state;
    if (SANITIZED)
        skip();
    enum { SIDE = 2048 };
    double decoded_kb = (double)SIDE * SIDE * 2 / 1024;
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    mallopt(M_PERTURB, 0); /* meson's MALLOC_PERTURB_ writes whole blocks */
    wt_engine *e;
    assert_int_equal(wt_engine_open(&e, "cpu"), WT_OK);
    wt_params p = {wt_wavelet_find("db2"), WT_MODE_SYMMETRIC, WT_METHOD_AUTO, 3};
    if (!reset_peak())
        skip();
    long base = status_kb("VmRSS:");
    wt_image img;
    wt_pyramid pyr;
    random_image(&img, SIDE, SIDE, 1, 16);
    assert_int_equal(wt_forward_image_consume(e, &p, &img, &pyr), WT_OK);
    double decompose = (double)(status_kb("VmHWM:") - base) / decoded_kb;
    wt_pyramid_free(&pyr);
    /* roundtrip: the image, the buffer and the spare (the reconstruction's
     * pixels freed meanwhile) */
    wt_image back;
    assert_true(reset_peak());
    base = status_kb("VmRSS:");
    random_image(&img, SIDE, SIDE, 1, 16);
    assert_int_equal(wt_image_alloc(&back, SIDE, SIDE, 1, 16), WT_OK);
    assert_int_equal(wt_roundtrip_image(e, &p, &img, &back), WT_OK);
    double roundtrip = (double)(status_kb("VmHWM:") - base) / decoded_kb;
    print_message("peak in units of the decoded image: decompose %.2f, roundtrip %.2f\n",
                  decompose, roundtrip);
    assert_true(decompose <= 3.0);
    assert_true(roundtrip <= 4.2);
    wt_image_free(&img);
    wt_image_free(&back);
    wt_engine_close(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_equals_regular),
        cmocka_unit_test(test_roundtrip_equals_regular),
        cmocka_unit_test(test_peak_memory),
        cmocka_unit_test(test_borrowed_pixels),
        cmocka_unit_test(test_room_refusing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
