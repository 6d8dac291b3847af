/* wavetool bench: throughput of an engine's transforms, as effective GB/s
 * (8 bytes per sample per level: each level reads and writes each sample of
 * its input once) next to a device-to-device copy of the same bytes measured
 * in the same run, so the figure is a fraction of the machine's limit.
 *
 * CUDA engine: data stay on the device; cudaEvents around each call, 3
 * warm-ups, the median of --repeat runs (wt_cuda_bench). CPU engine: wall
 * clock around wt_forward/wt_inverse on host buffers, memcpy on the engine's
 * threads as the copy (bench_copy.c). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "bench_copy.h"
#include "bench_volume.h"
#include "commands.h"
#include "options.h"
#include "report.h"
#include "wavetool.h"
#include "wavetool_hooks.h" /* CUDA bench and page-locking hooks, wt_median */

/* Maximal number of items of each list of bench's sweep. */
#define SWEEP_MAX 64

/* bench's own options: the configurations timed. */
typedef struct sweep_options {
    const wt_wavelet *wavelets[SWEEP_MAX];
    int nwavelets;
    wt_mode modes[SWEEP_MAX];
    int nmodes;
    wt_method methods[4];
    int nmethods;
    size_t sizes[SWEEP_MAX][3]; /* width, height, depth (--volume; 0: not given) */
    int nsizes;
    int batch, repeat;
    int forward, inverse;
    int host_path;
    int all; /* --all: every wavelet x symmetric, periodization */
} sweep_options;

#define SWEEP(o) ((const sweep_options *)(o)->own)

/* ---- bench's own options: lists and sizes ----------------------------------------- */

static int add_wavelet(const char *cmd, const char *name, sweep_options *w)
{
    const wt_wavelet *found = wt_wavelet_find(name);
    if (!found)
        return cli_usage_error(cmd, "unknown wavelet '%s' (did you mean '%s'?)", name,
                               wt_wavelet_suggest(name));
    if (w->nwavelets == SWEEP_MAX)
        return cli_usage_error(cmd, "too many wavelets");
    w->wavelets[w->nwavelets++] = found;
    return CLI_CONTINUE;
}

static int add_mode(const char *cmd, const char *name, sweep_options *w)
{
    wt_mode m;
    if (wt_mode_parse(name, &m) != WT_OK)
        return cli_usage_error(cmd, "%s", wt_error_message());
    if (w->nmodes == SWEEP_MAX)
        return cli_usage_error(cmd, "too many modes");
    w->modes[w->nmodes++] = m;
    return CLI_CONTINUE;
}

static int add_method(const char *cmd, const char *name, sweep_options *w)
{
    wt_method m;
    if (wt_method_parse(name, &m) != WT_OK)
        return cli_usage_error(cmd, "%s", wt_error_message());
    if (w->nmethods == (int)(sizeof w->methods / sizeof w->methods[0]))
        return cli_usage_error(cmd, "too many methods");
    w->methods[w->nmethods++] = m;
    return CLI_CONTINUE;
}

/* add(item) for each comma-separated item of the argument (empty items skipped). */
static int parse_list(const cli_arg *a,
                      int (*add)(const char *cmd, const char *item, sweep_options *w))
{
    int rc = CLI_CONTINUE;
    const char *list = a->value;
    while (rc == CLI_CONTINUE && *list) {
        char item[256];
        size_t len = strcspn(list, ",");
        snprintf(item, sizeof item, "%.*s", (int)len, list);
        if (len > 0)
            rc = add(a->cmd, item, a->field);
        list += len + (list[len] == ',');
    }
    return rc;
}

static int parse_wavelets(const cli_arg *a) { return parse_list(a, add_wavelet); }
static int parse_modes(const cli_arg *a) { return parse_list(a, add_mode); }
static int parse_methods(const cli_arg *a) { return parse_list(a, add_method); }

/* "xN" after a size at *@p end: N (0 when malformed), *@p end moved past it. */
static unsigned long size_part(char **end)
{
    if (**end != 'x' && **end != 'X')
        return 0;
    const char *from = *end + 1;
    unsigned long v = strtoul(from, end, 10);
    return *end == from || *from == '-' || *from == '+' ? 0 : v;
}

static int parse_size(const cli_arg *a)
{
    sweep_options *w = a->field;
    char *end;
    unsigned long width = strtoul(a->value, &end, 10), height = 0, depth = 0;
    if (end != a->value)
        height = size_part(&end);
    if (height && *end)
        depth = size_part(&end);
    if (*end || width == 0 || height == 0 || width > (1ul << 20) || height > (1ul << 20) ||
        depth > (1ul << 20) || (depth == 0 && end[-1] == 'x'))
        return cli_usage_error(a->cmd, "invalid size '%s'; should be WIDTHxHEIGHT (a --volume: "
                                       "WIDTHxHEIGHTxDEPTH)",
                               a->value);
    if (w->nsizes == SWEEP_MAX)
        return cli_usage_error(a->cmd, "too many --size options");
    w->sizes[w->nsizes][0] = width;
    w->sizes[w->nsizes][1] = height;
    w->sizes[w->nsizes][2] = depth;
    w->nsizes++;
    return CLI_CONTINUE;
}

/* -l N: the levels of every configuration */
static int parse_levels(const cli_arg *a)
{
    long long v = 0;
    int rc = cli_parse_int(a, 0, WT_MAX_LEVELS, &v);
    if (rc == CLI_CONTINUE)
        a->o->params.levels = (int)v;
    return rc;
}

static int parse_both(const cli_arg *a)
{
    sweep_options *w = a->field;
    w->forward = w->inverse = 1;
    return CLI_CONTINUE;
}

static int refuse_pipeline(const cli_arg *a)
{
    return cli_usage_error(a->cmd, "--pipeline must be the first argument");
}

#define AT(field) offsetof(sweep_options, field)
static const cli_opt sweep_rows[] = {
    {"transform", 0, "T", cli_parse_transform, 0, "{TRANSFORMS};\nsee wavetool(1)", "dwt", NULL},
    {"border", 0, "B", cli_parse_border, 0, "starlet border: mirror, periodic, nearest", "mirror",
     NULL},
    {"wavelet", 'w', "LIST", parse_wavelets, 0, "wavelets, comma-separated or repeated", "haar",
     NULL},
    {"mode", 'm', "LIST", parse_modes, 0, "modes", "symmetric", NULL},
    {"method", 0, "LIST", parse_methods, 0,
     "auto, conv, lifting; combinations a wavelet does not\nsupport are skipped", "auto", NULL},
    {"levels", 'l', "N", parse_levels, 0, "levels", "3", NULL},
    {"size", 0, "WxH[xD]", parse_size, 0,
     "image size, repeatable; a --volume's WxHxD (256x256x256)", "8192x8192", NULL},
    {"batch", 0, "N", cli_opt_int, AT(batch), "N images of that size in one call", "1",
     &(cli_int_range){1, 1000000}},
    {"forward", 0, NULL, cli_opt_flag, AT(forward),
     "time the forward transform (without --forward or --inverse:\nboth directions)", NULL, NULL},
    {"inverse", 0, NULL, cli_opt_flag, AT(inverse), "time the inverse transform", NULL, NULL},
    {"both", 0, NULL, parse_both, 0, "time both directions (the default)", NULL, NULL},
    {"all", 0, NULL, cli_opt_flag, AT(all),
     "every wavelet x symmetric and periodization x both\n"
     "directions (with --format json: tools/bench_table.py\n"
     "makes the table and plot)",
     NULL, NULL},
    {"repeat", 0, "N", cli_opt_int, AT(repeat), "timed runs, median reported", "20",
     &(cli_int_range){1, 1000000}},
    {"host-path", 0, NULL, cli_opt_flag, AT(host_path),
     "one 8192x8192 RGB 8-bit image from host samples to a\n"
     "host mosaic (wt_mosaic_image, decode excluded), wall\n"
     "clock, against pinned host<->device copies of the same\n"
     "bytes; pageable and page-locked image",
     NULL, NULL},
    {"pipeline", 0, NULL, refuse_pipeline, 0,
     "(first) the batch path of decompose over files or folders,\n"
     "against decode+encode alone; see\n"
     "'wavetool bench --pipeline --help'",
     NULL, NULL},
};
static const cli_group sweep_group = CLI_GROUP(sweep_rows, 1);


/* One measured configuration. */
typedef struct bench_row {
    const char *wavelet, *mode, *method, *direction;
    int taps; /* filter length (PyWavelets' dec_len) */
    size_t width, height;
    int batch, levels;
    double ms, ms_min, bytes, copy_ms, copy_bytes;
    size_t depth; /* a volume's; 0 for images */
    const char *policy; /* the CUDA engine's launch policy (NULL: CPU) */
} bench_row;

static double now_ms(void)
{
    return wt_seconds() * 1e3;
}

/* ---------------------------------------------------------------------- */
/* Output */

static double gbps(double bytes, double ms)
{
    return ms > 0 ? bytes / (ms * 1e6) : 0.0;
}

static void print_header(const cli_options *o, const wt_engine *e)
{
    const wt_tlayout layout = wt_transform_class_of(o->transform)->layout;
    if ((o->format == REPORT_JSON))
        return;
    if (layout == WT_LAYOUT_PACKET && wt_engine_is_cpu(e))
        printf("# %s; median of %d runs; GB/s = bytes each level reads and writes / time (4 "
               "bytes x samples of its nodes and of their children; the tree on the host, one "
               "engine call per split node);\n"
               "# copy = memcpy of the same bytes (read + write) on the engine's threads in "
               "the same run\n",
               wt_engine_name(e), SWEEP(o)->repeat);
    else if (layout == WT_LAYOUT_PACKET)
        printf("# %s; median of %d runs; GB/s = bytes each level reads and writes / time (4 "
               "bytes x samples of its nodes and of their children; the tree on the device, "
               "one launch a level);\n"
               "# copy = device copy of the same bytes (read + write) in the same run\n",
               wt_engine_name(e), SWEEP(o)->repeat);
    else if (layout == WT_LAYOUT_STACK)
        printf("# %s; median of %d runs; GB/s = bytes read and written / time (4 bytes x "
               "samples x planes: swt %d a level, starlet 3 a scale, its inverse L + 2);\n"
               "# copy = %s of the same bytes (read + write) in the same run\n",
               wt_engine_name(e), SWEEP(o)->repeat,
               1 + (1 << (o->volume ? (o->naxes ? o->naxes : 3) : 2)),
               wt_engine_is_cpu(e) ? "memcpy on the engine's threads" : "device copy");
    else
        printf("# %s; median of %d runs; GB/s = 8 bytes x samples x levels / time;\n"
               "# copy = %s of the same bytes (read + write) in the same run\n",
               wt_engine_name(e), SWEEP(o)->repeat,
               wt_engine_is_cpu(e) ? "memcpy on the engine's threads" : "device copy");
    printf("%-10s %-14s %-8s %-8s %11s %5s %2s %9s %9s %9s %7s\n", "wavelet", "mode", "method",
           "dir", "size", "batch", "L", "ms", "GB/s", "copy GB/s", "% copy");
}

static void print_json_row(const wt_engine *e, const bench_row *r, double g, double c, double pct)
{
    wt_json j;
    wt_json_init(&j, 1);
    wt_json_begin_object(&j);
    wt_json_key_string(&j, "device", wt_engine_name(e));
    wt_json_key_string(&j, "wavelet", r->wavelet);
    wt_json_key_string(&j, "mode", r->mode);
    wt_json_key_string(&j, "method", r->method);
    wt_json_key_string(&j, "direction", r->direction);
    wt_json_key_int(&j, "taps", r->taps);
    wt_json_key_uint(&j, "width", r->width);
    wt_json_key_uint(&j, "height", r->height);
    if (r->depth)
        wt_json_key_uint(&j, "depth", r->depth);
    wt_json_key_int(&j, "batch", r->batch);
    wt_json_key_int(&j, "levels", r->levels);
    wt_json_key_number(&j, "ms", "%.5f", r->ms);
    wt_json_key_number(&j, "ms_min", "%.5f", r->ms_min);
    wt_json_key_number(&j, "bytes", "%.0f", r->bytes);
    wt_json_key_number(&j, "gbps", "%.2f", g);
    wt_json_key_number(&j, "copy_ms", "%.5f", r->copy_ms);
    wt_json_key_number(&j, "copy_gbps", "%.2f", c);
    wt_json_key_number(&j, "pct_copy", "%.1f", pct);
    if (r->policy)
        wt_json_key_string(&j, "policy", r->policy);
    report_json_print(&j, stdout);
}

static void print_row(const cli_options *o, const wt_engine *e, const bench_row *r)
{
    double g = gbps(r->bytes, r->ms), c = gbps(2.0 * r->copy_bytes, r->copy_ms);
    double pct = c > 0 ? 100.0 * g / c : 0.0;
    if ((o->format == REPORT_JSON)) {
        print_json_row(e, r, g, c, pct);
    } else {
        char size[48];
        if (r->depth)
            snprintf(size, sizeof size, "%zux%zux%zu", r->width, r->height, r->depth);
        else
            snprintf(size, sizeof size, "%zux%zu", r->width, r->height);
        printf("%-10s %-14s %-8s %-8s %11s %5d %2d %9.4f %9.1f %9.1f %6.1f%%\n", r->wavelet,
               r->mode, r->method, r->direction, size, r->batch, r->levels, r->ms, g, c, pct);
    }
    fflush(stdout);
}

/* The row timed with status @p st, or its error; 1 when it failed. */
static int print_row_or_error(const cli_options *o, const wt_engine *e, const bench_row *r,
                              wt_status st)
{
    if (st != WT_OK) {
        fprintf(stderr, "wavetool: bench %s %s: %s\n", r->wavelet, r->mode, wt_error_message());
        return 1;
    }
    print_row(o, e, r);
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Timing */

/* 8 bytes per sample of each level's input, all images. */
static double level_bytes(const wt_pyramid *plan)
{
    double samples = 0;
    for (int l = 1; l <= plan->levels; l++)
        samples += (double)plan->lo_h[l - 1] * (double)plan->lo_w[l - 1];
    return 8.0 * samples * plan->channels;
}

static double median_of(double *t, int n)
{
    return wt_median(t, (size_t)n);
}

/* The copy figures of @p r: median wall clock of @p repeat copies of @p copy
 * bytes from @p a to @p b (room for copy + 1) on the engine's threads
 * (bench_copy_ms); @p t: room for @p repeat times. */
static void time_copy(char *a, char *b, size_t copy, int repeat, double *t, bench_row *r)
{
    memset(a, 1, copy + 1);
    memset(b, 0, copy + 1); /* its pages faulted in before the timing */
    r->copy_ms = bench_copy_ms(b, a, copy, repeat, t);
    r->copy_bytes = (double)copy;
}

/* One run of a host benchmark in one direction (@p inverse = 1: inverse). */
typedef wt_status (*bench_once)(const void *ctx, int inverse);

/* The wall-clock median and fastest of @p repeat runs of @p run (after a
 * warm-up) into @p r, then the copy of @p copy bytes from @p a to @p b
 * (time_copy); @p t: room for @p repeat times. */
static wt_status time_host_runs(bench_once run, const void *ctx, int inverse, int repeat,
                                double *t, char *a, char *b, size_t copy, bench_row *r)
{
    wt_status st = WT_OK;
    for (int k = -1; st == WT_OK && k < repeat; k++) {
        double t0 = now_ms();
        st = run(ctx, inverse);
        if (k >= 0)
            t[k] = now_ms() - t0;
    }
    if (st == WT_OK) {
        r->ms = median_of(t, repeat);
        r->ms_min = t[0]; /* sorted by the median */
        time_copy(a, b, copy, repeat, t, r);
    }
    return st;
}

/* The CPU engine's DWT of a host image, either direction. */
typedef struct dwt_run {
    wt_engine *e;
    const wt_params *p;
    float *x;
    wt_pyramid *pyr;
} dwt_run;

static wt_status dwt_once(const void *ctx, int inverse)
{
    const dwt_run *k = ctx;
    return inverse ? wt_inverse(k->e, k->p, k->pyr, k->x) : wt_forward(k->e, k->p, k->x, k->pyr);
}

/* Wall-clock median of the CPU engine, and a memcpy of the same bytes. */
static wt_status time_cpu(wt_engine *e, const wt_params *p, const cli_options *o, int inverse,
                          wt_pyramid *pyr, bench_row *r)
{
    size_t n = pyr->height * pyr->width * (size_t)pyr->channels;
    size_t copy = (size_t)(r->bytes / 2);
    float *x = malloc(n * sizeof *x);
    char *a = malloc(copy + 1), *b = malloc(copy + 1);
    double *t = malloc((size_t)SWEEP(o)->repeat * sizeof *t);
    wt_status st = x && a && b && t ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    if (st == WT_OK)
        bench_fill_samples(x, n);
    if (st == WT_OK)
        st = wt_forward(e, p, x, pyr);
    const dwt_run k = {e, p, x, pyr};
    if (st == WT_OK)
        st = time_host_runs(dwt_once, &k, inverse, SWEEP(o)->repeat, t, a, b, copy, r);
    free(x);
    free(a);
    free(b);
    free(t);
    return st;
}

#if WT_HAVE_CUDA
/* The times of a CUDA bench run into @p r. */
static void row_from_cuda(bench_row *r, const wt_cuda_timing *t)
{
    r->ms = t->ms;
    r->ms_min = t->ms_min;
    r->copy_ms = t->copy_ms;
    r->copy_bytes = (double)t->copy_bytes;
    r->policy = t->policy;
}
#endif

static wt_status time_one(wt_engine *e, const wt_params *p, const cli_options *o, int inverse,
                          size_t width, size_t height, bench_row *r)
{
    wt_pyramid plan;
    wt_status st = wt_pyramid_plan(&plan, p, height, width, SWEEP(o)->batch);
    if (st != WT_OK)
        return st;
    r->bytes = level_bytes(&plan);
    if (wt_engine_is_cpu(e)) {
        st = wt_pyramid_alloc(&plan, p, height, width, SWEEP(o)->batch);
        if (st == WT_OK)
            st = time_cpu(e, p, o, inverse, &plan, r);
        wt_pyramid_free(&plan);
        return st;
    }
#if WT_HAVE_CUDA
    wt_cuda_timing t;
    st = wt_cuda_bench(e, p, height, width, SWEEP(o)->batch, inverse, SWEEP(o)->repeat, (size_t)(r->bytes / 2),
                       &t);
    row_from_cuda(r, &t);
    return st;
#else
    return wt_error_set(WT_ERR_UNSUPPORTED, "no GPU benchmark in this build");
#endif
}

/* ---------------------------------------------------------------------- */
/* Host path: samples in host memory to a mosaic in host memory
 *
 * wt_mosaic_image of one 8192x8192 RGB 8-bit image (wall clock, median of
 * --repeat runs after a warm-up, the engine's upload/transform/download split
 * from wt_engine_get_times). CUDA engine: against the floor of the bus,
 * bytes_up / rate_up + bytes_down / rate_down with both rates measured in the
 * same run (pinned cudaMemcpyAsync of the image's and the mosaic's bytes),
 * once with the image in pageable memory (staged by the engine) and once
 * page-locked (cudaHostRegister: copied directly). */

typedef struct host_run {
    double ms, upload, transform, download; /* medians, ms */
} host_run;

/* @p keep: NULL (a fresh mosaic every call), or a mosaic kept between calls
 * (drawn into; the caller frees it). */
static wt_status time_mosaics(wt_engine *e, const wt_params *p, const wt_image *img, int repeat,
                              host_run *r, size_t *mosaic_bytes, wt_image *keep)
{
    double *t = malloc((size_t)repeat * 4 * sizeof *t);
    wt_status st = t ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    for (int k = -1; st == WT_OK && k < repeat; k++) {
        wt_engine_times a, b;
        wt_image fresh = {0}, *m = keep ? keep : &fresh;
        wt_engine_get_times(e, &a);
        double t0 = now_ms();
        st = wt_mosaic_image(e, p, img, WT_SCALE_AUTO, 8, m);
        double t1 = now_ms();
        wt_engine_get_times(e, &b);
        *mosaic_bytes = wt_image_bytes(m);
        wt_image_free(&fresh);
        if (k < 0)
            continue;
        t[k] = t1 - t0;
        t[repeat + k] = (b.upload - a.upload) * 1e3;
        t[2 * repeat + k] = (b.transform - a.transform) * 1e3;
        t[3 * repeat + k] = (b.download - a.download) * 1e3;
    }
    if (st == WT_OK) {
        r->ms = median_of(t, repeat);
        r->upload = median_of(t + repeat, repeat);
        r->transform = median_of(t + 2 * repeat, repeat);
        r->download = median_of(t + 3 * repeat, repeat);
    }
    free(t);
    return st;
}

typedef struct host_floor {
    double ms, up_ms, down_ms; /* pinned copies of the image's / mosaic's bytes */
    size_t up_bytes, down_bytes;
} host_floor;

typedef struct touch_ctx {
    char *p;
    size_t n;
} touch_ctx;

static void touch_range(void *ctx, size_t begin, size_t end)
{
    touch_ctx *t = ctx;
    size_t a = begin << 20, b = end << 20 < t->n ? end << 20 : t->n;
    memset(t->p + a, 1, b - a);
}

/* Wall ms of filling a fresh buffer of @p bytes from 8 threads (the page
 * faults of memory new to the process): 4 KB pages, or 2 MB-aligned with
 * MADV_HUGEPAGE advice. Median of 3. */
static double first_touch_ms(size_t bytes, int huge)
{
    double t[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        void *p = NULL;
        if (huge) {
            if (posix_memalign(&p, (size_t)2 << 20, bytes) != 0)
                p = NULL;
#ifdef MADV_HUGEPAGE
            if (p)
                madvise(p, bytes, MADV_HUGEPAGE);
#endif
        } else {
            p = malloc(bytes);
        }
        if (!p)
            return 0.0;
        touch_ctx c = {p, bytes};
        double t0 = now_ms();
        wt_parallel_for(8, (bytes + (1u << 20) - 1) >> 20, touch_range, &c);
        t[k] = now_ms() - t0;
        free(p);
    }
    return median_of(t, 3);
}

/* The pinned-copy floor and a run with the image page-locked (CUDA only). */
#if WT_HAVE_CUDA
/* With the image page-locked: mosaics drawn into a kept buffer, pageable
 * (kept[0]) and page-locked (kept[1]). */
static wt_status time_kept(wt_engine *e, const wt_params *p, const cli_options *o,
                           const wt_image *img, host_run kept[2])
{
    wt_image m = {0};
    size_t bytes = 0;
    wt_status st = time_mosaics(e, p, img, SWEEP(o)->repeat, &kept[0], &bytes, &m);
    if (st == WT_OK)
        st = wt_cuda_host_register(e, m.pixels, bytes, 1);
    if (st == WT_OK) {
        st = time_mosaics(e, p, img, SWEEP(o)->repeat, &kept[1], &bytes, &m);
        wt_status st2 = wt_cuda_host_register(e, m.pixels, bytes, 0);
        st = st == WT_OK ? st2 : st;
    }
    wt_image_free(&m);
    return st;
}
#endif

static wt_status time_pinned(wt_engine *e, const wt_params *p, const cli_options *o,
                             wt_image *img, size_t mosaic_bytes, host_floor *f, host_run *pinned,
                             host_run kept[2])
{
#if WT_HAVE_CUDA
    double up_s = 0, down_s = 0;
    f->up_bytes = wt_image_bytes(img);
    f->down_bytes = mosaic_bytes;
    wt_status st = wt_cuda_copy_rates(e, f->up_bytes, f->down_bytes, SWEEP(o)->repeat, &up_s, &down_s);
    f->up_ms = up_s * 1e3;
    f->down_ms = down_s * 1e3;
    f->ms = f->up_ms + f->down_ms;
    if (st == WT_OK)
        st = wt_cuda_host_register(e, img->pixels, f->up_bytes, 1);
    if (st == WT_OK) {
        st = time_mosaics(e, p, img, SWEEP(o)->repeat, pinned, &mosaic_bytes, NULL);
        if (st == WT_OK)
            st = time_kept(e, p, o, img, kept);
        wt_status st2 = wt_cuda_host_register(e, img->pixels, f->up_bytes, 0);
        st = st == WT_OK ? st2 : st;
    }
    return st;
#else
    (void)e, (void)p, (void)o, (void)img, (void)mosaic_bytes, (void)f, (void)pinned, (void)kept;
    return WT_OK;
#endif
}

static void print_host_run(const char *label, const host_run *r, const host_floor *f)
{
    printf("  %-16s %8.2f ms", label, r->ms);
    if (f->ms > 0)
        printf(" = %.2fx floor", r->ms / f->ms);
    printf(" (upload %.2f, transform %.2f, download %.2f ms)\n", r->upload, r->transform,
           r->download);
}

static void print_host_path_json(const wt_engine *e, const wt_params *p,
                                 const host_run *pageable, const host_run *pinned,
                                 const host_run kept[2], const host_floor *f)
{
    wt_json j;
    wt_json_init(&j, 1);
    wt_json_begin_object(&j);
    wt_json_key_string(&j, "device", wt_engine_name(e));
    wt_json_key(&j, "host_path");
    wt_json_bool(&j, 1);
    wt_json_key_string(&j, "wavelet", p->wavelet->name);
    wt_json_key_int(&j, "width", 8192);
    wt_json_key_int(&j, "height", 8192);
    wt_json_key_int(&j, "channels", 3);
    wt_json_key_int(&j, "levels", p->levels);
    wt_json_key_number(&j, "ms", "%.3f", pageable->ms);
    wt_json_key_number(&j, "ms_upload", "%.3f", pageable->upload);
    wt_json_key_number(&j, "ms_transform", "%.3f", pageable->transform);
    wt_json_key_number(&j, "ms_download", "%.3f", pageable->download);
    wt_json_key_number(&j, "ms_pinned_source", "%.3f", pinned->ms);
    wt_json_key_number(&j, "ms_pinned_source_kept_mosaic", "%.3f", kept[0].ms);
    wt_json_key_number(&j, "ms_pinned_source_kept_pinned_mosaic", "%.3f", kept[1].ms);
    wt_json_key_number(&j, "floor_ms", "%.3f", f->ms);
    wt_json_key_uint(&j, "h2d_bytes", f->up_bytes);
    wt_json_key_uint(&j, "d2h_bytes", f->down_bytes);
    wt_json_key_number(&j, "h2d_gbps", "%.2f", gbps((double)f->up_bytes, f->up_ms));
    wt_json_key_number(&j, "d2h_gbps", "%.2f", gbps((double)f->down_bytes, f->down_ms));
    report_json_print(&j, stdout);
}

static void print_host_path(const cli_options *o, const wt_engine *e, const wt_params *p,
                            const host_run *pageable, const host_run *pinned,
                            const host_run kept[2], const host_floor *f)
{
    if ((o->format == REPORT_JSON)) {
        print_host_path_json(e, p, pageable, pinned, kept, f);
        return;
    }
    printf("host path: 8192x8192 RGB 8-bit samples -> %s %s L=%d -> 8-bit mosaic, %s; "
           "median of %d\n",
           p->wavelet->name, wt_mode_name(p->mode), p->levels, wt_engine_name(e), SWEEP(o)->repeat);
    print_host_run("pageable image:", pageable, f);
    if (f->ms > 0) {
        print_host_run("pinned image:", pinned, f);
        print_host_run("+ kept mosaic:", &kept[0], f);
        print_host_run("+ kept, pinned:", &kept[1], f);
        printf("  floor            %8.2f ms = %.0f MB up at %.1f GB/s + %.0f MB down at %.1f GB/s "
               "(pinned copies, same run); target <= 1.25x floor\n",
               f->ms, f->up_bytes / 1e6, gbps((double)f->up_bytes, f->up_ms),
               f->down_bytes / 1e6, gbps((double)f->down_bytes, f->down_ms));
        printf("  host first touch of a fresh %.0f MB buffer (8 threads): 4 KB pages %.2f ms, "
               "2 MB-aligned with MADV_HUGEPAGE %.2f ms\n",
               f->down_bytes / 1e6, first_touch_ms(f->down_bytes, 0),
               first_touch_ms(f->down_bytes, 1));
    }
}

static wt_status host_path(wt_engine *e, const cli_options *o)
{
    const size_t side = 8192;
    wt_params p = {SWEEP(o)->wavelets[0], SWEEP(o)->modes[0], SWEEP(o)->methods[0], o->params.levels};
    wt_image img = {0};
    host_run pageable = {0}, pinned = {0}, kept[2];
    memset(kept, 0, sizeof kept);
    host_floor f = {0};
    size_t mosaic_bytes = 0;
    wt_status st = wt_params_resolve(&p);
    if (st == WT_OK)
        st = wt_image_alloc(&img, side, side, 3, 8);
    for (size_t i = 0; st == WT_OK && i < side * side * 3; i++) /* random-ish, not zeros */
        ((uint8_t *)img.pixels)[i] = (uint8_t)((i * 2654435761u) >> 24);
    if (st == WT_OK)
        st = time_mosaics(e, &p, &img, SWEEP(o)->repeat, &pageable, &mosaic_bytes, NULL);
    if (st == WT_OK && !wt_engine_is_cpu(e))
        st = time_pinned(e, &p, o, &img, mosaic_bytes, &f, &pinned, kept);
    if (st == WT_OK)
        print_host_path(o, e, &p, &pageable, &pinned, kept, &f);
    wt_image_free(&img);
    return st;
}

/* ---------------------------------------------------------------------- */

/* The wavelets timed: --all every one known, else the list. */
static int sweep_count(const sweep_options *w)
{
    return w->all ? (int)wt_wavelet_count() : w->nwavelets;
}

static const wt_wavelet *sweep_wavelet(const sweep_options *w, int i)
{
    return w->all ? wt_wavelet_at((size_t)i) : w->wavelets[i];
}

static wt_status time_volume(wt_engine *e, const wt_params *p, const wt_uparams *up,
                             const cli_options *o, int inverse, bench_row *r);

/* ---------------------------------------------------------------------- */
/* Undecimated transforms (--transform swt|starlet): bytes read and written,
 * as wt_cuda_ubench counts them */

static double undecimated_bytes(const wt_uparams *p, double plane, int inverse)
{
    return wt_transform_class_of(p->transform)->bench_bytes(p, plane, inverse);
}

/* The CPU engine's undecimated transform of host images, either direction. */
typedef struct udwt_run {
    wt_engine *e;
    const wt_uparams *p;
    float *x, *stack;
    size_t height, width;
    int images;
} udwt_run;

static wt_status udwt_once(const void *ctx, int inverse)
{
    const udwt_run *k = ctx;
    return inverse ? wt_uinverse(k->e, k->p, k->stack, k->height, k->width, k->images, k->x)
                   : wt_uforward(k->e, k->p, k->x, k->height, k->width, k->images, k->stack);
}

/* CPU engine: wall clock around wt_uforward/wt_uinverse, memcpy as the copy. */
static wt_status time_cpu_u(wt_engine *e, const wt_uparams *p, const cli_options *o, int inverse,
                            size_t width, size_t height, bench_row *r)
{
    const int repeat = SWEEP(o)->repeat, images = SWEEP(o)->batch;
    const size_t n = width * height * (size_t)images, nb = (size_t)wt_ustack_bands(p);
    const size_t copy = (size_t)(r->bytes / 2);
    float *x = malloc(n * sizeof *x), *stack = malloc(n * nb * sizeof *stack);
    char *a = malloc(copy + 1), *b = malloc(copy + 1);
    double *t = malloc((size_t)repeat * sizeof *t);
    wt_status st = x && stack && a && b && t ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    if (st == WT_OK)
        bench_fill_samples(x, n);
    if (st == WT_OK)
        st = wt_uforward(e, p, x, height, width, images, stack);
    const udwt_run k = {e, p, x, stack, height, width, images};
    if (st == WT_OK)
        st = time_host_runs(udwt_once, &k, inverse, repeat, t, a, b, copy, r);
    free(x);
    free(stack);
    free(a);
    free(b);
    free(t);
    return st;
}

/* The undecimated transform of @p p: a --volume's (bench_volume.c), or
 * images'. */
static wt_status time_one_u(wt_engine *e, const wt_uparams *p, const cli_options *o, int inverse,
                            bench_row *r)
{
    const size_t width = r->width, height = r->height;
    if (o->volume) {
        const wt_params dwt = {p->wavelet, WT_MODE_SYMMETRIC, WT_METHOD_AUTO, p->levels};
        return time_volume(e, &dwt, p, o, inverse, r);
    }
    wt_status st = wt_uparams_check(p, height, width);
    r->bytes = undecimated_bytes(p, (double)width * height * SWEEP(o)->batch, inverse);
    if (st != WT_OK || wt_engine_is_cpu(e))
        return st == WT_OK ? time_cpu_u(e, p, o, inverse, width, height, r) : st;
#if WT_HAVE_CUDA
    wt_cuda_timing t;
    size_t bytes = 0;
    st = wt_cuda_ubench(e, p, height, width, SWEEP(o)->batch, inverse, SWEEP(o)->repeat, &t,
                        &bytes);
    r->bytes = (double)bytes;
    row_from_cuda(r, &t);
    return st;
#else
    return wt_error_set(WT_ERR_UNSUPPORTED, "no GPU benchmark in this build");
#endif
}

static int run_undecimated(wt_engine *e, const cli_options *o)
{
    int failed = 0;
    const wt_transform_class *c = wt_transform_class_of(o->transform);
    const int wavelets = (c->params & WT_TPARAM_WAVELET) != 0;
    const int nw = wavelets ? SWEEP(o)->nwavelets : 1;
    for (int wi = 0; wi < nw; wi++)
        for (int si = 0; si < SWEEP(o)->nsizes; si++)
            for (int inv = 0; inv < 2; inv++) {
                if ((inv && !SWEEP(o)->inverse) || (!inv && !SWEEP(o)->forward))
                    continue;
                wt_uparams p = {o->transform, SWEEP(o)->wavelets[wi], o->params.levels, 0, 0, 0,
                                o->border};
                const char *mode = !(c->params & WT_TPARAM_BORDER) || o->border == WT_BORDER_MIRROR
                                       ? c->name
                                       : wt_border_name(o->border);
                bench_row r = {wavelets ? p.wavelet->name : c->wavelet_name,
                               mode, "-", inv ? "inverse" : "forward",
                               wavelets ? p.wavelet->filter_len : c->kernel_taps,
                               SWEEP(o)->sizes[si][0],
                               SWEEP(o)->sizes[si][1], SWEEP(o)->batch, p.levels, 0, 0, 0, 0, 0,
                               o->volume ? SWEEP(o)->sizes[si][2] : 0, NULL};
                failed |= print_row_or_error(o, e, &r, time_one_u(e, &p, o, inv, &r));
            }
    return failed;
}

/* ---- volumes (bench_volume.c) ---------------------------------------------------- */

/* The DWT of @p p, or the SWT or starlet of @p up (NULL for the DWT). */
static wt_status time_volume(wt_engine *e, const wt_params *p, const wt_uparams *up,
                             const cli_options *o, int inverse, bench_row *r)
{
    wt_volume_spec s;
    cli_volume_spec(o, &s);
    s.params = *p;
    if (up)
        s.uparams = *up;
    const size_t shape[3] = {r->depth, r->height, r->width};
    bench_volume_times t;
    wt_status st = bench_volume_time(e, &s, shape, inverse, SWEEP(o)->repeat, &t);
    r->ms = t.ms, r->ms_min = t.ms_min, r->bytes = t.bytes;
    r->copy_ms = t.copy_ms, r->copy_bytes = t.copy_bytes;
    return st;
}

/* ---- packets: the full tree (wt_packet_forward / wt_packet_inverse) ------------- */

/* Bytes each level reads (its nodes) and writes (their children), 4 a sample:
 * level_at[l + 1] - level_at[l] floats hold level l. */
static double packet_bytes(const wt_packet_tree *t)
{
    double floats = 0.0;
    for (int l = 0; l < t->params.levels; l++)
        floats += (double)(t->level_at[l + 2] - t->level_at[l]);
    return 4.0 * floats;
}

typedef struct packet_run {
    wt_engine *e;
    wt_packet_tree *t;
    const unsigned char *basis; /* the full tree's leaves */
    float *x;
} packet_run;

static wt_status packet_once(const void *ctx, int inverse)
{
    const packet_run *k = ctx;
    return inverse ? wt_packet_inverse(k->e, k->t, k->basis, k->x)
                   : wt_packet_forward(k->e, k->t, k->x);
}

/* Wall-clock median of the tree's forward or inverse (after one forward and
 * a warm-up), and a memcpy of the same bytes; @p t: room for --repeat times. */
static wt_status time_packet_runs(const packet_run *k, int inverse, int repeat, double *t,
                                  bench_row *r)
{
    size_t n = wt_packet_node_size(k->t, 0), copy = (size_t)(r->bytes / 2);
    char *a = malloc(copy + 1), *b = malloc(copy + 1);
    wt_status st = a && b ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    if (st == WT_OK)
        bench_fill_samples(k->x, n);
    if (st == WT_OK)
        st = packet_once(k, 0);
    if (st == WT_OK)
        st = time_host_runs(packet_once, k, inverse, repeat, t, a, b, copy, r);
    free(a);
    free(b);
    return st;
}

/* CUDA engine: the tree resident on the device, every split (or rebuild)
 * timed with cudaEvents (wt_cuda_packet_bench), against a device copy of
 * half the bytes the levels read and write. */
static wt_status time_packet_device(wt_engine *e, const wt_params *p, const cli_options *o,
                                    int inverse, bench_row *r)
{
#if WT_HAVE_CUDA
    wt_cuda_timing t;
    wt_status st = wt_cuda_packet_bench(e, p, r->height, r->width, SWEEP(o)->batch, inverse,
                                        SWEEP(o)->repeat, (size_t)(r->bytes / 2), &t);
    row_from_cuda(r, &t);
    return st;
#else
    (void)e, (void)p, (void)o, (void)inverse, (void)r;
    return wt_error_set(WT_ERR_UNSUPPORTED, "no GPU benchmark in this build");
#endif
}

static wt_status time_packet(wt_engine *e, const wt_params *p, const cli_options *o, int inverse,
                             bench_row *r)
{
    const int repeat = SWEEP(o)->repeat;
    const wt_packet_rule full = {WT_BASIS_FULL, 0};
    const wt_packet_cost cost = {WT_COST_SHANNON, 0.0}; /* unused by the full basis */
    wt_packet_tree tree;
    wt_status st = wt_packet_plan(&tree, p, r->height, r->width, SWEEP(o)->batch);
    if (st == WT_OK)
        r->bytes = packet_bytes(&tree);
    if (st != WT_OK || !wt_engine_is_cpu(e))
        return st == WT_OK ? time_packet_device(e, p, o, inverse, r) : st;
    if ((st = wt_packet_alloc(&tree, p, r->height, r->width, SWEEP(o)->batch)) != WT_OK)
        return st;
    unsigned char *basis = malloc(wt_packet_node_count(p->levels));
    float *x = malloc(wt_packet_node_size(&tree, 0) * sizeof *x);
    double *t = malloc((size_t)repeat * sizeof *t);
    st = basis && x && t ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    if (st == WT_OK)
        st = wt_packet_choose(&tree, &full, &cost, basis, NULL);
    packet_run k = {e, &tree, basis, x};
    if (st == WT_OK)
        st = time_packet_runs(&k, inverse, repeat, t, r);
    wt_packet_free(&tree);
    free(basis);
    free(x);
    free(t);
    return st;
}

/* ---------------------------------------------------------------------- */

static wt_status time_configuration(wt_engine *e, const wt_params *p, const cli_options *o,
                                    int inverse, bench_row *r)
{
    if (o->volume)
        return time_volume(e, p, NULL, o, inverse, r);
    if (wt_transform_class_of(o->transform)->layout == WT_LAYOUT_PACKET)
        return time_packet(e, p, o, inverse, r);
    return time_one(e, p, o, inverse, r->width, r->height, r);
}

/* The configuration resolved, or why it is skipped (a wavelet the kind lacks). */
static wt_status configuration_check(const cli_options *o, wt_params *p)
{
    const wt_transform_class *c = wt_transform_class_of(o->transform);
    wt_status st = wt_params_resolve(p);
    if (st == WT_OK && c->filter_banks_only && p->wavelet->kind != WT_KIND_FILTER_BANK)
        return wt_error_set(WT_ERR_UNSUPPORTED, "--transform %s takes filter-bank wavelets, not %s",
                            c->name, p->wavelet->name);
    return st;
}

static int run_all(wt_engine *e, const cli_options *o)
{
    int failed = 0;
    print_header(o, e);
    if (wt_transform_class_of(o->transform)->layout == WT_LAYOUT_STACK)
        return run_undecimated(e, o);
    for (int wi = 0; wi < sweep_count(SWEEP(o)); wi++)
        for (int mi = 0; mi < SWEEP(o)->nmodes; mi++)
            for (int ki = 0; ki < SWEEP(o)->nmethods; ki++)
                for (int si = 0; si < SWEEP(o)->nsizes; si++)
                    for (int inv = 0; inv < 2; inv++) {
                        if ((inv && !SWEEP(o)->inverse) || (!inv && !SWEEP(o)->forward))
                            continue;
                        wt_params p = {sweep_wavelet(SWEEP(o), wi), SWEEP(o)->modes[mi], SWEEP(o)->methods[ki], o->params.levels};
                        if (configuration_check(o, &p) != WT_OK) {
                            if (!(o->format == REPORT_JSON) && si == 0 && inv == (SWEEP(o)->forward ? 0 : 1))
                                printf("# skipped: %s\n", wt_error_message());
                            continue;
                        }
                        bench_row r = {p.wavelet->name, wt_mode_name(p.mode),
                                       wt_method_name(p.method), inv ? "inverse" : "forward",
                                       p.wavelet->filter_len, SWEEP(o)->sizes[si][0], SWEEP(o)->sizes[si][1], SWEEP(o)->batch, p.levels,
                                       0, 0, 0, 0, 0, o->volume ? SWEEP(o)->sizes[si][2] : 0, NULL};
                        failed |= print_row_or_error(o, e, &r,
                                                     time_configuration(e, &p, o, inv, &r));
                    }
    return failed;
}

/* Lists not given: haar, symmetric, auto, 8192x8192, both directions;
 * --all: symmetric and periodization. */
static void sweep_defaults(sweep_options *w, int volume)
{
    if (w->all) {
        w->modes[w->nmodes++] = WT_MODE_SYMMETRIC;
        w->modes[w->nmodes++] = WT_MODE_PERIODIZATION;
    }
    if (!w->nwavelets)
        w->wavelets[w->nwavelets++] = wt_wavelet_find("haar");
    if (!w->nmodes)
        w->modes[w->nmodes++] = WT_MODE_SYMMETRIC;
    if (!w->nmethods)
        w->methods[w->nmethods++] = WT_METHOD_AUTO;
    if (!w->nsizes) { /* a volume: 256^3 */
        w->sizes[0][0] = w->sizes[0][1] = volume ? 256 : 8192;
        w->sizes[0][2] = volume ? 256 : 0;
        w->nsizes = 1;
    }
    if (!w->forward && !w->inverse)
        w->forward = w->inverse = 1;
}

static void bench_defaults(cli_options *o)
{
    sweep_options *w = o->own;
    o->device = "auto";
    w->batch = 1;
    w->repeat = 20;
}

static int run_bench(const cli_options *given)
{
    cli_options full = *given;
    sweep_options sweep = *SWEEP(given);
    const cli_options *o = &full;
    full.own = &sweep;
    if (report_is_table(given->format))
        return cli_usage_error("bench", "--format %s: bench writes text or json",
                               given->format == REPORT_CSV ? "csv" : "tsv");
    if (sweep.all && (sweep.nwavelets || sweep.nmodes || sweep.host_path ||
                      wt_transform_class_of(given->transform) != wt_transform_at(0)))
        return cli_usage_error("bench", "--all takes no -w, -m, --host-path or --transform");
    for (int i = 0; i < sweep.nsizes; i++)
        if (!sweep.sizes[i][2] != !given->volume)
            return cli_usage_error("bench", given->volume ? "--volume: --size WxHxD"
                                                          : "--size WxHxD is a --volume's");
    if (sweep.host_path && wt_transform_class_of(given->transform)->layout != WT_LAYOUT_PYRAMID)
        return cli_usage_error("bench", "--host-path times the DWT's mosaic (no --transform %s)",
                               wt_transform_name(given->transform));
    if (given->volume && (sweep.host_path || sweep.batch > 1 ||
                          wt_transform_class_of(given->transform)->layout == WT_LAYOUT_PACKET))
        return cli_usage_error("bench", "--volume times the DWT, SWT or starlet of one volume "
                                        "(no --host-path, --batch or --transform %s)",
                               wt_transform_name(given->transform));
    sweep_defaults(&sweep, given->volume);
    wt_engine *e;
    if (wt_engine_open(&e, o->device) != WT_OK) {
        fprintf(stderr, "wavetool: %s\n", wt_error_message());
        return EXIT_SOME_FAILED;
    }
    if (strcmp(o->device, "auto") == 0 && wt_engine_is_cpu(e) && wt_warning_message()[0])
        fprintf(stderr, "wavetool: %s; measuring the CPU engine\n", wt_warning_message());
    int failed = 0;
    if (SWEEP(o)->host_path) {
        if (host_path(e, o) != WT_OK) {
            fprintf(stderr, "wavetool: bench --host-path: %s\n", wt_error_message());
            failed = 1;
        }
    } else {
        failed = run_all(e, o);
    }
    wt_engine_close(e);
    return failed ? EXIT_SOME_FAILED : EXIT_ALL_DONE;
}

const cli_command cmd_bench = {
    .name = "bench",
    .synopsis = "[options]\n       wavetool bench --pipeline [decompose options] INPUT...",
    .tagline = "engine throughput, GB/s vs the device limit",
    .summary =
        "Times the transforms of an engine and compares them with a copy of the same\n"
        "bytes in the same run. GB/s counts 8 bytes per sample per level (each level\n"
        "reads and writes each sample of its input once). --device defaults to auto\n"
        "(the first GPU, else the CPU engine, said on stderr). --volume times the\n"
        "3-D DWT, SWT or starlet of a WxHxD volume (--axes: the axes transformed;\n"
        "SWT bytes: 1 + 2^axes volumes a level); on the GPU, data on the device (a\n"
        "DWT that does not fit: from host memory, streamed).\n"
        "--transform packet times the full tree to -l levels (bytes: those each level\n"
        "reads and writes, 4 a sample; the CPU engine: the tree on the host, one\n"
        "engine call per split node, against a memcpy; the CUDA engine: the tree on\n"
        "the device, against a device copy).",
    .groups = (const cli_group *const[]){&cli_group_device, &sweep_group, &cli_group_volume,
                                         &cli_group_report,
                                         &cli_group_verbosity, NULL},
    .own_size = sizeof(sweep_options),
    .min_args = 0,
    .max_args = 0,
    .defaults = bench_defaults,
    .run = run_bench,
    .variant_flag = "--pipeline",
    .variant = &cmd_bench_pipeline,
};
