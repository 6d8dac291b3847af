/* test_io: the codec registry, PNG, JPEG, Netpbm, sample types, load/save
 * errors. Helpers, main and shared declarations: test_io.c, test_io.h. */
#include "test_io.h"

/* ---- formats ------------------------------------------------------------ */

void test_format_from_path(void **state)
{
    (void)state;
    assert_int_equal(wt_format_from_path("a.png"), WT_FORMAT_PNG);
    assert_int_equal(wt_format_from_path("dir.x/A.PNG"), WT_FORMAT_PNG);
    assert_int_equal(wt_format_from_path("a.jpg"), WT_FORMAT_JPEG);
    assert_int_equal(wt_format_from_path("a.JpEg"), WT_FORMAT_JPEG);
    assert_int_equal(wt_format_from_path("c.npz"), WT_FORMAT_NPZ);
    assert_int_equal(wt_format_from_path("out.bmp"), WT_FORMAT_UNKNOWN);
    assert_int_equal(wt_format_from_path("dir.png/noext"), WT_FORMAT_UNKNOWN);
    assert_int_equal(wt_format_from_path("png"), WT_FORMAT_UNKNOWN);
    assert_int_equal(wt_format_from_path("-"), WT_FORMAT_UNKNOWN);
}

/* The registry: every extension finds its row, lists and depths come from it. */
void test_format_registry(void **state)
{
    (void)state;
    char buf[256];
    assert_null(wt_format_describe(WT_FORMAT_UNKNOWN));
    assert_null(wt_format_describe((wt_file_format)(wt_format_count() + 1)));
    for (int f = 1; f <= wt_format_count(); f++) {
        const wt_format_info *info = wt_format_describe((wt_file_format)f);
        assert_non_null(info);
        assert_non_null(info->extensions[0]);
        for (const char *const *e = info->extensions; *e; e++) {
            snprintf(buf, sizeof buf, "x.%s", *e);
            assert_int_equal(wt_format_from_path(buf), f);
            assert_int_equal(wt_format_from_ext(*e), f);
        }
    }
    assert_string_equal(wt_format_describe(WT_FORMAT_JPEG)->name, "JPEG");
    assert_int_equal(wt_format_from_ext(".JPG"), WT_FORMAT_JPEG);
    assert_int_equal(wt_format_from_ext("npz"), WT_FORMAT_NPZ);
    assert_int_equal(wt_format_from_ext("bmp"), WT_FORMAT_UNKNOWN);
    assert_int_equal(wt_format_from_ext(""), WT_FORMAT_UNKNOWN);
    assert_int_equal(wt_format_from_ext("."), WT_FORMAT_UNKNOWN);
    assert_string_equal(wt_format_list(buf, sizeof buf, WT_HOLDS_IMAGE | WT_HOLDS_COEFFS, ".",
                                       ", ", " or "),
                        ".png, .jpg, .jpeg, .npz, .tif, .tiff, .npy, .pgm, .ppm or .pnm");
    assert_string_equal(wt_format_list(buf, sizeof buf, WT_HOLDS_IMAGE, "", "/", "/"),
                        "png/jpg/jpeg/tif/tiff/npy/pgm/ppm/pnm");
    assert_string_equal(wt_format_list(buf, sizeof buf, WT_HOLDS_COEFFS, ".", ", ", " or "),
                        ".npz");
    assert_string_equal(wt_format_list(buf, 6, WT_HOLDS_IMAGE, ".", ", ", " or "), ".png,");
    assert_int_equal(wt_format_depth(WT_FORMAT_PNG, 16), 16);
    assert_int_equal(wt_format_depth(WT_FORMAT_PNG, 8), 8);
    assert_int_equal(wt_format_depth(WT_FORMAT_JPEG, 16), 8);
    assert_int_equal(wt_format_depth(WT_FORMAT_PNG, 12), 8);
    assert_int_equal(wt_format_depth(WT_FORMAT_PNG, 4), 8);
}

/* Which formats hold stacks and float samples, and the save options, are
 * the codec rows' own declarations; messages list them from the registry. */
void test_format_capabilities(void **state)
{
    (void)state;
    char buf[256];
    wt_file_format tif = wt_format_from_ext("tif"), npy = wt_format_from_ext("npy");
    assert_string_equal(wt_format_list(buf, sizeof buf, WT_HOLDS_STACK | WT_LIST_USUAL, ".",
                                       ", ", " or "),
                        ".tif or .npy");
    assert_string_equal(wt_format_list(buf, sizeof buf, WT_HOLDS_FLOATS, "", "/", "/"),
                        "tif/tiff/npy");
    assert_string_equal(wt_format_list(buf, sizeof buf,
                                       WT_HOLDS_STACK | WT_HOLDS_COEFFS | WT_LIST_USUAL, ".",
                                       ", ", " or "),
                        ".npz, .tif or .npy");
    assert_true(wt_format_holds(tif, WT_HOLDS_STACK) && wt_format_holds(npy, WT_HOLDS_STACK));
    assert_false(wt_format_holds(WT_FORMAT_PNG, WT_HOLDS_STACK | WT_HOLDS_FLOATS));
    assert_false(wt_format_holds(WT_FORMAT_NPZ, WT_HOLDS_FLOATS | WT_HOLDS_IMAGE));
    assert_false(wt_format_holds(WT_FORMAT_UNKNOWN, WT_HOLDS_IMAGE));
    const wt_save_option_info *q = wt_format_option(WT_FORMAT_JPEG, "quality");
    assert_non_null(q);
    assert_int_equal(q->min, 1);
    assert_int_equal(q->max, 100);
    assert_int_equal(q->def, 90);
    const wt_save_option_info *level = wt_format_option(WT_FORMAT_PNG, "level");
    assert_non_null(level);
    assert_int_equal(level->min, 0);
    assert_int_equal(level->max, 9);
    assert_int_equal(level->def, 1);
    assert_non_null(wt_format_option(tif, "level"));
    assert_null(wt_format_option(WT_FORMAT_PNG, "quality"));
    assert_null(wt_format_option(npy, "level"));
}

/* Bytes of the file at @p path. */
static long file_bytes(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (long)st.st_size;
}

/* TIFF's declared deflate level reaches libtiff: level 1 and 9 differ in
 * size, both read back exactly; 0 is the default (6). */
void test_tiff_level(void **state)
{
    (void)state;
    wt_image img, back;
    long size[3];
    assert_int_equal(wt_image_alloc(&img, 96, 64, 1, 8), WT_OK);
    for (size_t i = 0; i < 96 * 64; i++)
        ((uint8_t *)img.pixels)[i] = (uint8_t)((i * i) / 7 % 251 + (i % 96) / 3);
    const int levels[3] = {1, 9, 0};
    for (int k = 0; k < 3; k++) {
        wt_save_options opt = {.png_level = -1, .tiff_level = levels[k]};
        assert_int_equal(wt_image_save(scratch("lv.tif"), &img, &opt, WT_FORMAT_UNKNOWN), WT_OK);
        size[k] = file_bytes(scratch("lv.tif"));
        back = load_ok(scratch("lv.tif"));
        assert_images_equal(&img, &back);
        wt_image_free(&back);
    }
    assert_true(size[0] != size[1]);
    assert_true(size[2] != size[0]);
    wt_image_free(&img);
}

/* ---- PNG ------------------------------------------------------------------ */

static void png_roundtrip(int depth)
{
    static const uint32_t sizes[][2] = {{1, 1}, {3, 5}, {17, 2}, {1, 9}, {64, 33}};
    static const int levels[] = {-1, 0, 6, 9};
    for (int c = 1; c <= 4; c++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            wt_image img, back;
            random_image(&img, sizes[s][0], sizes[s][1], c, depth);
            wt_save_options opt = {.png_level = levels[(c + s) % 4]};
            const char *path = scratch("rt.png");
            assert_int_equal(wt_image_save(path, &img, &opt, WT_FORMAT_UNKNOWN), WT_OK);
            back = load_ok(path);
            assert_images_equal(&img, &back);
            wt_image_free(&img);
            wt_image_free(&back);
        }
    assert_int_equal(count_entries(work_dir), 1); /* no temporary file left */
}

void test_png_roundtrip_8bit(void **state)
{
    (void)state;
    png_roundtrip(8);
}

void test_png_roundtrip_16bit(void **state)
{
    (void)state;
    png_roundtrip(16);
}

/* The row filters 16 bytes at a time equal the byte loop (png_encode.c). */
void test_png_filters_vector(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 5; seed++)
        assert_int_equal(wt_png_filter_check(seed * 2654435761u), 0);
}

/* Smooth images (a gradient with a ripple: the predicting filters win) read
 * back the same at every width around the 16-byte steps, 8- and 16-bit. */
void test_png_smooth_roundtrip(void **state)
{
    (void)state;
    static const uint32_t widths[] = {1, 5, 6, 7, 11, 16, 17, 33, 100};
    for (int depth = 8; depth <= 16; depth += 8)
        for (int c = 1; c <= 4; c++)
            for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
                wt_image img, back;
                uint32_t w = widths[k], h = 40;
                assert_int_equal(wt_image_alloc(&img, w, h, c, depth), WT_OK);
                for (size_t i = 0; i < (size_t)w * h * (size_t)c; i++) {
                    size_t x = i / (size_t)c % w, y = i / ((size_t)c * w);
                    unsigned v = (unsigned)(3 * x + 2 * y + 5 * (i % (size_t)c) + (x * y) % 7);
                    if (depth == 8)
                        ((uint8_t *)img.pixels)[i] = (uint8_t)v;
                    else
                        ((uint16_t *)img.pixels)[i] = (uint16_t)(v * 251u);
                }
                wt_save_options opt = {.png_level = 1 + (int)(k % 3) * 4};
                const char *path = scratch("smooth.png");
                assert_int_equal(wt_image_save(path, &img, &opt, WT_FORMAT_UNKNOWN), WT_OK);
                back = load_ok(path);
                assert_images_equal(&img, &back);
                wt_image_free(&img);
                wt_image_free(&back);
            }
}

/* Images past WT_PNG_WHOLE_MAX stream through zlib in slabs (png_encode.c):
 * the same pixels as the whole-image path, and the same file a second time.
 * The large image spans three slabs and nine IDAT chunks. */
void test_png_streamed(void **state)
{
    (void)state;
    wt_env_knobs *env = wt_env_override();
    const char *saved = env->png_whole_max;
    env->png_whole_max = "0";
    png_roundtrip(8);
    png_roundtrip(16);
    wt_image img, back;
    random_image(&img, 1100, 1000, 4, 16);
    wt_save_options opt = {.png_level = 1};
    assert_int_equal(wt_image_save(scratch("big.png"), &img, &opt, WT_FORMAT_UNKNOWN), WT_OK);
    back = load_ok(scratch("big.png"));
    assert_images_equal(&img, &back);
    wt_image_free(&back);
    env->png_whole_max = saved;
    assert_int_equal(wt_image_save(scratch("big.png"), &img, &opt, WT_FORMAT_UNKNOWN), WT_OK);
    back = load_ok(scratch("big.png"));
    assert_images_equal(&img, &back);
    wt_image_free(&back);
    wt_image_free(&img);
}

/* ---- PNG level 1: the fast run-length deflate (src/formats/png_fastz.c) --- */

static uint32_t read_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* zlib inflates the IDAT stream of PNG file @p path to its end
 * (Z_STREAM_END, the Adler-32 checked), exactly @p expect bytes, with
 * nothing left over. */
static void assert_idat_inflates(const char *path, size_t expect)
{
    size_t size;
    uint8_t *png = read_file(path, &size), *raw = malloc(expect + 1);
    z_stream zs = {0};
    assert_non_null(raw);
    assert_int_equal(inflateInit(&zs), Z_OK);
    zs.next_out = raw;
    zs.avail_out = (uInt)(expect + 1);
    int rc = Z_OK;
    for (size_t at = 8; at + 12 <= size; at += 12 + read_be32(png + at)) {
        if (memcmp(png + at + 4, "IDAT", 4) != 0)
            continue;
        assert_int_equal(rc, Z_OK); /* no IDAT after the stream's end */
        zs.next_in = png + at + 8;
        zs.avail_in = read_be32(png + at);
        rc = inflate(&zs, Z_NO_FLUSH);
        assert_true(rc == Z_OK || rc == Z_STREAM_END);
        assert_int_equal(zs.avail_in, 0);
    }
    assert_int_equal(rc, Z_STREAM_END);
    assert_int_equal(zs.total_out, expect);
    assert_int_equal(zs.adler, adler32(adler32(0, NULL, 0), raw, (uInt)expect));
    inflateEnd(&zs);
    free(raw);
    free(png);
}

/* @p img written at level 1 by the fast deflate (for every layout, though
 * only 8-bit gray takes it by default) reads back the same (libpng) and its IDAT
 * inflates (zlib); returns the file's size. */
static long fast_png_roundtrip(const wt_image *img)
{
    wt_save_options opt = {.png_level = 1};
    const char *path = scratch("fast.png");
    wt_env_knobs *env = wt_env_override();
    const char *saved = env->png_deflate;
    env->png_deflate = "fastz";
    assert_int_equal(wt_image_save(path, img, &opt, WT_FORMAT_UNKNOWN), WT_OK);
    env->png_deflate = saved;
    wt_image back = load_ok(path);
    assert_images_equal(img, &back);
    wt_image_free(&back);
    size_t stride = (size_t)img->width * (size_t)img->channels * (size_t)(img->bit_depth / 8);
    assert_idat_inflates(path, (stride + 1) * img->height);
    return file_bytes(path);
}

/* Rows of segments of 1 to @p longest pixels, each a random pixel repeated
 * (runs at distance bpp, and 1 where its bytes agree) or random bytes. */
static void segments_image(wt_image *img, uint32_t w, uint32_t h, int channels, int depth,
                           uint32_t longest)
{
    assert_int_equal(wt_image_alloc(img, w, h, channels, depth), WT_OK);
    size_t bpp = (size_t)channels * (size_t)(depth / 8);
    uint8_t *p = img->pixels;
    for (size_t x = 0, n = (size_t)w * h; x < n;) {
        size_t len = 1 + rand32() % longest, repeat = rand32() % 2;
        uint8_t pixel[8];
        for (size_t b = 0; b < bpp; b++)
            pixel[b] = (uint8_t)(rand32() % 3 ? rand32() : 128);
        for (len = len < n - x ? len : n - x; len; len--, x++)
            for (size_t b = 0; b < bpp; b++)
                p[x * bpp + b] = repeat ? pixel[b] : (uint8_t)rand32();
    }
}

/* Runs longer than a match (258) and longer than a block (64 KiB), at
 * distance 1 and bpp, in every layout. */
void test_png_fast_runs(void **state)
{
    (void)state;
    wt_image img;
    for (int depth = 8; depth <= 16; depth += 8)
        for (int c = 1; c <= 4; c++) {
            segments_image(&img, 300, 150, c, depth, 400);
            fast_png_roundtrip(&img);
            wt_image_free(&img);
        }
    segments_image(&img, 70000, 3, 4, 8, 30000); /* rows wider than a block */
    fast_png_roundtrip(&img);
    wt_image_free(&img);
}

/* Runs of every length near the limits of a match: 1-6, 257-262, 515-517. */
void test_png_fast_run_lengths(void **state)
{
    (void)state;
    static const uint32_t lengths[] = {1, 2, 3, 4, 5, 6, 10, 257, 258, 259, 260, 261, 262,
                                       515, 516, 517, 1000};
    wt_image img;
    assert_int_equal(wt_image_alloc(&img, 4000, 3, 1, 8), WT_OK);
    uint8_t *p = img.pixels;
    size_t x = 0;
    for (uint8_t v = 1; x < wt_image_bytes(&img); v++)
        for (size_t k = 0; k < sizeof lengths / sizeof *lengths; k++)
            for (uint32_t i = 0; i < lengths[k] && x < wt_image_bytes(&img); i++)
                p[x++] = (uint8_t)(v * 17 + k);
    fast_png_roundtrip(&img);
    wt_image_free(&img);
}

/* Runs that start in the last 8 bytes of the data (the scalar tail of the
 * run search: no byte before the buffer read, UBSan checks the arithmetic),
 * for every short width and every pixel size. */
void test_png_fast_runs_at_the_end(void **state)
{
    (void)state;
    for (int c = 1; c <= 4; c++)
        for (uint32_t w = 2; w <= 24; w++)
            for (uint32_t tail = 1; tail <= 9; tail++) {
                wt_image img;
                random_image(&img, w, 1, c, 8);
                size_t n = wt_image_bytes(&img), k = tail < n ? tail : n - 1;
                memset((uint8_t *)img.pixels + n - k, ((uint8_t *)img.pixels)[n - k - 1], k);
                fast_png_roundtrip(&img);
                wt_image_free(&img);
            }
}

/* Constant images of every layout, a 100000-pixel constant row (one run
 * across blocks) and 1x1, 1xN, Nx1 images, random and constant. */
void test_png_fast_constant_and_thin(void **state)
{
    (void)state;
    wt_image img;
    static const uint32_t sizes[][2] = {{257, 129}, {1, 1}, {1, 1000}, {1000, 1}};
    for (int depth = 8; depth <= 16; depth += 8)
        for (int c = 1; c <= 4; c++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                random_image(&img, sizes[s][0], sizes[s][1], c, depth);
                fast_png_roundtrip(&img);
                memset(img.pixels, 0x5a + c, wt_image_bytes(&img));
                fast_png_roundtrip(&img);
                wt_image_free(&img);
            }
    assert_int_equal(wt_image_alloc(&img, 100000, 2, 1, 8), WT_OK);
    memset(img.pixels, 200, wt_image_bytes(&img));
    assert_true(fast_png_roundtrip(&img) < 2000);
    wt_image_free(&img);
}

/* Widths around the run search's windows (64 bytes, starts at 62) and its
 * SIMD compares (16 bytes): rows of 13-129 bytes, runs across every window
 * edge, in every layout. */
void test_png_fast_window_edges(void **state)
{
    (void)state;
    static const uint32_t widths[] = {5,  13, 15, 16, 17, 21, 31,  32,
                                      33, 61, 62, 63, 64, 65, 127, 129};
    for (int depth = 8; depth <= 16; depth += 8)
        for (int c = 1; c <= 4; c++)
            for (size_t k = 0; k < sizeof widths / sizeof *widths; k++) {
                wt_image img;
                segments_image(&img, widths[k], 5, c, depth, 9);
                fast_png_roundtrip(&img);
                wt_image_free(&img);
            }
}

/* Noise does not compress: blocks are stored, the file barely larger than
 * the samples. */
void test_png_fast_noise(void **state)
{
    (void)state;
    wt_image img;
    random_image(&img, 256, 256, 3, 8);
    assert_true(fast_png_roundtrip(&img) < (long)(wt_image_bytes(&img) * 1.01 + 256));
    wt_image_free(&img);
    random_image(&img, 200, 150, 4, 16);
    assert_true(fast_png_roundtrip(&img) < (long)(wt_image_bytes(&img) * 1.01 + 256));
    wt_image_free(&img);
}

/* Every decoded sample lies in @p allowed (a list ended by -1). */
static void assert_samples_in(const wt_image *img, const int *allowed)
{
    const uint8_t *p = img->pixels;
    for (size_t i = 0; i < wt_image_bytes(img); i++) {
        int ok = 0;
        for (const int *a = allowed; *a >= 0; a++)
            ok |= p[i] == *a;
        if (!ok)
            fail_msg("sample %zu is %d", i, p[i]);
    }
}

void test_png_low_bit_gray(void **state)
{
    (void)state;
    static const int one[] = {0, 255, -1}, two[] = {0, 85, 170, 255, -1};
    int four[17];
    for (int i = 0; i < 16; i++)
        four[i] = 17 * i;
    four[16] = -1;
    const int *allowed[] = {one, two, four};
    const char *files[] = {"basn0g01.png", "basn0g02.png", "basn0g04.png"};
    for (int i = 0; i < 3; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "tricky/pngsuite/%s", files[i]);
        wt_image img = load_ok(corpus(rel));
        assert_int_equal(img.channels, 1);
        assert_int_equal(img.bit_depth, 8);
        assert_int_equal(img.width, 32);
        assert_samples_in(&img, allowed[i]);
        wt_image_free(&img);
    }
}

static void expect_layout(const char *rel, uint32_t w, uint32_t h, int channels, int depth)
{
    wt_image img = load_ok(corpus(rel));
    if (img.width != w || img.height != h || img.channels != channels || img.bit_depth != depth)
        fail_msg("%s: %ux%u %d ch %d-bit, expected %ux%u %d ch %d-bit", rel, img.width,
                 img.height, img.channels, img.bit_depth, w, h, channels, depth);
    assert_int_equal(img.color, channels);
    wt_image_free(&img);
}

void test_png_color_types(void **state)
{
    (void)state;
    expect_layout("tricky/pngsuite/basn3p01.png", 32, 32, 3, 8); /* palette 1-bit */
    expect_layout("tricky/pngsuite/basn3p02.png", 32, 32, 3, 8);
    expect_layout("tricky/pngsuite/basn3p04.png", 32, 32, 3, 8);
    expect_layout("tricky/pngsuite/basn3p08.png", 32, 32, 3, 8);
    expect_layout("tricky/pngsuite/tbbn3p08.png", 32, 32, 4, 8); /* palette + tRNS */
    expect_layout("tricky/pngsuite/tbbn0g04.png", 32, 32, 2, 8); /* gray + tRNS */
    expect_layout("tricky/pngsuite/tbbn2c16.png", 32, 32, 4, 16); /* RGB16 + tRNS */
    expect_layout("tricky/pngsuite/basn0g16.png", 32, 32, 1, 16);
    expect_layout("tricky/pngsuite/basn4a08.png", 32, 32, 2, 8);
    expect_layout("tricky/pngsuite/basn4a16.png", 32, 32, 2, 16);
    expect_layout("tricky/pngsuite/basn2c16.png", 32, 32, 3, 16);
    expect_layout("tricky/pngsuite/basn6a16.png", 32, 32, 4, 16);
    expect_layout("tricky/pngsuite/s01i3p01.png", 1, 1, 3, 8); /* 1x1 interlaced */
    expect_layout("tricky/pngsuite/s39i3p04.png", 39, 39, 3, 8);
    expect_layout("good/reference/monkey16.png", 149, 227, 3, 16);
    /* metadata chunks (text, ICC, gamma) are ignored, not errors */
    expect_layout("good/photos/astronaut.png", 512, 512, 3, 8);
    expect_layout("bad/png/bomb_iCCP_100MB_valid_image.png", 64, 64, 1, 8);
}

/* Adam7 interlaced files decode to exactly the pixels of their plain twins. */
void test_png_interlaced_equals_plain(void **state)
{
    (void)state;
    static const char *types[] = {"0g01", "0g02", "0g04", "0g08", "0g16", "2c08", "2c16",
                                  "3p01", "3p02", "3p04", "3p08", "4a08", "4a16", "6a08",
                                  "6a16"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        char a[64], b[64];
        snprintf(a, sizeof a, "tricky/pngsuite/basi%s.png", types[i]);
        snprintf(b, sizeof b, "tricky/pngsuite/basn%s.png", types[i]);
        wt_image ia = load_ok(corpus(a)), ib = load_ok(corpus(b));
        assert_images_equal(&ia, &ib);
        wt_image_free(&ia);
        wt_image_free(&ib);
    }
}

/* 16-bit samples come back as native integers (big-endian in the file). */
void test_png_16bit_native(void **state)
{
    (void)state;
    wt_image img;
    assert_int_equal(wt_image_alloc(&img, 2, 1, 1, 16), WT_OK);
    ((uint16_t *)img.pixels)[0] = 0x0102;
    ((uint16_t *)img.pixels)[1] = 65535;
    const char *path = scratch("s16.png");
    assert_int_equal(wt_image_save(path, &img, NULL, WT_FORMAT_UNKNOWN), WT_OK);
    wt_image back = load_ok(path);
    assert_int_equal(((uint16_t *)back.pixels)[0], 0x0102);
    assert_int_equal(((uint16_t *)back.pixels)[1], 65535);
    wt_image_free(&img);
    wt_image_free(&back);
}

static uint8_t *encode_png(size_t *size)
{
    wt_image img;
    random_image(&img, 40, 30, 3, 8);
    const char *path = scratch("src.png");
    assert_int_equal(wt_image_save(path, &img, NULL, WT_FORMAT_UNKNOWN), WT_OK);
    wt_image_free(&img);
    return read_file(path, size);
}

void test_png_truncated(void **state)
{
    (void)state;
    size_t size;
    uint8_t *png = encode_png(&size);
    wt_image img;
    size_t cuts[] = {9, 20, 33, size / 2, size - 13, size - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        assert_int_equal(wt_image_load_memory(png, cuts[i], "cut.png", NULL, &img), WT_ERR_FORMAT);
        assert_message_has("cut.png: ");
    }
    assert_int_equal(wt_image_load_memory(png, size / 2, "cut.png", NULL, &img), WT_ERR_FORMAT);
    assert_string_equal(wt_error_message(), "cut.png: truncated PNG data");
    /* through a file: the message names the path */
    const char *path = scratch("half.png");
    write_file(path, png, size / 2);
    assert_int_equal(wt_image_load(path, NULL, &img), WT_ERR_FORMAT);
    assert_message_has(path);
    assert_message_has("truncated PNG data");
    /* lenient: only a missing trailer (IEND) is forgiven */
    wt_load_options lenient = {.lenient = 1};
    assert_int_equal(wt_image_load_memory(png, size - 1, "cut.png", &lenient, &img), WT_OK);
    wt_image_free(&img);
    assert_int_equal(wt_image_load_memory(png, size / 2, "cut.png", &lenient, &img),
                     WT_ERR_FORMAT);
    free(png);
}

void test_png_corrupt(void **state)
{
    (void)state;
    size_t size;
    uint8_t *png = encode_png(&size);
    wt_image img;
    png[size / 2] ^= 0x55; /* inside IDAT: CRC error */
    assert_int_equal(wt_image_load_memory(png, size, "bad.png", NULL, &img), WT_ERR_FORMAT);
    assert_message_has("bad.png: corrupt PNG (");
    free(png);
    assert_int_equal(wt_image_load(corpus("bad/libpng-crashers/badadler.png"), NULL, &img),
                     WT_ERR_FORMAT);
    assert_message_has("badadler.png: corrupt PNG (IDAT: incorrect data check)");
    assert_int_equal(wt_image_load(corpus("bad/png/too_much_image_data.png"), NULL, &img),
                     WT_ERR_FORMAT);
    wt_load_options lenient = {.lenient = 1};
    assert_int_equal(wt_image_load(corpus("bad/png/too_much_image_data.png"), &lenient, &img),
                     WT_OK);
    wt_image_free(&img);
}

void test_png_bombs(void **state)
{
    (void)state;
    wt_image img;
    double t0 = wt_seconds();
    /* 16000x12000 RGBA16 (1.5 GB) in 1.5 MB: refused from the header */
    wt_load_options opt = {.max_pixels = 100000000};
    assert_int_equal(wt_image_load(corpus("bad/png/bomb_16000x12000_rgba16_1.5GB.png"), &opt,
                                   &img),
                     WT_ERR_LIMIT);
    assert_message_has("bomb_16000x12000_rgba16_1.5GB.png: 16000x12000 pixels exceeds the "
                       "limit of 100000000 (--max-pixels)");
    assert_null(img.pixels);
    /* 65535x65535 with the default limit */
    assert_int_equal(wt_image_load(corpus("bad/png/dim_65535x65535_rgba16_tiny_idat.png"), NULL,
                                   &img),
                     WT_ERR_LIMIT);
    /* 2^31-1 wide: libpng's own per-side limit */
    assert_int_equal(wt_image_load(corpus("bad/png/dim_width_2pow31m1_1row.png"), NULL, &img),
                     WT_ERR_LIMIT);
    assert_true(wt_seconds() - t0 < 2.0);
}

/* ---- JPEG ----------------------------------------------------------------- */

void test_jpeg_decode(void **state)
{
    (void)state;
    expect_layout("tricky/jpeg/grayscale_from_color_451x300.jpg", 451, 300, 1, 8);
    expect_layout("tricky/jpeg/baseline_420_q75_451x300.jpg", 451, 300, 3, 8);
    expect_layout("tricky/jpeg/progressive_451x300.jpg", 451, 300, 3, 8);
    expect_layout("tricky/jpeg/arithmetic_progressive_451x300.jpg", 451, 300, 3, 8);
    expect_layout("tricky/jpeg/rgb_colorspace_no_ycc_451x300.jpg", 451, 300, 3, 8);
    expect_layout("tricky/jpeg/size_1x1.jpg", 1, 1, 3, 8);
    expect_layout("tricky/jpeg/size_17x9_partial_mcu.jpg", 17, 9, 3, 8);
    expect_layout("tricky/jpeg/trailing_garbage_after_eoi_451x300.jpg", 451, 300, 3, 8);
    /* the extension lies both ways: the magic bytes decide */
    expect_layout("tricky/jpeg/wrongext_png_named.jpg", 61, 47, 3, 8);
    wt_image img = load_ok(corpus("tricky/png/wrongext_jpeg_named.png"));
    wt_image_free(&img);
}

void test_jpeg_truncated(void **state)
{
    (void)state;
    size_t size;
    uint8_t *jpg = read_file(corpus("tricky/jpeg/baseline_420_q75_451x300.jpg"), &size);
    wt_image img;
    assert_int_equal(wt_image_load_memory(jpg, size / 2, "x.jpg", NULL, &img), WT_ERR_FORMAT);
    assert_string_equal(wt_error_message(), "x.jpg: truncated JPEG data");
    assert_null(img.pixels);
    assert_int_equal(wt_image_load_memory(jpg, 2, "x.jpg", NULL, &img), WT_ERR_FORMAT);
    assert_string_equal(wt_error_message(), "x.jpg: truncated JPEG data");
    assert_int_equal(wt_image_load_memory(jpg, 300, "x.jpg", NULL, &img), WT_ERR_FORMAT);
    assert_message_has("x.jpg: ");
    /* lenient: libjpeg fills in the missing part */
    wt_load_options lenient = {.lenient = 1};
    assert_int_equal(wt_image_load_memory(jpg, size / 2, "x.jpg", &lenient, &img), WT_OK);
    assert_int_equal(img.width, 451);
    wt_image_free(&img);
    free(jpg);
    assert_int_equal(wt_image_load(corpus("bad/jpeg/missing_eoi.jpg"), NULL, &img), WT_ERR_FORMAT);
    assert_message_has("missing_eoi.jpg: truncated JPEG data");
    assert_int_equal(wt_image_load(corpus("bad/jpeg/bogus_app0_length_1.jpg"), NULL, &img),
                     WT_ERR_FORMAT);
    assert_message_has("bogus_app0_length_1.jpg: corrupt JPEG (14 extraneous bytes");
}

/* An 8x8 JPEG of @p components made by libjpeg, in @p space; with @p scans a
 * custom progressive script. Returns malloc'ed bytes. */
static uint8_t *make_jpeg(int components, J_COLOR_SPACE space, const jpeg_scan_info *scans,
                          int nscans, size_t *size)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    unsigned char *buf = NULL;
    unsigned long len = 0;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &buf, &len);
    c.image_width = 8;
    c.image_height = 8;
    c.input_components = components;
    c.in_color_space = space;
    jpeg_set_defaults(&c);
    if (scans) {
        c.scan_info = scans;
        c.num_scans = nscans;
    }
    jpeg_start_compress(&c, TRUE);
    JSAMPLE row[8 * 4];
    for (int i = 0; i < 8 * 4; i++)
        row[i] = (JSAMPLE)(i * 7);
    while (c.next_scanline < 8) {
        JSAMPROW r = row;
        jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    uint8_t *out = malloc(len);
    memcpy(out, buf, len);
    free(buf);
    *size = len;
    return out;
}

void test_jpeg_unsupported(void **state)
{
    (void)state;
    size_t size;
    uint8_t *cmyk = make_jpeg(4, JCS_CMYK, NULL, 0, &size);
    wt_image img;
    assert_int_equal(wt_image_load_memory(cmyk, size, "x.jpg", NULL, &img), WT_ERR_UNSUPPORTED);
    assert_string_equal(wt_error_message(), "x.jpg: CMYK JPEG is not supported");
    free(cmyk);
    assert_int_equal(wt_image_load(corpus("tricky/jpeg/testorig12.jpg"), NULL, &img),
                     WT_ERR_UNSUPPORTED);
    assert_message_has("testorig12.jpg: unsupported precision (12-bit JPEG)");
}

/* A valid progressive script with the most scans libjpeg allows: DC and each
 * AC coefficient of each component coded bit by bit (Al 10..0). */
static int long_scan_script(jpeg_scan_info *s, int components)
{
    int n = 0;
    for (int al = 10; al >= 0; al--, n++) {
        s[n] = (jpeg_scan_info){.comps_in_scan = components, .Ss = 0, .Se = 0,
                                .Ah = al == 10 ? 0 : al + 1, .Al = al};
        for (int c = 0; c < components; c++)
            s[n].component_index[c] = c;
    }
    for (int c = 0; c < components; c++)
        for (int k = 1; k < 64; k++)
            for (int al = 10; al >= 0; al--, n++)
                s[n] = (jpeg_scan_info){.comps_in_scan = 1, .component_index = {c}, .Ss = k,
                                        .Se = k, .Ah = al == 10 ? 0 : al + 1, .Al = al};
    return n;
}

void test_jpeg_scan_limit(void **state)
{
    (void)state;
    static jpeg_scan_info script[11 + 3 * 63 * 11];
    int nscans = long_scan_script(script, 3);
    assert_int_equal(nscans, 2090);
    size_t size;
    uint8_t *jpg = make_jpeg(3, JCS_RGB, script, nscans, &size);
    wt_image img;
    double t0 = wt_seconds();
    assert_int_equal(wt_image_load_memory(jpg, size, "scans.jpg", NULL, &img), WT_ERR_LIMIT);
    assert_string_equal(wt_error_message(), "scans.jpg: JPEG has more than 1000 scans (limit)");
    assert_true(wt_seconds() - t0 < 2.0);
    wt_load_options opt = {.max_scans = 2090};
    assert_int_equal(wt_image_load_memory(jpg, size, "scans.jpg", &opt, &img), WT_OK);
    wt_image_free(&img);
    free(jpg);
    /* a real 51-scan file is well within the default */
    img = load_ok(corpus("tricky/jpeg/progressive_many_scans_50_valid_4096x4096.jpg"));
    wt_image_free(&img);
}

/* A scan bomb: the last scan of a small progressive JPEG repeated until the
 * file has 25,001 scans. libjpeg warns about each repeat (lenient ignores
 * that) and would decode them all. */
static uint8_t *make_scan_bomb(size_t *size)
{
    static jpeg_scan_info script[11 + 63 * 11];
    int n = long_scan_script(script, 1);
    size_t len;
    uint8_t *base = make_jpeg(1, JCS_GRAYSCALE, script, n, &len);
    size_t sos = 0;
    for (size_t i = 0; i + 1 < len; i++)
        if (base[i] == 0xff && base[i + 1] == 0xda)
            sos = i;
    size_t scan_len = len - 2 - sos; /* up to EOI */
    int repeats = 25001 - n;
    uint8_t *bomb = malloc(len + (size_t)repeats * scan_len);
    memcpy(bomb, base, len - 2);
    size_t pos = len - 2;
    for (int r = 0; r < repeats; r++, pos += scan_len)
        memcpy(bomb + pos, base + sos, scan_len);
    bomb[pos++] = 0xff;
    bomb[pos++] = 0xd9;
    free(base);
    *size = pos;
    return bomb;
}

void test_jpeg_scan_bomb(void **state)
{
    (void)state;
    size_t size;
    uint8_t *bomb = make_scan_bomb(&size);
    wt_image img;
    wt_load_options lenient = {.lenient = 1};
    double t0 = wt_seconds();
    assert_int_equal(wt_image_load_memory(bomb, size, "bomb.jpg", &lenient, &img), WT_ERR_LIMIT);
    assert_message_has("bomb.jpg: JPEG has more than 1000 scans");
    /* strict: the first repeated scan is already an error */
    wt_status st = wt_image_load_memory(bomb, size, "bomb.jpg", NULL, &img);
    assert_true(st == WT_ERR_FORMAT || st == WT_ERR_LIMIT);
    assert_message_has("bomb.jpg: ");
    assert_true(wt_seconds() - t0 < 2.0);
    free(bomb);
}

/* Sample types (issue 16): rounding and clamping to each stored type's range,
 * conversions between held depths, and which formats hold what. */
void test_sample_types(void **state)
{
    (void)state;
    wt_sample_type i16 = {WT_SAMPLE_INT, 16}, u32 = {WT_SAMPLE_UINT, 32};
    wt_sample_type i32 = {WT_SAMPLE_INT, 32}, f32 = {WT_SAMPLE_FLOAT, 32};
    assert_true(wt_sample_clamp(i16, -40000.0) == -32768.0);
    assert_true(wt_sample_clamp(i16, 32767.6) == 32767.0);
    assert_true(wt_sample_clamp(i16, 2.5) == 2.0); /* half to even */
    assert_true(wt_sample_clamp(i16, -3.5) == -4.0);
    assert_true(wt_sample_clamp(u32, -1.0) == 0.0);
    assert_true(wt_sample_clamp(u32, 5e9) == 4294967295.0);
    assert_true(wt_sample_clamp(i32, -3e9) == -2147483648.0);
    assert_true(wt_sample_clamp(i16, NAN) == 0.0);
    assert_true(wt_sample_clamp(f32, 1e30) == 1e30);
    char name[16];
    assert_string_equal(wt_sample_type_name(i16, name, sizeof name), "int16");
    assert_int_equal(wt_sample_type_depth(i16), WT_DEPTH_F32);
    assert_int_equal(wt_sample_type_depth((wt_sample_type){WT_SAMPLE_UINT, 16}), 16);

    wt_image img, held, back;
    assert_int_equal(wt_image_alloc(&img, 3, 1, 1, WT_DEPTH_F32), WT_OK);
    img.stored = i16;
    float *px = img.pixels;
    px[0] = -7.25f, px[1] = 300.5f, px[2] = 70000.0f;
    assert_int_equal(wt_image_stored(&img).bits, 16);
    assert_int_equal(wt_image_convert(&img, (wt_sample_type){WT_SAMPLE_UINT, 8}, &held), WT_OK);
    assert_int_equal(held.bit_depth, 8);
    const uint8_t *u8 = held.pixels;
    assert_int_equal(u8[0], 0);
    assert_int_equal(u8[1], 255);
    assert_int_equal(wt_image_convert(&held, i16, &back), WT_OK);
    assert_int_equal(back.bit_depth, WT_DEPTH_F32);
    assert_int_equal(back.stored.kind, WT_SAMPLE_INT);
    assert_true(((float *)back.pixels)[1] == 255.0f);

    /* PNG and JPEG hold uint8/16 of 1-4 channels; TIFF and .npy every type */
    wt_file_format tif = wt_format_from_ext("tif"), npy = wt_format_from_ext("npy");
    assert_int_equal(wt_image_check_holds(WT_FORMAT_PNG, "x.png", i16, 1), WT_ERR_UNSUPPORTED);
    assert_message_has("x.png: PNG holds 8/16-bit unsigned samples, not int16");
    assert_int_equal(wt_image_check_holds(WT_FORMAT_JPEG, "x.jpg", held.stored, 6),
                     WT_ERR_UNSUPPORTED);
    assert_int_equal(wt_image_check_holds(tif, "x.tif", i16, 64), WT_OK);
    assert_int_equal(wt_image_check_holds(npy, "x.npy", f32, 7), WT_OK);
    assert_int_equal(wt_image_save(scratch("x.png"), &img, NULL, WT_FORMAT_UNKNOWN),
                     WT_ERR_UNSUPPORTED);
    assert_int_equal(access(scratch("x.png"), F_OK), -1); /* nothing written */

    /* a float32-held int16 image through TIFF: clamped on writing, int16 back */
    assert_int_equal(wt_image_save(scratch("i16.tif"), &img, NULL, WT_FORMAT_UNKNOWN), WT_OK);
    wt_image_free(&back);
    back = load_ok(scratch("i16.tif"));
    assert_int_equal(back.bit_depth, WT_DEPTH_F32);
    assert_int_equal(back.stored.kind, WT_SAMPLE_INT);
    assert_int_equal(back.stored.bits, 16);
    px = back.pixels;
    assert_true(px[0] == -7.0f && px[1] == 300.0f && px[2] == 32767.0f);
    wt_image_free(&img);
    wt_image_free(&held);
    wt_image_free(&back);
}

/* ---- Netpbm ----------------------------------------------------------------- */

/* @p text (a Netpbm file) decoded: @p n samples of @p depth bits. */
static void assert_pnm_samples(const char *text, size_t size, int depth, const unsigned *want,
                               size_t n)
{
    wt_image img;
    assert_int_equal(wt_image_load_memory(text, size, "t.pgm", NULL, &img), WT_OK);
    assert_int_equal(img.bit_depth, depth);
    assert_int_equal((size_t)img.width * img.height * (size_t)img.channels, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(depth == 8 ? ((uint8_t *)img.pixels)[i] : ((uint16_t *)img.pixels)[i],
                         want[i]);
    wt_image_free(&img);
}

/* maxval other than 255/65535 scaled as pamdepth: (v * top + maxval / 2) / maxval,
 * halves up (5 of 10 -> 127.5 -> 128, 3 of 10 -> 76.5 -> 77); 16-bit big-endian. */
void test_pnm_samples(void **state)
{
    (void)state;
    static const char p2[] = "P2 # c\n4 1\n10\n0 3 5 10\n";
    assert_pnm_samples(p2, sizeof p2 - 1, 8, (const unsigned[]){0, 77, 128, 255}, 4);
    static const char p5[] = "P5\n2 1\n65535\n\x01\x02\xff\xfe";
    assert_pnm_samples(p5, sizeof p5 - 1, 16, (const unsigned[]){0x0102, 0xfffe}, 2);
    static const char p6[] = "P6\n1 1\n1000\n\x00\x01\x01\xf4\x03\xe8";
    assert_pnm_samples(p6, sizeof p6 - 1, 16, (const unsigned[]){66, 32768, 65535}, 3);
    static const char p3[] = "P3\n1 1\n255\n1\n2\n3";
    assert_pnm_samples(p3, sizeof p3 - 1, 8, (const unsigned[]){1, 2, 3}, 3);
    wt_image img;
    static const char high[] = "P2\n1 1\n10\n11\n";
    assert_int_equal(wt_image_load_memory(high, sizeof high - 1, "h.pgm", NULL, &img),
                     WT_ERR_FORMAT);
    assert_message_has("h.pgm: corrupt Netpbm data (sample 11 above maxval 10)");
    assert_null(img.pixels);
}

void test_jpeg_encode(void **state)
{
    (void)state;
    for (int c = 1; c <= 4; c++) {
        wt_image img, back;
        assert_int_equal(wt_image_alloc(&img, 37, 21, c, 8), WT_OK);
        uint8_t *p = img.pixels;
        for (uint32_t i = 0; i < 37 * 21; i++)
            for (int ch = 0; ch < c; ch++)
                p[i * (uint32_t)c + (uint32_t)ch] =
                    (uint8_t)((i % 37) * 3 + (i / 37) * 5 + (uint32_t)ch * 20);
        wt_save_options opt = {.jpeg_quality = 100};
        const char *path = scratch("q.JPG");
        assert_int_equal(wt_image_save(path, &img, &opt, WT_FORMAT_UNKNOWN), WT_OK);
        back = load_ok(path);
        int want = c <= 2 ? 1 : 3; /* alpha dropped */
        assert_int_equal(back.channels, want);
        assert_int_equal(back.width, 37);
        double err = 0;
        const uint8_t *q = back.pixels;
        for (uint32_t i = 0; i < 37 * 21; i++)
            for (int ch = 0; ch < want; ch++)
                err += fabs((double)q[i * (uint32_t)want + (uint32_t)ch] -
                            p[i * (uint32_t)c + (uint32_t)ch]);
        assert_true(err / (37.0 * 21 * want) < 2.0);
        wt_image_free(&img);
        wt_image_free(&back);
    }
    wt_image deep;
    random_image(&deep, 4, 4, 3, 16);
    assert_int_equal(wt_image_save(scratch("deep.jpg"), &deep, NULL, WT_FORMAT_UNKNOWN),
                     WT_ERR_UNSUPPORTED);
    assert_message_has("deep.jpg: JPEG needs 8-bit samples");
    wt_image_free(&deep);
    assert_int_equal(count_entries(work_dir), 1); /* q.JPG only */
}

/* ---- file errors ---------------------------------------------------------- */

void test_load_errors(void **state)
{
    (void)state;
    wt_image img;
    const char *missing = scratch("missing.png");
    assert_int_equal(wt_image_load(missing, NULL, &img), WT_ERR_IO);
    char want[600];
    snprintf(want, sizeof want, "%s: No such file or directory", missing);
    assert_string_equal(wt_error_message(), want);
    assert_int_equal(wt_image_load(work_dir, NULL, &img), WT_ERR_IO);
    snprintf(want, sizeof want, "%s: is a directory", work_dir);
    assert_string_equal(wt_error_message(), want);
    const char *empty = scratch("empty.png");
    write_file(empty, "", 0);
    assert_int_equal(wt_image_load(empty, NULL, &img), WT_ERR_FORMAT);
    assert_message_has("empty.png: empty file");
    const char *text = scratch("text.png");
    write_file(text, "hello, world\n", 13);
    assert_int_equal(wt_image_load(text, NULL, &img), WT_ERR_FORMAT);
    assert_message_has("text.png: not a PNG, JPEG, TIFF, NPY or Netpbm image");
    assert_null(img.pixels);
    const char *zip = scratch("coeffs.png");
    write_file(zip, "PK\x03\x04", 4);
    assert_int_equal(wt_image_load(zip, NULL, &img), WT_ERR_FORMAT);
    assert_message_has("coeffs.png: NPZ holds wavelet coefficients, not an image");
    write_file(zip, "\x89PN", 3);
    assert_int_equal(wt_image_load(zip, NULL, &img), WT_ERR_FORMAT);
    assert_message_has("coeffs.png: truncated PNG data");
}

void test_save_errors(void **state)
{
    (void)state;
    wt_image img;
    random_image(&img, 3, 3, 3, 8);
    assert_int_equal(wt_image_save(scratch("out.bmp"), &img, NULL, WT_FORMAT_PNG),
                     WT_ERR_INVALID);
    assert_message_has("out.bmp: unknown output format (use .png, .jpg, .jpeg, .npz, .tif, .tiff, .npy, .pgm, .ppm or .pnm)");
    assert_int_equal(wt_image_save(scratch("no/such/dir/x.png"), &img, NULL, WT_FORMAT_PNG),
                     WT_ERR_IO);
    assert_message_has("no/such/dir/x.png: No such file or directory");
    assert_int_equal(count_entries(work_dir), 0);
    wt_image_free(&img);
}
