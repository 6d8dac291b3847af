/* Unit tests of the file layer: PNG and JPEG decoding/encoding (exactness,
 * limits, corrupt input), atomic output files, .npz coefficient files (round
 * trips, ZIP64, hostile files). Usage: test_io CORPUS_DIR (tests/corpus). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jpeglib.h>
#include <zlib.h>

#include "wavetool_hooks.h"
#include "wavetool.h"

static const char *corpus_dir;
static char work_dir[256];

/* ---- helpers ------------------------------------------------------------ */

/* @p dir/@p name (in one of a few rotating buffers). */
static const char *path_in(const char *dir, const char *name)
{
    static char bufs[8][512];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

/* A path in the scratch directory. */
static const char *scratch(const char *name)
{
    return path_in(work_dir, name);
}

static const char *corpus(const char *rel)
{
    return path_in(corpus_dir, rel);
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static uint32_t rand32(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 2685821657736338717ull) >> 32);
}

static void random_image(wt_image *img, uint32_t w, uint32_t h, int channels, int depth)
{
    assert_int_equal(wt_image_alloc(img, w, h, channels, depth), WT_OK);
    size_t n = wt_image_bytes(img);
    for (size_t i = 0; i < n; i++)
        ((uint8_t *)img->pixels)[i] = (uint8_t)rand32();
}

static void assert_images_equal(const wt_image *a, const wt_image *b)
{
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->height, b->height);
    assert_int_equal(a->channels, b->channels);
    assert_int_equal(a->bit_depth, b->bit_depth);
    assert_int_equal(a->color, b->color);
    assert_memory_equal(a->pixels, b->pixels, wt_image_bytes(a));
}

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc((size_t)n + 1);
    assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return data;
}

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

/* Entries of a directory other than . and .. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void make_dir(const char *path)
{
    assert_int_equal(mkdir(path, 0755), 0);
}

/* Empty the scratch directory (files only; tests make at most one level). */
static void clean_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            chmod(p, 0755);
            clean_dir(p);
            rmdir(p);
        } else {
            unlink(p);
        }
    }
    closedir(d);
}

static int teardown_clean(void **state)
{
    (void)state;
    clean_dir(work_dir);
    return 0;
}

#define assert_message_has(text) assert_non_null(strstr(wt_error_message(), (text)))

static wt_image load_ok(const char *path)
{
    wt_image img;
    wt_status st = wt_image_load(path, NULL, &img);
    if (st != WT_OK)
        fail_msg("%s: %s", path, wt_error_message());
    return img;
}

/* ---- formats ------------------------------------------------------------ */

static void test_format_from_path(void **state)
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
static void test_format_registry(void **state)
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
static void test_format_capabilities(void **state)
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
static void test_tiff_level(void **state)
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

static void test_png_roundtrip_8bit(void **state)
{
    (void)state;
    png_roundtrip(8);
}

static void test_png_roundtrip_16bit(void **state)
{
    (void)state;
    png_roundtrip(16);
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

static void test_png_low_bit_gray(void **state)
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

static void test_png_color_types(void **state)
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
static void test_png_interlaced_equals_plain(void **state)
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
static void test_png_16bit_native(void **state)
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

static void test_png_truncated(void **state)
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

static void test_png_corrupt(void **state)
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

static void test_png_bombs(void **state)
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

static void test_jpeg_decode(void **state)
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

static void test_jpeg_truncated(void **state)
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

static void test_jpeg_unsupported(void **state)
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

static void test_jpeg_scan_limit(void **state)
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

static void test_jpeg_scan_bomb(void **state)
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
static void test_sample_types(void **state)
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
static void test_pnm_samples(void **state)
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

static void test_jpeg_encode(void **state)
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

static void test_load_errors(void **state)
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

static void test_save_errors(void **state)
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

/* ---- atomic outputs ------------------------------------------------------- */

/* The one temporary file in @p dir (".name.XXXXXX"), or "" */
static const char *temp_in(const char *dir, char *out, size_t cap)
{
    DIR *d = opendir(dir);
    out[0] = '\0';
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            snprintf(out, cap, "%s", e->d_name);
    closedir(d);
    return out;
}

static void test_outfile_commit(void **state)
{
    (void)state;
    const char *path = scratch("out.png");
    write_file(path, "old", 3);
    wt_outfile f;
    assert_int_equal(wt_outfile_open(&f, path), WT_OK);
    char tmp[256];
    assert_int_equal(strncmp(temp_in(work_dir, tmp, sizeof tmp), ".out.png.", 9), 0);
    fputs("new contents", f.fp);
    size_t n;
    uint8_t *old = read_file(path, &n); /* untouched until the commit */
    assert_memory_equal(old, "old", 3);
    free(old);
    assert_int_equal(wt_outfile_commit(&f), WT_OK);
    uint8_t *data = read_file(path, &n);
    assert_int_equal(n, 12);
    assert_memory_equal(data, "new contents", 12);
    free(data);
    assert_int_equal(count_entries(work_dir), 1);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    mode_t mask = umask(0);
    umask(mask);
    assert_int_equal(st.st_mode & 0777, 0666 & ~mask);
}

static void test_outfile_abort(void **state)
{
    (void)state;
    const char *path = scratch("keep.png");
    write_file(path, "old", 3);
    wt_outfile f;
    assert_int_equal(wt_outfile_open(&f, path), WT_OK);
    fputs("partial", f.fp);
    wt_outfile_abort(&f);
    assert_int_equal(count_entries(work_dir), 1);
    size_t n;
    uint8_t *data = read_file(path, &n);
    assert_memory_equal(data, "old", 3);
    free(data);
    /* a new name: nothing at all */
    assert_int_equal(wt_outfile_open(&f, scratch("new.png")), WT_OK);
    wt_outfile_abort(&f);
    assert_int_equal(count_entries(work_dir), 1);
}

/* The program's hooks see every temporary file made and let go of. */
static int hook_created, hook_forgotten;
static int counting_create(char *tmpl, int *token)
{
    *token = 100 + hook_created++;
    return mkstemp(tmpl);
}
static void counting_forget(const char *tmpl, int token)
{
    (void)tmpl;
    assert_true(token >= 100 && token < 100 + hook_created);
    hook_forgotten++;
}

static void test_outfile_temp_hooks(void **state)
{
    (void)state;
    static const wt_temp_hooks counting = {counting_create, counting_forget};
    wt_outfile a, b;
    wt_outfile_set_temp_hooks(&counting);
    assert_int_equal(wt_outfile_open(&a, scratch("a.png")), WT_OK);
    assert_int_equal(wt_outfile_open(&b, scratch("b.png")), WT_OK);
    assert_int_equal(hook_created, 2);
    assert_int_equal(hook_forgotten, 0);
    assert_int_equal(wt_outfile_commit(&a), WT_OK);
    wt_outfile_abort(&b);
    assert_int_equal(hook_forgotten, 2);
    wt_outfile_set_temp_hooks(NULL);
    assert_int_equal(count_entries(work_dir), 1);
    unlink(scratch("a.png"));
}

/* With the standard descriptors closed, a temporary file still gets none of
 * them (messages written to fd 1 or 2 would land in an output). */
static void test_outfile_standard_fds(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(0);
        close(1);
        close(2);
        wt_outfile f;
        if (wt_outfile_open(&f, scratch("fd.png")) != WT_OK)
            _exit(1);
        int fd = fileno(f.fp);
        wt_outfile_abort(&f);
        _exit(fd > 2 ? 0 : 2);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(count_entries(work_dir), 0);
}

static void test_outfile_errors(void **state)
{
    (void)state;
    wt_outfile f;
    make_dir(scratch("sub"));
    assert_int_equal(wt_outfile_open(&f, scratch("sub")), WT_ERR_IO);
    assert_message_has("sub: is a directory");
    assert_int_equal(wt_outfile_open(&f, scratch("none/x.png")), WT_ERR_IO);
    assert_message_has("none/x.png: No such file or directory");
    if (geteuid() != 0) { /* root writes anywhere */
        const char *ro = scratch("ro");
        make_dir(ro);
        chmod(ro, 0555);
        assert_int_equal(wt_outfile_open(&f, scratch("ro/x.png")), WT_ERR_IO);
        assert_message_has("ro/x.png: Permission denied");
        assert_int_equal(count_entries(ro), 0);
    }
}

/* A write that fails (file size limit: EFBIG) fails the commit, leaves nothing. */
static void test_outfile_write_failure(void **state)
{
    (void)state;
    struct rlimit saved, small;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
    small = saved;
    small.rlim_cur = 4096;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    wt_outfile f;
    const char *path = scratch("big.png");
    wt_status open_st = wt_outfile_open(&f, path), commit_st = WT_ERR_INVALID;
    if (open_st == WT_OK) {
        static char block[65536];
        fwrite(block, 1, sizeof block, f.fp);
        commit_st = wt_outfile_commit(&f);
    }
    setrlimit(RLIMIT_FSIZE, &saved);
    signal(SIGXFSZ, old_handler);
    assert_int_equal(open_st, WT_OK);
    assert_int_equal(commit_st, WT_ERR_IO);
    assert_message_has("big.png: File too large");
    assert_int_equal(count_entries(work_dir), 0);
    /* the same through the image writer */
    wt_image img;
    random_image(&img, 300, 300, 3, 8);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    signal(SIGXFSZ, SIG_IGN);
    wt_status st = wt_image_save(path, &img, NULL, WT_FORMAT_UNKNOWN);
    setrlimit(RLIMIT_FSIZE, &saved);
    signal(SIGXFSZ, old_handler);
    assert_int_equal(st, WT_ERR_IO);
    assert_message_has("big.png: File too large");
    assert_int_equal(count_entries(work_dir), 0);
    wt_image_free(&img);
}

static void test_same_file(void **state)
{
    (void)state;
    const char *a = scratch("a.png"), *b = scratch("b.png"), *hard = scratch("hard.png");
    write_file(a, "x", 1);
    write_file(b, "x", 1);
    assert_int_equal(link(a, hard), 0);
    assert_true(wt_same_file(a, a));
    assert_true(wt_same_file(a, hard));
    char dotted[600];
    snprintf(dotted, sizeof dotted, "%s/./a.png", work_dir);
    assert_true(wt_same_file(a, dotted));
    assert_false(wt_same_file(a, b));
    assert_false(wt_same_file(a, scratch("missing.png")));
}

/* ---- .npz ------------------------------------------------------------------- */

static void forward_random(wt_pyramid *pyr, const char *wavelet, wt_mode mode, int levels,
                           int channels, size_t h, size_t w)
{
    wt_params p = {wt_wavelet_find(wavelet), mode, WT_METHOD_AUTO, levels};
    assert_non_null(p.wavelet);
    assert_int_equal(wt_params_resolve(&p), WT_OK);
    size_t n = (size_t)channels * h * w;
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(rand32() % 256);
    wt_engine *e;
    assert_int_equal(wt_engine_open(&e, "cpu"), WT_OK);
    assert_int_equal(wt_pyramid_alloc(pyr, &p, h, w, channels), WT_OK);
    assert_int_equal(wt_forward(e, &p, x, pyr), WT_OK);
    wt_engine_close(e);
    free(x);
}

static wt_npz_meta meta_for(const wt_pyramid *pyr, const char *wavelet, wt_mode mode,
                            wt_method method)
{
    wt_npz_meta m = {.mode = mode, .method = method, .levels = pyr->levels,
                     .width = (uint32_t)pyr->width, .height = (uint32_t)pyr->height,
                     .channels = pyr->channels, .bit_depth = 8,
                     .color = (wt_color)pyr->channels};
    snprintf(m.wavelet, sizeof m.wavelet, "%s", wavelet);
    return m;
}

static void npz_roundtrip(const char *wavelet, wt_mode mode, wt_method method, int levels,
                          int channels, size_t h, size_t w)
{
    wt_pyramid pyr, back;
    forward_random(&pyr, wavelet, mode, levels, channels, h, w);
    wt_npz_meta meta = meta_for(&pyr, wavelet, mode, method), got;
    const char *path = scratch("c.npz");
    assert_int_equal(wt_npz_save(path, &pyr, &meta), WT_OK);
    if (wt_npz_load(path, &back, &got) != WT_OK)
        fail_msg("%s", wt_error_message());
    assert_int_equal(back.dtype, pyr.dtype);
    assert_int_equal(back.total, pyr.total);
    assert_int_equal(back.levels, levels);
    assert_memory_equal(back.data, pyr.data, pyr.total * 4);
    assert_string_equal(got.wavelet, wavelet);
    assert_int_equal(got.mode, mode);
    assert_int_equal(got.method, method);
    assert_int_equal(got.width, w);
    assert_int_equal(got.height, h);
    assert_int_equal(got.channels, channels);
    assert_int_equal(got.color, channels);
    assert_int_equal(got.bit_depth, 8);
    wt_pyramid_free(&pyr);
    wt_pyramid_free(&back);
}

static void test_npz_roundtrip(void **state)
{
    (void)state;
    npz_roundtrip("haar", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 3, 3, 37, 50);
    npz_roundtrip("db4", WT_MODE_PERIODIZATION, WT_METHOD_CONV, 2, 1, 1, 1);
    npz_roundtrip("sym5", WT_MODE_ZERO, WT_METHOD_CONV, 4, 4, 64, 33);
    npz_roundtrip("cdf97", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 3, 2, 29, 31);
    npz_roundtrip("legall53", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 5, 3, 41, 40);
    npz_roundtrip("legall53", WT_MODE_PERIODIZATION, WT_METHOD_LIFTING, 1, 1, 2, 3);
    npz_roundtrip("haar", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 0, 1, 5, 7);
    assert_int_equal(count_entries(work_dir), 1);
}

/* ZIP64 records (forced on a small file) are written and read back. */
static void test_npz_zip64(void **state)
{
    (void)state;
    wt_npz_set_zip64_threshold(0);
    npz_roundtrip("db2", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 2, 3, 20, 21);
    size_t n;
    uint8_t *data = read_file(scratch("c.npz"), &n);
    wt_npz_set_zip64_threshold(0xffffffffu);
    int found = 0; /* the ZIP64 end-of-directory locator */
    for (size_t i = 0; i + 4 <= n; i++)
        found |= memcmp(data + i, "PK\x06\x07", 4) == 0;
    assert_true(found);
    free(data);
}

static uint8_t *save_small_npz(const char *path, size_t *size)
{
    wt_pyramid pyr;
    forward_random(&pyr, "haar", WT_MODE_SYMMETRIC, 2, 2, 6, 5);
    wt_npz_meta meta = meta_for(&pyr, "haar", WT_MODE_SYMMETRIC, WT_METHOD_CONV);
    assert_int_equal(wt_npz_save(path, &pyr, &meta), WT_OK);
    wt_pyramid_free(&pyr);
    return read_file(path, size);
}

/* Load @p data as a file; the status, with any message naming the file. */
static wt_status load_npz_bytes(const uint8_t *data, size_t size)
{
    const char *path = scratch("h.npz");
    write_file(path, data, size);
    wt_pyramid pyr;
    wt_npz_meta meta;
    wt_status st = wt_npz_load(path, &pyr, &meta);
    if (st == WT_OK)
        wt_pyramid_free(&pyr);
    else if (!strstr(wt_error_message(), "h.npz: "))
        fail_msg("message does not name the file: %s", wt_error_message());
    return st;
}

static void test_npz_truncated(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = save_small_npz(scratch("s.npz"), &size);
    for (size_t cut = 0; cut < size; cut++) {
        wt_status st = load_npz_bytes(data, cut);
        if (st != WT_ERR_FORMAT)
            fail_msg("cut at %zu: %d %s", cut, st, wt_error_message());
    }
    free(data);
}

static void test_npz_crc(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = save_small_npz(scratch("s.npz"), &size);
    uint8_t *npy = memmem(data, size, "\x93NUMPY", 6);
    uint8_t *cA = memchr(npy, '\n', 256) + 1; /* first member: cA, after its header */
    cA[5] ^= 1;
    assert_int_equal(load_npz_bytes(data, size), WT_ERR_FORMAT);
    assert_message_has("(CRC mismatch)");
    free(data);
}

/* Every single-byte change gives a clean result: loaded or a named error. */
static void test_npz_byte_flips(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = save_small_npz(scratch("s.npz"), &size);
    int loaded = 0;
    for (size_t i = 0; i < size; i++) {
        data[i] ^= 0xff;
        loaded += load_npz_bytes(data, size) == WT_OK;
        data[i] ^= 0xff;
    }
    /* only fields nobody reads load: versions, times, attributes, local copies */
    if (loaded >= (int)size / 3)
        fail_msg("%d of %zu byte flips loaded", loaded, size);
    free(data);
}

/* ---- hand-made hostile .npz files ---- */

typedef struct test_member {
    const char *name;
    const void *data;
    size_t size;
    int method;
} test_member;

static uint8_t *le16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return p + 2;
}

static uint8_t *le32(uint8_t *p, uint32_t v)
{
    return le16(le16(p, v & 0xffff), v >> 16);
}

/* The fields local and central zip headers share: flags, method, time and
 * date (0), CRC, sizes, name length. */
static uint8_t *zip_entry_fields(uint8_t *p, const test_member *m, uint32_t crc)
{
    p = le16(p, 0);
    p = le16(p, (unsigned)m->method);
    p = le32(p, 0);
    p = le32(p, crc);
    p = le32(p, (uint32_t)m->size);
    p = le32(p, (uint32_t)m->size);
    return le16(p, (unsigned)strlen(m->name));
}

/* A stored zip of @p members at @p path (correct CRCs unless told otherwise). */
static void make_zip(const char *path, const test_member *m, int n)
{
    uint8_t *out = malloc(1 << 20), *p = out;
    uint32_t offsets[16], crcs[16];
    for (int i = 0; i < n; i++) {
        size_t name_len = strlen(m[i].name);
        offsets[i] = (uint32_t)(p - out);
        crcs[i] = (uint32_t)crc32(0, m[i].data, (uInt)m[i].size);
        p = le32(p, 0x04034b50);
        p = le16(p, 20);
        p = zip_entry_fields(p, &m[i], crcs[i]);
        p = le16(p, 0);
        memcpy(p, m[i].name, name_len);
        p += name_len;
        memcpy(p, m[i].data, m[i].size);
        p += m[i].size;
    }
    uint8_t *cd = p;
    for (int i = 0; i < n; i++) {
        size_t name_len = strlen(m[i].name);
        p = le32(p, 0x02014b50);
        p = le16(p, 20);
        p = le16(p, 20);
        p = zip_entry_fields(p, &m[i], crcs[i]);
        p = le32(p, 0);
        p = le32(p, 0);
        p = le32(p, 0);
        p = le32(p, offsets[i]);
        memcpy(p, m[i].name, name_len);
        p += name_len;
    }
    uint32_t cd_size = (uint32_t)(p - cd), cd_offset = (uint32_t)(cd - out);
    p = le32(p, 0x06054b50);
    p = le32(p, 0);
    p = le16(p, (unsigned)n);
    p = le16(p, (unsigned)n);
    p = le32(p, cd_size);
    p = le32(p, cd_offset);
    p = le16(p, 0);
    write_file(path, out, (size_t)(p - out));
    free(out);
}

/* A .npy v1.0 member: header dict (padded) then @p data. */
static size_t make_npy(uint8_t *out, const char *dict, const void *data, size_t size)
{
    size_t len = strlen(dict), total = (10 + len + 1 + 63) / 64 * 64;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    le16(out + 8, (unsigned)(total - 10));
    memcpy(out + 10, dict, len);
    memset(out + 10 + len, ' ', total - 10 - len - 1);
    out[total - 1] = '\n';
    memcpy(out + total, data, size);
    return total + size;
}

typedef struct crafted {
    uint8_t meta[1024], bands[4][512];
    test_member members[6];
    int count;
} crafted;

static const char good_meta[] =
    "{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", \"levels\": 1, "
    "\"width\": 4, \"height\": 4, \"channels\": 1, \"bit_depth\": 8, \"color\": \"gray\"}";

/* A valid 1-level haar file of a 4x4 gray image, to be spoiled by each test. */
static void craft(crafted *c, const char *meta_json, const char *band_dict)
{
    static const float zeros[16];
    static const char *names[] = {"cA.npy", "cH1.npy", "cV1.npy", "cD1.npy"};
    char dict[256];
    snprintf(dict, sizeof dict, "{'descr': '|u1', 'fortran_order': False, 'shape': (%zu,), }",
             strlen(meta_json));
    size_t meta_size = make_npy(c->meta, dict, meta_json, strlen(meta_json));
    c->count = 0;
    for (int b = 0; b < 4; b++) {
        const char *d = band_dict && b == 1 ? band_dict
                                            : "{'descr': '<f4', 'fortran_order': False, "
                                              "'shape': (1, 2, 2), }";
        c->members[c->count++] = (test_member){names[b], c->bands[b],
                                               make_npy(c->bands[b], d, zeros, 16), 0};
    }
    c->members[c->count++] = (test_member){"meta.npy", c->meta, meta_size, 0};
}

static wt_status load_crafted(const crafted *c)
{
    const char *path = scratch("h.npz");
    make_zip(path, c->members, c->count);
    wt_pyramid pyr;
    wt_npz_meta meta;
    wt_status st = wt_npz_load(path, &pyr, &meta);
    if (st == WT_OK)
        wt_pyramid_free(&pyr);
    return st;
}

static void test_npz_crafted(void **state)
{
    (void)state;
    crafted c;
    craft(&c, good_meta, NULL);
    if (load_crafted(&c) != WT_OK)
        fail_msg("%s", wt_error_message());

    c.count--; /* no meta */
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("h.npz: not a wavetool coefficient file (no meta member)");

    craft(&c, good_meta, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 3), }");
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("h.npz: member cH1 has shape (1, 2, 3), expected (1, 2, 2)");

    craft(&c, good_meta,
          "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 65536, 65536), }");
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("h.npz: member cH1 has shape (1, 65536, 65536), expected (1, 2, 2)");

    craft(&c, good_meta,
          "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 2), }");
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("h.npz: member cH1 has a bad .npy header");

    craft(&c, good_meta,
          "{'descr': '<f4', 'fortran_order': False, "
          "'shape': (4294967296, 4294967296, 4294967296), }");
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);

    craft(&c, good_meta, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2, 2), }");
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("h.npz: member cH1 is not float32");

    craft(&c, good_meta, "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2, 2), }");
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("h.npz: member cH1 has a bad .npy header");

    craft(&c, good_meta, "{'descr': '<f4', 'shape': (1, 2, 2), }");
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);

    craft(&c, good_meta, NULL);
    c.members[3] = c.members[4]; /* drop cD1 */
    c.count--;
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("h.npz: member cD1 is missing");

    craft(&c, good_meta, NULL);
    c.members[2].name = "cH1.npy"; /* twice */
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("appears twice");

    craft(&c, good_meta, NULL);
    c.members[0].method = 8; /* stored bytes said to be deflated */
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("h.npz: member cA is damaged");

    craft(&c, good_meta, NULL);
    c.members[0].method = 12; /* bzip2 */
    assert_int_equal(load_crafted(&c), WT_ERR_UNSUPPORTED);
    assert_message_has("h.npz: member cA uses zip method 12");
}

static void expect_meta_error(const char *json, wt_status code, const char *text)
{
    crafted c;
    craft(&c, json, NULL);
    double t0 = wt_seconds();
    wt_status st = load_crafted(&c);
    if (st != code || !strstr(wt_error_message(), text))
        fail_msg("%s -> %d %s", json, st, wt_error_message());
    assert_true(wt_seconds() - t0 < 1.0);
}

static void test_npz_meta(void **state)
{
    (void)state;
    expect_meta_error("{", WT_ERR_FORMAT, "h.npz: unreadable meta member");
    expect_meta_error("[1, 2]", WT_ERR_FORMAT, "unreadable meta member");
    expect_meta_error("{\"wavelet\": \"haar\"}", WT_ERR_FORMAT, "unreadable meta member");
    expect_meta_error("{\"wavelet\": \"nope\", \"mode\": \"symmetric\", \"method\": \"conv\", "
                      "\"levels\": 1, \"width\": 4, \"height\": 4, \"channels\": 1, "
                      "\"bit_depth\": 8, \"color\": \"gray\"}",
                      WT_ERR_FORMAT, "h.npz: unknown wavelet 'nope'");
    expect_meta_error("{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", "
                      "\"levels\": 1, \"width\": -4, \"height\": 4, \"channels\": 1, "
                      "\"bit_depth\": 8, \"color\": \"gray\"}",
                      WT_ERR_FORMAT, "unreadable meta member");
    expect_meta_error("{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", "
                      "\"levels\": 1, \"width\": 4, \"height\": 4, \"channels\": 3, "
                      "\"bit_depth\": 8, \"color\": \"gray\"}",
                      WT_ERR_FORMAT, "impossible image description");
    expect_meta_error("{\"wavelet\": \"legall53\", \"mode\": \"zero\", \"method\": \"auto\", "
                      "\"levels\": 1, \"width\": 4, \"height\": 4, \"channels\": 1, "
                      "\"bit_depth\": 8, \"color\": \"gray\"}",
                      WT_ERR_FORMAT, "h.npz: wavelet legall53 supports modes");
    /* huge declared image: refused before any allocation */
    expect_meta_error("{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", "
                      "\"levels\": 1, \"width\": 30000, \"height\": 30000, "
                      "\"channels\": 1, \"bit_depth\": 16, \"color\": \"gray\"}",
                      WT_ERR_FORMAT, "needs more data than the file holds");
    /* the limits of every image read (issue 18 item 5) */
    expect_meta_error("{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", "
                      "\"levels\": 1, \"width\": 33000, \"height\": 33000, "
                      "\"channels\": 1, \"bit_depth\": 16, \"color\": \"gray\"}",
                      WT_ERR_LIMIT,
                      "h.npz: 33000x33000 pixels exceeds the limit of 1073741824 (--max-pixels)");
    expect_meta_error("{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", "
                      "\"levels\": 1, \"width\": 16777216, \"height\": 1, "
                      "\"channels\": 1, \"bit_depth\": 8, \"color\": \"gray\"}",
                      WT_ERR_LIMIT, "h.npz: 16777216x1: width and height must be below 2^24");
    expect_meta_error("{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", "
                      "\"levels\": 1, \"width\": 4000000000, \"height\": 4000000000, "
                      "\"channels\": 4, \"bit_depth\": 16, \"color\": \"rgba\"}",
                      WT_ERR_LIMIT, "h.npz: 4000000000x4000000000: width and height must be");
    expect_meta_error("{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", "
                      "\"levels\": 1, \"width\": 5, \"height\": 4, \"channels\": 1, "
                      "\"bit_depth\": 8, \"color\": \"gray\"}",
                      WT_ERR_FORMAT, "h.npz: member cA has shape (1, 2, 2), expected (1, 2, 3)");
}

/* A file of @p size bytes, holes but for @p data written at @p offset (a sparse
 * file: large on paper, small on disk). */
static void write_sparse(const char *path, const uint8_t *data, size_t size, uint64_t offset,
                         uint64_t total)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), (off_t)total), 0);
    assert_int_equal(pwrite(fileno(f), data, size, (off_t)offset), (ssize_t)size);
    fclose(f);
}

/* Move a stored zip (make_zip's, no ZIP64) @p hole bytes into a sparse file:
 * the central directory's offsets follow. */
static void shift_zip(const char *path, uint32_t hole, uint64_t total)
{
    size_t size;
    uint8_t *data = read_file(path, &size);
    for (size_t i = 0; i + 46 <= size; i++)
        if (memcmp(data + i, "PK\x01\x02", 4) == 0) {
            uint32_t off = (uint32_t)data[i + 42] | (uint32_t)data[i + 43] << 8 |
                           (uint32_t)data[i + 44] << 16 | (uint32_t)data[i + 45] << 24;
            le32(data + i + 42, off + hole);
        }
    uint8_t *end = data + size - 22;
    uint32_t cd = (uint32_t)end[16] | (uint32_t)end[17] << 8 | (uint32_t)end[18] << 16 |
                  (uint32_t)end[19] << 24;
    le32(end + 16, cd + hole);
    write_sparse(path, data, size, hole, total > hole + size ? total : hole + size);
    free(data);
}

/* A sparse file big enough for the image its meta describes: --max-pixels is
 * applied before the pyramid is allocated (issue 18 item 5). */
static void test_npz_sparse_limits(void **state)
{
    (void)state;
    crafted c;
    craft(&c, "{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", "
              "\"levels\": 1, \"width\": 4000, \"height\": 4000, \"channels\": 1, "
              "\"bit_depth\": 8, \"color\": \"gray\"}",
          NULL);
    const char *path = scratch("h.npz");
    make_zip(path, c.members, c.count);
    shift_zip(path, 80u << 20, 0); /* 80 MB on paper: 4000x4000 floats fit */
    wt_pyramid pyr;
    wt_npz_meta meta;
    wt_load_options opt = {.max_pixels = 1000000};
    assert_int_equal(wt_npz_load_any(path, &opt, &pyr, NULL, NULL, &meta), WT_ERR_LIMIT);
    assert_message_has("h.npz: 4000x4000 pixels exceeds the limit of 1000000 (--max-pixels)");
    assert_null(pyr.data);
    /* within the limit, the same file is refused: its members declare too few
     * bytes for the bands (before anything is allocated or read) */
    assert_int_equal(wt_npz_load(path, &pyr, &meta), WT_ERR_FORMAT);
    assert_message_has("h.npz: its description (4000x4000, 1 channels, 1 levels) needs more "
                       "data than the file holds");
    assert_null(pyr.data);
}

/* A PNG of IHDR @p width x @p height (gray 8-bit), the IDAT of a 1x1 image, IEND. */
static void write_png_header(const char *path, uint32_t width, uint32_t height)
{
    uint8_t png[128] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, *p = png + 8;
    /* zlib of one row of one pixel: filter 0, sample 0 */
    static const uint8_t idat[] = {0x78, 0x9c, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01};
    const struct {
        const char *type;
        const uint8_t *data;
        uint32_t len;
    } chunks[3] = {{"IHDR", NULL, 13}, {"IDAT", idat, sizeof idat}, {"IEND", NULL, 0}};
    uint8_t ihdr[13] = {width >> 24, width >> 16, width >> 8, width,  height >> 24,
                        height >> 16, height >> 8, height, 8, 0, 0, 0, 0};
    for (int i = 0; i < 3; i++) {
        const uint8_t *d = i == 0 ? ihdr : chunks[i].data;
        uint8_t *start = p + 4;
        p[0] = 0, p[1] = 0, p[2] = 0, p[3] = (uint8_t)chunks[i].len;
        memcpy(p + 4, chunks[i].type, 4);
        if (chunks[i].len)
            memcpy(p + 8, d, chunks[i].len);
        p += 8 + chunks[i].len;
        uint32_t crc = (uint32_t)crc32(0, start, 4 + chunks[i].len);
        p[0] = (uint8_t)(crc >> 24), p[1] = (uint8_t)(crc >> 16), p[2] = (uint8_t)(crc >> 8);
        p[3] = (uint8_t)crc;
        p += 4;
    }
    write_file(path, png, (size_t)(p - png));
}

/* Width and height below 2^24 on every path, as documented (issue 18 item 5). */
static void test_side_limit(void **state)
{
    (void)state;
    wt_image img;
    const char *path = scratch("wide.png");
    write_png_header(path, 1u << 24, 1);
    assert_int_equal(wt_image_load(path, NULL, &img), WT_ERR_LIMIT);
    assert_message_has("wide.png: PNG width and height must be below 2^24");
    write_png_header(path, (1u << 24) + 1, 1);
    assert_int_equal(wt_image_load(path, NULL, &img), WT_ERR_LIMIT);
    assert_message_has("wide.png: PNG width and height must be below 2^24");
    write_png_header(path, (1u << 24) - 1, 1); /* allowed: fails later, on its data */
    assert_int_equal(wt_image_load(path, NULL, &img), WT_ERR_FORMAT);
    write_png_header(path, 1, 1);
    assert_int_equal(wt_image_load(path, NULL, &img), WT_OK);
    wt_image_free(&img);
}

/* Non-regular inputs: the format is decided from the first bytes, a FIFO with
 * no writer does not hang (issue 18 item 4). */
static void test_stream_inputs(void **state)
{
    (void)state;
    wt_image img;
    wt_pyramid pyr;
    wt_npz_meta meta;
    double t0 = wt_seconds();
    alarm(20); /* a hang fails the test instead of the suite's timeout */
    assert_int_equal(wt_image_load("/dev/zero", NULL, &img), WT_ERR_FORMAT);
    assert_message_has("/dev/zero: not a PNG, JPEG, TIFF, NPY or Netpbm image");
    assert_int_equal(wt_npz_load("/dev/zero", &pyr, &meta), WT_ERR_FORMAT);
    assert_message_has("/dev/zero: not a coefficient file");
    const char *fifo = scratch("fifo.png");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(wt_image_load(fifo, NULL, &img), WT_ERR_IO);
    assert_message_has("fifo.png: no writer opened the FIFO within 3 s");
    assert_int_equal(wt_npz_load(fifo, &pyr, &meta), WT_ERR_IO);
    assert_message_has("fifo.png: no writer opened the FIFO within 3 s");
    alarm(0);
    assert_true(wt_seconds() - t0 < 10.0);
}

static void test_npz_not_zip(void **state)
{
    (void)state;
    const char *path = scratch("junk.npz");
    static const char junk[] = "PK\x05\x06 this is not a zip file at all, really";
    write_file(path, junk, sizeof junk - 1);
    wt_pyramid pyr;
    wt_npz_meta meta;
    assert_int_equal(wt_npz_load(path, &pyr, &meta), WT_ERR_FORMAT);
    assert_message_has("junk.npz: ");
    assert_int_equal(wt_npz_load(scratch("nothing.npz"), &pyr, &meta), WT_ERR_IO);
    assert_message_has("nothing.npz: No such file or directory");
    /* end record pointing past the end of the file */
    size_t size;
    uint8_t *data = save_small_npz(scratch("s.npz"), &size);
    le32(data + size - 6, 0x7ffffff0);
    assert_int_equal(load_npz_bytes(data, size), WT_ERR_FORMAT);
    free(data);
}

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

static void test_stack_files(void **state)
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

/* A stack's .npz written a page at a time and read back a page at a time. */
static void test_npz_stack(void **state)
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    corpus_dir = argv[1];
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(work_dir, sizeof work_dir, "%s/wt_test_io.XXXXXX", tmp);
    if (!mkdtemp(work_dir)) {
        perror("mkdtemp");
        return 1;
    }
#define T(f) cmocka_unit_test_teardown(f, teardown_clean)
    const struct CMUnitTest tests[] = {
        T(test_format_from_path),
        T(test_format_registry),
        T(test_format_capabilities),
        T(test_tiff_level),
        T(test_png_roundtrip_8bit),
        T(test_png_roundtrip_16bit),
        T(test_png_low_bit_gray),
        T(test_png_color_types),
        T(test_png_interlaced_equals_plain),
        T(test_png_16bit_native),
        T(test_png_truncated),
        T(test_png_corrupt),
        T(test_png_bombs),
        T(test_jpeg_decode),
        T(test_jpeg_truncated),
        T(test_jpeg_unsupported),
        T(test_jpeg_scan_limit),
        T(test_jpeg_scan_bomb),
        T(test_jpeg_encode),
        T(test_pnm_samples),
        T(test_sample_types),
        T(test_load_errors),
        T(test_save_errors),
        T(test_outfile_commit),
        T(test_outfile_abort),
        T(test_outfile_temp_hooks),
        T(test_outfile_standard_fds),
        T(test_outfile_errors),
        T(test_outfile_write_failure),
        T(test_same_file),
        T(test_npz_roundtrip),
        T(test_npz_zip64),
        T(test_npz_truncated),
        T(test_npz_crc),
        T(test_npz_byte_flips),
        T(test_npz_crafted),
        T(test_npz_meta),
        T(test_npz_not_zip),
        T(test_npz_sparse_limits),
        T(test_side_limit),
        T(test_stream_inputs),
        T(test_stack_files),
        T(test_npz_stack),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    clean_dir(work_dir);
    rmdir(work_dir);
    return failed;
}
