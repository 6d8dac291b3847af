/* The GPU JPEG codec (nvJPEG, --gpu-decode and --gpu-encode) against
 * libjpeg-turbo on a corpus of JPEG files.
 *
 * Decode: every JPEG under the arguments (files or folders) is read twice,
 * by libjpeg-turbo and with the GPU codec started. A file libjpeg-turbo
 * decodes must decode with the GPU; one it refuses is refused in the same
 * line, or (listed as "lax", not a failure: docs/performance.md says so)
 * decoded by nvJPEG, which checks entropy-coded data less strictly; a file the GPU
 * decoded may differ from libjpeg-turbo's pixels by at most --max-diff levels
 * (IDCT and chroma upsampling), a file it handed back (progressive,
 * arithmetic-coded, RGB, truncated...) must be identical. Prints the largest
 * |difference| and the share of differing samples, over all and per file (-v).
 * A CMYK JPEG written here must be refused as without the GPU.
 *
 * Encode: each decoded colour and gray file of at least 64x64 pixels written
 * at --quality by libjpeg-turbo and by nvJPEG (the codec started once per
 * pass, the files read by libjpeg-turbo first and held), both read back by
 * libjpeg-turbo: each one's PSNR against the image, and nvJPEG's must be
 * within --max-psnr-loss dB of libjpeg-turbo's.
 *
 *   jpeg_check [-v] [--max-diff N] [--quality Q] [--max-psnr-loss DB] PATH...
 *
 * Exit: 0 passed, 1 a file failed, 77 no CUDA device or no nvJPEG (skip). */
#include <ftw.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jpeglib.h>

#include "wavetool.h"
#include "wavetool_hooks.h"

typedef struct check_totals {
    int verbose, max_diff, quality;
    double max_psnr_loss;
    wt_engine *engine;
    char tmpdir[256];
    size_t files, on_gpu, handed_back, refused, lax, failed;
    int worst;                 /* largest |difference| over the GPU's files */
    double samples, differing; /* samples compared, and those that differ */
    double psnr_loss;          /* worst libjpeg-turbo PSNR - nvJPEG PSNR */
    size_t encoded;
} check_totals;

static check_totals T;

/* A JPEG of the corpus, as libjpeg-turbo reads it. */
typedef struct jpeg_file {
    char *path;
    wt_status status;
    char *message; /* libjpeg-turbo's refusal */
    wt_image image;
} jpeg_file;

static jpeg_file *files;
static size_t nfiles, capacity;

static void fail(const char *path, const char *fmt, const char *detail)
{
    printf("FAIL %s: ", path);
    printf(fmt, detail);
    putchar('\n');
    T.failed++;
}

/* Start the codec for @p what; 0 (after saying so) when it does not. */
static int start(unsigned what)
{
    if (wt_gpu_jpeg_start(T.engine, what, NULL, 0) == WT_OK)
        return 1;
    fail("nvJPEG", "does not start: %s", wt_error_message());
    return 0;
}

/* The largest |a - b| over the samples, and how many differ. */
static int compare_samples(const wt_image *a, const wt_image *b, double *differing)
{
    const uint8_t *x = a->pixels, *y = b->pixels;
    size_t n = (size_t)a->width * a->height * (size_t)a->channels;
    int worst = 0;
    *differing = 0;
    for (size_t i = 0; i < n; i++) {
        int d = abs((int)x[i] - (int)y[i]);
        worst = d > worst ? d : worst;
        *differing += d != 0;
    }
    return worst;
}

/* Both decoded: the same shape, identical when the GPU handed it back, else
 * within --max-diff. */
static void check_pixels(const char *path, const wt_image *cpu, const wt_image *gpu,
                         const char *note)
{
    if (cpu->width != gpu->width || cpu->height != gpu->height ||
        cpu->channels != gpu->channels || cpu->bit_depth != gpu->bit_depth) {
        fail(path, "%s", "the GPU's image has another shape");
        return;
    }
    double differing;
    int worst = compare_samples(cpu, gpu, &differing);
    double samples = (double)cpu->width * cpu->height * cpu->channels;
    if (note[0]) {
        T.handed_back++;
        if (T.verbose)
            printf("back %s\n", note);
        if (worst)
            fail(path, "%s", "handed back to libjpeg-turbo, yet not identical");
        return;
    }
    T.on_gpu++;
    T.samples += samples;
    T.differing += differing;
    T.worst = worst > T.worst ? worst : T.worst;
    if (T.verbose)
        printf("gpu  %s: %ux%u C=%d max |diff| %d, %.3f%% of samples differ\n", path, cpu->width,
               cpu->height, cpu->channels, worst, 100.0 * differing / samples);
    if (worst > T.max_diff) {
        char d[32];
        snprintf(d, sizeof d, "%d", worst);
        fail(path, "max |diff| %s over --max-diff", d);
    }
}

/* @p f read again with the GPU codec running, against libjpeg-turbo's. */
static void check_decode(const jpeg_file *f)
{
    wt_image gpu = {0};
    wt_status st = wt_image_load(f->path, NULL, &gpu);
    if (f->status != WT_OK && st != WT_OK) {
        T.refused++;
        if (T.verbose)
            printf("bad  %s\n", f->message);
        if (strcmp(f->message, wt_error_message()) != 0)
            printf("note %s: refused in other words: %s\n", f->path, wt_error_message());
    } else if (f->status != WT_OK) { /* corrupt entropy-coded data nvJPEG does not see */
        T.lax++;
        printf("lax  %s: decoded by nvJPEG, refused by libjpeg-turbo: %s\n", f->path,
               f->message);
    } else if (st != WT_OK) {
        fail(f->path, "refused with the GPU: %s", wt_error_message());
    } else {
        check_pixels(f->path, &f->image, &gpu, wt_gpu_jpeg_note());
    }
    wt_image_free(&gpu);
}

/* PSNR (of the mean squared error over all channels, 99 dB for none) of
 * @p path re-read by libjpeg-turbo against @p img. */
static double psnr_of(const char *path, const wt_image *img)
{
    wt_image back = {0};
    wt_quality q = {0};
    double psnr = -1;
    if (wt_image_load(path, NULL, &back) == WT_OK && wt_quality_compare(img, &back, &q) == WT_OK)
        psnr = q.mse_mean > 0 ? 10 * log10(255.0 * 255.0 / q.mse_mean) : 99;
    wt_image_free(&back);
    return psnr;
}

static int encodes(const jpeg_file *f)
{
    return f->status == WT_OK && f->image.width >= 64 && f->image.height >= 64;
}

static void encoded_name(size_t i, const char *by, char *out, size_t size)
{
    snprintf(out, size, "%s/%zu-%s.jpg", T.tmpdir, i, by);
}

/* Every image of at least 64x64 written by one encoder (@p gpu: nvJPEG). */
static void encode_all(int gpu)
{
    wt_save_options so = {0};
    so.jpeg_quality = T.quality;
    for (size_t i = 0; i < nfiles; i++) {
        char out[300];
        encoded_name(i, gpu ? "nvjpeg" : "libjpeg", out, sizeof out);
        if (!encodes(&files[i]))
            continue;
        if (wt_image_save(out, &files[i].image, &so, WT_FORMAT_JPEG) != WT_OK)
            fail(files[i].path, "encode: %s", wt_error_message());
        else if (gpu && wt_gpu_jpeg_note()[0])
            fail(files[i].path, "encode: %s", wt_gpu_jpeg_note());
    }
}

/* Both encoders' files read back: nvJPEG's PSNR within --max-psnr-loss. */
static void check_encoded(void)
{
    for (size_t i = 0; i < nfiles; i++) {
        char a[300], b[300];
        encoded_name(i, "libjpeg", a, sizeof a);
        encoded_name(i, "nvjpeg", b, sizeof b);
        if (!encodes(&files[i]))
            continue;
        double pa = psnr_of(a, &files[i].image), pb = psnr_of(b, &files[i].image);
        T.encoded++;
        T.psnr_loss = pa - pb > T.psnr_loss ? pa - pb : T.psnr_loss;
        if (T.verbose)
            printf("enc  %s: q%d PSNR libjpeg-turbo %.2f dB, nvJPEG %.2f dB\n", files[i].path,
                   T.quality, pa, pb);
        if (pa < 0 || pb < 0 || pa - pb > T.max_psnr_loss)
            fail(files[i].path, "encode: nvJPEG's PSNR %s", pb < 0 ? "unreadable" : "too low");
        unlink(a);
        unlink(b);
    }
}

static void add_file(const char *path)
{
    if (nfiles == capacity) {
        capacity = capacity ? 2 * capacity : 64;
        files = realloc(files, capacity * sizeof *files);
        if (!files) {
            fputs("jpeg_check: out of memory\n", stderr);
            exit(1);
        }
    }
    jpeg_file *f = &files[nfiles++];
    memset(f, 0, sizeof *f);
    f->path = strdup(path);
    f->status = wt_image_load(path, NULL, &f->image); /* libjpeg-turbo: the codec stopped */
    f->message = strdup(f->status == WT_OK ? "" : wt_error_message());
}

static int visit(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    const char *dot = strrchr(path, '.');
    if (type == FTW_F && dot && (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg")))
        add_file(path);
    return 0;
}

/* A 16x16 CMYK JPEG, written by libjpeg into the temporary folder: refused
 * with the GPU as without. */
static void add_cmyk(void)
{
    char path[300];
    snprintf(path, sizeof path, "%s/cmyk.jpg", T.tmpdir);
    FILE *f = fopen(path, "wb");
    if (!f) {
        fail(path, "%s", "cannot write");
        return;
    }
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    JSAMPLE row[16 * 4];
    memset(row, 100, sizeof row);
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, f);
    c.image_width = c.image_height = 16;
    c.input_components = 4;
    c.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&c);
    jpeg_start_compress(&c, TRUE);
    for (JSAMPROW r = row; c.next_scanline < 16;)
        jpeg_write_scanlines(&c, &r, 1);
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    fclose(f);
    add_file(path);
}

static void free_files(void)
{
    for (size_t i = 0; i < nfiles; i++) {
        free(files[i].path);
        free(files[i].message);
        wt_image_free(&files[i].image);
    }
    free(files);
}

/* The passes: decode with the GPU codec, then encode with each encoder. */
static void run_checks(void)
{
    if (start(WT_GPU_JPEG_DECODE)) {
        for (size_t i = 0; i < nfiles; i++)
            check_decode(&files[i]);
        wt_gpu_jpeg_stop();
    }
    encode_all(0);
    if (start(WT_GPU_JPEG_ENCODE)) {
        encode_all(1);
        wt_gpu_jpeg_stop();
        check_encoded();
    }
}

static int usage(void)
{
    fputs("usage: jpeg_check [-v] [--max-diff N] [--quality Q] [--max-psnr-loss DB] PATH...\n",
          stderr);
    return 2;
}

int main(int argc, char **argv)
{
    static const struct option longs[] = {{"max-diff", 1, NULL, 'd'}, {"quality", 1, NULL, 'q'},
                                          {"max-psnr-loss", 1, NULL, 'p'}, {NULL, 0, NULL, 0}};
    /* the tolerances docs/performance.md states: gray and 4:4:4 files are
     * libjpeg-turbo's as nvJPEG decodes them, 4:2:0, 4:2:2, 4:4:0 files go
     * through libjpeg-turbo's upsampling (cu_jpeg_color.cuh); others are
     * handed back */
    T.max_diff = 0;
    T.quality = 90;
    T.max_psnr_loss = 3.0;
    for (int c; (c = getopt_long(argc, argv, "v", longs, NULL)) != -1;) {
        if (c == 'v')
            T.verbose = 1;
        else if (c == 'd')
            T.max_diff = atoi(optarg);
        else if (c == 'q')
            T.quality = atoi(optarg);
        else if (c == 'p')
            T.max_psnr_loss = atof(optarg);
        else
            return usage();
    }
    if (optind >= argc)
        return usage();
    if (!wt_gpu_jpeg_built()) {
        puts("SKIP: built without nvJPEG");
        return 77;
    }
    if (wt_engine_open(&T.engine, "cuda") != WT_OK) {
        printf("SKIP: %s\n", wt_error_message());
        return 77;
    }
    char backend[32] = "";
    if (wt_gpu_jpeg_start(T.engine, WT_GPU_JPEG_DECODE, backend, sizeof backend) != WT_OK) {
        printf("FAIL: nvJPEG does not start: %s\n", wt_error_message());
        wt_engine_close(T.engine);
        return 1;
    }
    wt_gpu_jpeg_stop();
    const char *tmp = getenv("TMPDIR");
    snprintf(T.tmpdir, sizeof T.tmpdir, "%s/jpeg_check_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(T.tmpdir)) {
        perror("jpeg_check: temporary folder");
        return 1;
    }
    for (int i = optind; i < argc; i++)
        nftw(argv[i], visit, 16, FTW_PHYS);
    add_cmyk();
    T.files = nfiles;
    run_checks();
    char cmyk[300];
    snprintf(cmyk, sizeof cmyk, "%s/cmyk.jpg", T.tmpdir);
    unlink(cmyk);
    rmdir(T.tmpdir);
    printf("%s: decode (%s decoder): %zu JPEGs: %zu on the GPU (max |diff| %d, %.3f%% of "
           "samples differ), %zu handed back to libjpeg-turbo (identical), %zu refused by both, "
           "%zu only by libjpeg-turbo; encode q%d: %zu images, nvJPEG's PSNR at most %.2f dB "
           "under libjpeg-turbo's; %zu failed\n",
           T.failed ? "FAIL" : "ok", backend, T.files, T.on_gpu, T.worst,
           T.samples > 0 ? 100.0 * T.differing / T.samples : 0.0, T.handed_back, T.refused,
           T.lax, T.quality, T.encoded, T.psnr_loss, T.failed);
    wt_engine_close(T.engine);
    free_files();
    return T.failed ? 1 : 0;
}
