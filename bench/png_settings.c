/* png-settings: PNG encode time and size of wavetool mosaics under zlib
 * levels x PNG filters x zlib strategies, next to the decode time of the
 * inputs (docs/performance.md, "PNG encoding").
 *
 * For each input: decode it (timed), draw its mosaic on the CPU engine as
 * `wavetool decompose` does (haar, symmetric, 3 levels, --scale auto), then
 * encode the mosaic with libpng into memory under every setting, and with
 * wavetool's own encoder per level (level 1 twice, WT_PNG_DEFLATE=fastz and
 * =libdeflate: its fast run-length deflate and libdeflate's level 1, side by
 * side; 8-bit gray takes the first by default, other images the second). Each time
 * is the fastest of --repeat runs (a busy machine only adds time); one
 * thread, so the numbers are per core. Output: TSV on stdout, one row per
 * setting; sizes relative to libpng's own defaults (level 6, all filters,
 * Z_FILTERED), which is what most tools write. */
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "image_codec.h" /* wt_png_encode: wavetool's own settings */
#include "wavetool.h"
#include "wavetool_hooks.h" /* wt_seconds, wt_keep_freed_buffers */

/* Seconds of wall time, or with @p cpu of this thread's CPU time (a shared
 * machine: time spent waiting for a core does not count). */
static double now(int cpu)
{
    struct timespec t;
    if (!cpu || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
        return wt_seconds();
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct buffer {
    unsigned char *data;
    size_t size, cap;
} buffer;

static void buffer_write(png_structp png, png_bytep p, png_size_t n)
{
    buffer *b = png_get_io_ptr(png);
    if (b->size + n > b->cap) {
        size_t cap = (b->size + n) * 2;
        unsigned char *grown = realloc(b->data, cap);
        if (!grown)
            png_error(png, "out of memory");
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->size, p, n);
    b->size += n;
}

static void buffer_flush(png_structp png)
{
    (void)png;
}

typedef struct setting {
    int level;
    int filters;        /* PNG_FILTER_* mask */
    const char *filter_name;
    int strategy;
    const char *strategy_name;
} setting;

/* Encode @p img into @p out; returns 0 on success. */
static int encode(const wt_image *img, const setting *s, png_bytep *rows, buffer *out)
{
    if (s->strategy == -2) { /* what wavetool writes at this level */
        char *data = NULL;
        size_t size = 0;
        FILE *fp = open_memstream(&data, &size);
        wt_save_options opt = {.png_level = s->level};
        wt_env_override()->png_deflate = s->strategy_name; /* level 1: fastz or libdeflate */
        wt_status st = fp ? wt_png_encode(fp, "(memory)", img, &opt) : WT_ERR_IO;
        if (fp)
            fclose(fp);
        free(data);
        out->size = size;
        return st == WT_OK ? 0 : -1;
    }
    static const int color[] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    out->size = 0;
    png_set_write_fn(png, out, buffer_write, buffer_flush);
    png_set_IHDR(png, info, img->width, img->height, img->bit_depth, color[img->channels],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, s->level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, s->filters);
    if (s->strategy >= 0)
        png_set_compression_strategy(png, s->strategy);
    png_write_info(png, info);
    if (img->bit_depth == 16)
        png_set_swap(png); /* little-endian hosts, as src/png_io.c */
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

typedef struct input {
    wt_image mosaic;
    png_bytep *rows;
    double decode_s;
    size_t file_bytes;
} input;

static int prepare(const char *path, int depth, int repeat, int source, wt_engine *engine,
                   input *in)
{
    wt_image img = {0};
    wt_load_options lo = {0};
    in->decode_s = 1e30;
    for (int r = 0; r < repeat; r++) {
        wt_image_free(&img);
        double t0 = wt_seconds();
        if (wt_image_load(path, &lo, &img) != WT_OK) {
            fprintf(stderr, "png-settings: %s\n", wt_error_message());
            return -1;
        }
        double dt = wt_seconds() - t0;
        in->decode_s = dt < in->decode_s ? dt : in->decode_s;
    }
    wt_params p = {wt_wavelet_find("haar"), WT_MODE_SYMMETRIC, WT_METHOD_AUTO, 3};
    wt_status st = WT_OK;
    if (source) /* the decoded image itself, as reconstruct and roundtrip -o write it */
        in->mosaic = img;
    else
        st = wt_mosaic_image(engine, &p, &img, WT_SCALE_AUTO, depth ? depth : img.bit_depth,
                             &in->mosaic);
    if (!source)
        wt_image_free(&img);
    if (st != WT_OK) {
        fprintf(stderr, "png-settings: %s: %s\n", path, wt_error_message());
        return -1;
    }
    size_t stride = (size_t)in->mosaic.width * in->mosaic.channels * (in->mosaic.bit_depth / 8);
    in->file_bytes = stride * in->mosaic.height;
    in->rows = malloc(in->mosaic.height * sizeof *in->rows);
    if (!in->rows)
        return -1;
    for (uint32_t y = 0; y < in->mosaic.height; y++)
        in->rows[y] = (png_bytep)in->mosaic.pixels + y * stride;
    return 0;
}

static const char usage_text[] =
    "Usage: png-settings [--depth 8|16] [--source 1] [--own-only 1] [--cpu-time 1] [--repeat N]\n"
    "                    [--levels LIST] IMAGE...\n"
    "PNG encode time and size of the mosaics of IMAGEs (haar, 3 levels) under zlib\n"
    "levels x PNG filters x zlib strategies; TSV on stdout. --levels 0,1,6 limits\n"
    "the levels (default 0,1,2,3,6,9); --repeat: fastest of N runs (default 3);\n"
    "--source 1: encode the decoded images themselves (as reconstructions are written);\n"
    "--cpu-time 1: encode times as the thread's CPU time, not wall time (busy machines);\n"
    "--own-only 1: only wavetool's own settings per level (rows 'wavetool'; level 1\n"
    "by its fast run-length deflate, 'fastz', and by libdeflate).\n";

int main(int argc, char **argv)
{
    int depth = 0, repeat = 3, source = 0, own_only = 0, cpu_time = 0, first = 1;
    const char *levels = "0,1,2,3,6,9";
    for (; first < argc && argv[first][0] == '-'; first += 2) {
        if (first + 1 >= argc || strcmp(argv[first], "--help") == 0) {
            fputs(usage_text, strcmp(argv[first], "--help") ? stderr : stdout);
            return strcmp(argv[first], "--help") ? 2 : 0;
        }
        if (strcmp(argv[first], "--depth") == 0)
            depth = atoi(argv[first + 1]);
        else if (strcmp(argv[first], "--repeat") == 0)
            repeat = atoi(argv[first + 1]);
        else if (strcmp(argv[first], "--own-only") == 0)
            own_only = atoi(argv[first + 1]);
        else if (strcmp(argv[first], "--cpu-time") == 0)
            cpu_time = atoi(argv[first + 1]);
        else if (strcmp(argv[first], "--source") == 0)
            source = atoi(argv[first + 1]);
        else if (strcmp(argv[first], "--levels") == 0)
            levels = argv[first + 1];
        else {
            fputs(usage_text, stderr);
            return 2;
        }
    }
    if (first >= argc || (depth && depth != 8 && depth != 16) || repeat < 1) {
        fputs(usage_text, stderr);
        return 2;
    }
    wt_keep_freed_buffers(); /* as wavetool does: each run reuses the buffers of the last */
    int n = argc - first;
    input *in = calloc((size_t)n, sizeof *in);
    wt_engine *engine = NULL;
    if (!in || wt_engine_open(&engine, "cpu") != WT_OK)
        return 1;
    wt_engine_set_threads(engine, 1);
    double decode = 0, raw = 0;
    for (int i = 0; i < n; i++) {
        if (prepare(argv[first + i], depth, repeat, source, engine, &in[i]) != 0)
            return 1;
        decode += in[i].decode_s;
        raw += (double)in[i].file_bytes;
    }
    wt_engine_close(engine);

    static const struct { int mask; const char *name; } filters[] = {
        {PNG_FILTER_NONE, "none"}, {PNG_FILTER_SUB, "sub"}, {PNG_FILTER_UP, "up"},
        {PNG_FILTER_AVG, "avg"}, {PNG_FILTER_PAETH, "paeth"}, {PNG_ALL_FILTERS, "all"}};
    static const struct { int z; const char *name; } strategies[] = {
        {Z_DEFAULT_STRATEGY, "default"}, {Z_FILTERED, "filtered"}, {Z_RLE, "rle"},
        {Z_HUFFMAN_ONLY, "huffman"}};
    buffer out = {0};
    double ref_size = 0;
    { /* libpng's defaults: level 6, all filters, Z_FILTERED */
        setting ref = {6, PNG_ALL_FILTERS, "all", -1, "libpng"};
        for (int i = 0; i < n; i++) {
            encode(&in[i].mosaic, &ref, in[i].rows, &out);
            ref_size += (double)out.size;
        }
    }
    const wt_image *m0 = &in[0].mosaic;
    printf("# %d %s of %ux%u, %d channel(s), %d-bit; input decode %.1f ms/image; "
           "raw %.2f MB/image; libpng default (level 6, all filters, filtered) %.3f MB/image\n",
           n, source ? "image(s)" : "mosaic(s)", m0->width, m0->height, m0->channels, m0->bit_depth, 1e3 * decode / n, raw / n / 1e6,
           ref_size / n / 1e6);
    printf("level\tfilter\tstrategy\tencode_ms\tencode/decode\tMB\tsize_vs_level6\tMB/s\n");
    fflush(stdout);
    for (const char *l = levels; *l; l += strcspn(l, ",") + (l[strcspn(l, ",")] == ',')) {
        int level = atoi(l);
        size_t nf = sizeof filters / sizeof *filters;
        for (size_t f = 0; f <= nf + 1; f++) /* then wavetool's, and its level 1 by libdeflate */
            for (size_t z = 0; z < sizeof strategies / sizeof *strategies; z++) {
                int own = f >= nf;
                if (((level == 0 || own) && z > 0) || (own_only && !own) || (f > nf && level != 1))
                    continue; /* stored blocks: the strategy changes nothing */
                setting s = own ? (setting){level, 0, "wavetool", -2,
                                            f == nf && level == 1 ? "fastz" : "libdeflate"}
                                : (setting){level, filters[f].mask, filters[f].name,
                                            strategies[z].z, strategies[z].name};
                double total = 0, size = 0;
                for (int i = 0; i < n; i++) {
                    double best = 1e30;
                    for (int r = 0; r < repeat; r++) {
                        double t0 = now(cpu_time);
                        if (encode(&in[i].mosaic, &s, in[i].rows, &out) != 0)
                            return 1;
                        double dt = now(cpu_time) - t0;
                        best = dt < best ? dt : best;
                    }
                    total += best;
                    size += (double)out.size;
                }
                printf("%d\t%s\t%s\t%.1f\t%.2f\t%.3f\t%.3f\t%.0f\n", level, s.filter_name,
                       s.strategy_name, 1e3 * total / n, total / decode, size / n / 1e6,
                       size / ref_size, raw / total / 1e6);
                fflush(stdout);
            }
    }
    return 0;
}
