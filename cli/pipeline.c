/* The work on one file: load, transform, write, measure. */
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int cpu_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}

int pipeline_workers(int jobs, size_t files)
{
    size_t n = jobs > 0 ? (size_t)jobs : (size_t)cpu_cores();
    n = n < files ? n : files;
    return n < 1 ? 1 : (int)n;
}

int pipeline_run_files(pipeline *p, const cli_options *o, const batch_plan *plan,
                       batch_work work, void *ctx, FILE *report,
                       void (*header)(void *ctx, FILE *report))
{
    batch b = {0};
    int rc = batch_plan_files(&b, plan, o->args, o->nargs);
    const int workers = pipeline_workers(o->jobs, b.count);
    if (rc == CLI_CONTINUE)
        rc = pipeline_open(p, o, workers);
    if (rc == CLI_CONTINUE) {
        batch_run_options run = {workers, o->quiet, o->verbose, o->no_clobber, report};
        if (header)
            header(ctx, report);
        rc = batch_run(&b, &run, work, ctx);
    }
    pipeline_close(p);
    batch_free(&b);
    return rc;
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* How a path appears in messages. */
static const char *shown(const char *file)
{
    return strcmp(file, "-") == 0 ? "(stdin)" : file;
}

/* Put the file's name in front of a message from a function that does not
 * know it (engine, pyramid, mosaic). */
static wt_status name_error(wt_status st, const char *file)
{
    if (st != WT_OK) {
        char reason[1024];
        snprintf(reason, sizeof reason, "%s", wt_error_message());
        wt_error_set(st, "%s: %s", shown(file), reason);
    }
    return st;
}

/* ---- engines --------------------------------------------------------------
 * An engine object is used by one call at a time (the CPU engine keeps a work
 * area). The pool has one CPU engine per worker, sharing the cores; or one
 * engine per GPU, which workers take in turn while they decode and encode. */

static void pool_close(pipeline *p)
{
    for (int i = 0; i < p->nengines; i++)
        wt_engine_close(p->engines[i]);
    free(p->engines);
    free(p->busy);
    p->engines = NULL;
    p->busy = NULL;
    p->nengines = 0;
}

static wt_status pool_add(pipeline *p, const char *device)
{
    wt_engine *e = NULL;
    wt_status st = wt_engine_open(&e, device);
    if (st == WT_OK)
        p->engines[p->nengines++] = e;
    return st;
}

/* Engines 1.. of a CPU pool. */
static wt_status open_more_cpu_engines(pipeline *p, int workers, int threads)
{
    wt_status st = WT_OK;
    while (st == WT_OK && p->nengines < workers)
        st = pool_add(p, "cpu");
    for (int i = 0; i < p->nengines; i++)
        wt_engine_set_threads(p->engines[i], threads);
    return st;
}

/* cuda:all (every device that opens; -v names those that do not) or
 * cuda:N,M,... (each must open). */
static wt_status open_gpu_list(pipeline *p, const char *list)
{
    int all = strcmp(list, "all") == 0;
    int count = all ? wt_gpu_count() : 1;
    for (const char *c = list; !all && *c; c++)
        count += *c == ',';
    if (count < 1)
        return wt_error_set(WT_ERR_DEVICE, "cuda:all: no usable CUDA device");
    free(p->engines);
    free(p->busy);
    p->engines = calloc((size_t)count, sizeof *p->engines);
    p->busy = calloc((size_t)count, 1);
    if (!p->engines || !p->busy)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    wt_status st = WT_OK;
    const char *item = list;
    for (int i = 0; i < count && (st == WT_OK || all); i++) {
        char device[32];
        int len = all ? snprintf(device, sizeof device, "cuda:%d", i)
                      : snprintf(device, sizeof device, "cuda:%.*s", (int)strcspn(item, ","),
                                 item);
        item += strcspn(item, ",") + (item[strcspn(item, ",")] == ',');
        st = len < (int)sizeof device ? pool_add(p, device)
                                      : wt_error_set(WT_ERR_INVALID, "bad device list");
        if (st != WT_OK && all && p->opt->verbose)
            fprintf(stderr, "wavetool: %s not used: %s\n", device, wt_error_message());
    }
    if (all && p->nengines > 0)
        return WT_OK;
    return st != WT_OK ? st : (p->nengines ? WT_OK : WT_ERR_DEVICE);
}

static void say_engines(const pipeline *p, int workers, int threads)
{
    if (!p->opt->verbose)
        return;
    if (p->nengines > 1 && !p->is_gpu) {
        fprintf(stderr, "wavetool: engine: cpu (%d thread%s per file, %d files at a time)\n",
                threads, threads > 1 ? "s" : "", workers);
        return;
    }
    for (int i = 0; i < p->nengines; i++)
        fprintf(stderr, "wavetool: engine: %s\n", wt_engine_name(p->engines[i]));
    if (p->nengines > 1)
        fprintf(stderr, "wavetool: %d GPUs, %d files at a time\n", p->nengines, workers);
}

int pipeline_open(pipeline *p, const cli_options *opt, int workers)
{
    memset(p, 0, sizeof *p);
    p->opt = opt;
    p->engines = calloc((size_t)workers, sizeof *p->engines);
    p->busy = calloc((size_t)workers, 1);
    if (!p->engines || !p->busy) {
        pool_close(p);
        fputs("wavetool: out of memory\n", stderr);
        return EXIT_SOME_FAILED;
    }
    const char *list = strncmp(opt->device, "cuda:", 5) == 0 ? opt->device + 5 : "";
    int threads = cpu_cores() / workers;
    threads = threads < 1 ? 1 : threads;
    wt_status st;
    if (strcmp(list, "all") == 0 || strchr(list, ','))
        st = open_gpu_list(p, list);
    else if ((st = pool_add(p, opt->device)) == WT_OK && wt_engine_is_cpu(p->engines[0])) {
        if (opt->verbose && strcmp(opt->device, "auto") == 0 && wt_warning_message()[0])
            fprintf(stderr, "wavetool: %s; using the CPU engine\n", wt_warning_message());
        st = open_more_cpu_engines(p, workers, threads);
    }
    if (st != WT_OK) {
        pool_close(p);
        fprintf(stderr, "wavetool: %s\n", wt_error_message());
        return EXIT_SOME_FAILED;
    }
    p->is_gpu = !wt_engine_is_cpu(p->engines[0]);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->freed, NULL);
    say_engines(p, workers, threads);
    return CLI_CONTINUE;
}

void pipeline_close(pipeline *p)
{
    if (!p->engines)
        return;
    pool_close(p);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->freed);
}

static int engine_acquire(pipeline *p)
{
    int got = -1;
    pthread_mutex_lock(&p->lock);
    while (got < 0) {
        for (int i = 0; i < p->nengines && got < 0; i++)
            if (!p->busy[i])
                got = i;
        if (got < 0)
            pthread_cond_wait(&p->freed, &p->lock);
    }
    p->busy[got] = 1;
    pthread_mutex_unlock(&p->lock);
    return got;
}

/* Give engine @p i back and add what its call took to the pipeline's split. */
static void engine_release(pipeline *p, int i, const wt_engine_times *before)
{
    wt_engine_times after;
    wt_engine_get_times(p->engines[i], &after);
    pthread_mutex_lock(&p->lock);
    p->stats.upload += after.upload - before->upload;
    p->stats.transform += after.transform - before->transform;
    p->stats.download += after.download - before->download;
    p->busy[i] = 0;
    pthread_cond_signal(&p->freed);
    pthread_mutex_unlock(&p->lock);
}

/* A GPU that fails under --device auto: say so (-v) and use the CPU engine. */
static int falls_back(const pipeline *p, wt_status st, const char *file)
{
    if ((st != WT_ERR_DEVICE && st != WT_ERR_DEVICE_NOMEM) || !p->is_gpu ||
        strcmp(p->opt->device, "auto") != 0)
        return 0;
    if (p->opt->verbose)
        fprintf(stderr, "wavetool: %s: %s; using the CPU engine\n", shown(file),
                wt_error_message());
    return 1;
}

/* What one file asks of an engine. */
typedef enum job_kind {
    JOB_FORWARD,
    JOB_INVERSE,
    JOB_MOSAIC,
    JOB_ROUNDTRIP,
    JOB_ROUNDTRIP_THRESHOLD, /* forward, --keep/--threshold, inverse, on the engine */
} job_kind;

typedef struct engine_job {
    job_kind kind;
    const wt_params *params;
    const wt_image *img; /* input samples (forward, mosaic, roundtrip) */
    wt_pyramid *pyr;     /* forward: out; inverse: in */
    wt_image *out;       /* inverse, roundtrip: allocated; mosaic: allocated there */
    wt_scale scale;
    int depth; /* mosaic bit depth */
    const cli_options *opt; /* thresholded roundtrip: its --keep/--threshold */
    double *kept;           /* thresholded roundtrip: fraction of details kept */
} engine_job;

static wt_status threshold_on(wt_epyramid *ep, const cli_options *o, double *kept)
{
    *kept = 1.0;
    switch (o->threshold) {
    case THRESHOLD_KEEP: return wt_epyramid_keep(ep, o->threshold_value, kept);
    case THRESHOLD_HARD:
    case THRESHOLD_SOFT:
        return wt_epyramid_threshold(ep, o->threshold_value, o->threshold == THRESHOLD_SOFT,
                                     kept);
    case THRESHOLD_NONE: break;
    }
    return WT_OK;
}

/* Forward, thresholds and inverse with the pyramid kept on the engine. */
static wt_status roundtrip_threshold_on(wt_engine *e, const engine_job *j)
{
    wt_epyramid *ep = NULL;
    wt_status st = wt_epyramid_create(e, j->params, j->img->height, j->img->width,
                                      j->img->channels, &ep);
    if (st == WT_OK)
        st = wt_epyramid_forward_image(ep, j->img);
    if (st == WT_OK)
        st = threshold_on(ep, j->opt, j->kept);
    if (st == WT_OK)
        st = wt_epyramid_inverse_image(ep, j->out);
    wt_epyramid_destroy(ep);
    return st;
}

static wt_status job_on(wt_engine *e, const engine_job *j)
{
    switch (j->kind) {
    case JOB_FORWARD: return wt_forward_image(e, j->params, j->img, j->pyr);
    case JOB_INVERSE: return wt_inverse_image(e, j->params, j->pyr, j->out);
    case JOB_MOSAIC: return wt_mosaic_image(e, j->params, j->img, j->scale, j->depth, j->out);
    case JOB_ROUNDTRIP: return wt_roundtrip_image(e, j->params, j->img, j->out);
    case JOB_ROUNDTRIP_THRESHOLD: return roundtrip_threshold_on(e, j);
    }
    return wt_error_set(WT_ERR_INVALID, "unknown engine job");
}

static wt_status job_on_cpu(const engine_job *j)
{
    wt_engine *cpu = NULL;
    wt_status st = wt_engine_open(&cpu, "cpu");
    if (st == WT_OK)
        st = job_on(cpu, j);
    wt_engine_close(cpu);
    return st;
}

/* Run @p j on an engine of the pool (the CPU engine after a GPU failure under
 * --device auto); messages name @p file. */
static wt_status engine_run(pipeline *p, const engine_job *j, const char *file)
{
    int i = engine_acquire(p);
    wt_engine_times before;
    wt_engine_get_times(p->engines[i], &before);
    wt_status st = job_on(p->engines[i], j);
    engine_release(p, i, &before);
    if (falls_back(p, st, file))
        st = job_on_cpu(j);
    return name_error(st, file);
}

/* Decoding and encoding, timed for the pipeline's split. */
static wt_status load_timed(pipeline *p, const char *file, wt_image *img)
{
    double t0 = seconds();
    wt_status st = wt_image_load(file, &p->opt->load, img);
    double dt = seconds() - t0;
    if (st == WT_OK && wt_warning_message()[0] && !p->opt->quiet)
        batch_note("warning: %s", wt_warning_message());
    pthread_mutex_lock(&p->lock);
    p->stats.decode += dt;
    if (st == WT_OK) {
        p->stats.images++;
        p->stats.pixels += (double)img->width * img->height;
    }
    pthread_mutex_unlock(&p->lock);
    if (st == WT_OK)
        batch_count_pixels((double)img->width * img->height);
    return st;
}

static void add_encode_time(pipeline *p, double t0)
{
    double dt = seconds() - t0;
    pthread_mutex_lock(&p->lock);
    p->stats.encode += dt;
    pthread_mutex_unlock(&p->lock);
}

static wt_status save_timed(pipeline *p, const char *out, const wt_image *img)
{
    double t0 = seconds();
    wt_status st = wt_image_save(out, img, &p->opt->save, cli_output_format(p->opt, out));
    add_encode_time(p, t0);
    return st;
}

/* ---- steps --------------------------------------------------------------- */

/* The transform for this image: -l max, the levels asked for if they fit, or
 * the default (3) made smaller for small images. */
static wt_status params_for(const cli_options *o, const wt_image *img, const char *file,
                            wt_params *p)
{
    *p = o->params;
    int max = wt_max_level(img->height, img->width, p->wavelet);
    if (!o->levels_max && !o->levels_given && p->levels > max && o->verbose)
        batch_note("%s: %d level%s instead of the default %d: a %ux%u image with %s allows at "
                   "most %d (-l N to insist)",
                   shown(file), max, max == 1 ? "" : "s", p->levels, img->width, img->height,
                   p->wavelet->name, max);
    else if (o->levels_given && !o->levels_max && p->levels > max && !o->quiet)
        batch_note("warning: %s: %d levels on a %ux%u image with %s, deeper than its "
                   "dwt_max_level %d: computed as pywt.wavedec2 does (boundary effects "
                   "dominate the deepest bands)",
                   shown(file), p->levels, img->width, img->height, p->wavelet->name, max);
    if (o->levels_max || (!o->levels_given && p->levels > max))
        p->levels = max;
    return name_error(wt_params_resolve(p), file);
}

static wt_status forward_image(pipeline *p, const wt_image *img, const wt_params *params,
                               const char *file, wt_pyramid *pyr)
{
    wt_status st = name_error(wt_pyramid_alloc(pyr, params, img->height, img->width,
                                               img->channels),
                              file);
    engine_job job = {.kind = JOB_FORWARD, .params = params, .img = img, .pyr = pyr};
    return st == WT_OK ? engine_run(p, &job, file) : st;
}

/* A new image of @p like's size, channels, depth and colour into @p img. */
static wt_status alloc_like(const wt_image *like, const char *file, wt_image *img)
{
    wt_status st = wt_image_alloc(img, like->width, like->height, like->channels,
                                  like->bit_depth);
    img->color = like->color;
    return name_error(st, file);
}

static void fill_meta(const wt_params *params, const wt_image *img, wt_npz_meta *meta)
{
    memset(meta, 0, sizeof *meta);
    snprintf(meta->wavelet, sizeof meta->wavelet, "%s", params->wavelet->name);
    meta->mode = params->mode;
    meta->method = params->method;
    meta->levels = params->levels;
    meta->width = img->width;
    meta->height = img->height;
    meta->channels = img->channels;
    meta->bit_depth = img->bit_depth;
    meta->color = img->color;
}

static int mosaic_depth(const cli_options *o, const wt_image *img, wt_file_format format)
{
    return o->depth ? o->depth : (format == WT_FORMAT_JPEG ? 8 : img->bit_depth);
}

/* The mosaic of @p img, drawn by the engine, into @p out. */
static wt_status write_mosaic(pipeline *p, const wt_image *img, const wt_params *params,
                              const char *in, const char *out)
{
    const cli_options *o = p->opt;
    wt_image mosaic = {0};
    engine_job job = {.kind = JOB_MOSAIC, .params = params, .img = img, .out = &mosaic,
                      .scale = o->scale,
                      .depth = mosaic_depth(o, img, cli_output_format(o, out))};
    wt_status st = engine_run(p, &job, in);
    if (st == WT_OK)
        st = save_timed(p, out, &mosaic);
    wt_image_free(&mosaic);
    return st;
}

static wt_status write_coefficients(pipeline *p, const wt_image *img, const wt_params *params,
                                    const char *in, const char *out)
{
    wt_pyramid pyr = {0};
    wt_npz_meta meta;
    wt_status st = forward_image(p, img, params, in, &pyr);
    if (st == WT_OK) {
        fill_meta(params, img, &meta);
        double t0 = seconds();
        st = wt_npz_save(out, &pyr, &meta);
        add_encode_time(p, t0);
    }
    wt_pyramid_free(&pyr);
    return st;
}

/* ---- commands ---------------------------------------------------------------- */

wt_status pipeline_decompose(pipeline *p, const char *in, const char *out)
{
    wt_image img = {0};
    wt_params params;
    wt_status st = load_timed(p, in, &img);
    if (st == WT_OK)
        st = params_for(p->opt, &img, in, &params);
    if (st == WT_OK && p->transcode_only)
        st = save_timed(p, out, &img);
    else if (st == WT_OK && cli_output_format(p->opt, out) == WT_FORMAT_NPZ)
        st = write_coefficients(p, &img, &params, in, out);
    else if (st == WT_OK)
        st = write_mosaic(p, &img, &params, in, out);
    wt_image_free(&img);
    return st;
}

static wt_status params_from_meta(const wt_npz_meta *meta, const wt_pyramid *pyr,
                                  const char *file, wt_params *params)
{
    *params = (wt_params){wt_wavelet_find(meta->wavelet), meta->mode, meta->method,
                          meta->levels};
    if (!params->wavelet)
        return wt_error_set(WT_ERR_FORMAT, "%s: unknown wavelet '%s' in meta", file,
                            meta->wavelet);
    if (pyr->height != meta->height || pyr->width != meta->width ||
        pyr->channels != meta->channels)
        return wt_error_set(WT_ERR_FORMAT, "%s: coefficients do not match meta", file);
    return name_error(wt_params_resolve(params), file);
}

wt_status pipeline_reconstruct(pipeline *p, const char *in, const char *out)
{
    wt_pyramid pyr = {0};
    wt_npz_meta meta;
    wt_params params;
    wt_image img = {0};
    double t0 = seconds();
    wt_status st = wt_npz_load(in, &pyr, &meta);
    pthread_mutex_lock(&p->lock);
    p->stats.decode += seconds() - t0;
    pthread_mutex_unlock(&p->lock);
    if (st == WT_OK)
        st = params_from_meta(&meta, &pyr, in, &params);
    if (st == WT_OK)
        st = name_error(wt_image_alloc(&img, meta.width, meta.height, meta.channels,
                                       meta.bit_depth),
                        in);
    if (st == WT_OK) {
        img.color = meta.color;
        engine_job job = {.kind = JOB_INVERSE, .params = &params, .pyr = &pyr, .out = &img};
        st = engine_run(p, &job, in);
    }
    if (st == WT_OK)
        st = save_timed(p, out, &img);
    wt_image_free(&img);
    wt_pyramid_free(&pyr);
    return st;
}

wt_status pipeline_roundtrip(pipeline *p, const char *in, const char *out, roundtrip_result *r)
{
    const cli_options *o = p->opt;
    wt_image img = {0}, back = {0};
    wt_params params;
    memset(r, 0, sizeof *r);
    r->kept = 1.0;
    wt_status st = load_timed(p, in, &img);
    if (st == WT_OK)
        st = params_for(o, &img, in, &params);
    if (st == WT_OK)
        st = alloc_like(&img, in, &back);
    engine_job job = {.kind = o->threshold != THRESHOLD_NONE ? JOB_ROUNDTRIP_THRESHOLD
                                                             : JOB_ROUNDTRIP,
                      .params = &params, .img = &img, .out = &back, .opt = o, .kept = &r->kept};
    if (st == WT_OK)
        st = engine_run(p, &job, in);
    if (st == WT_OK)
        st = name_error(wt_quality_compare(&img, &back, &r->quality), in);
    if (st == WT_OK && out)
        st = save_timed(p, out, &back);
    r->original = img;
    r->original.pixels = NULL;
    wt_image_free(&img);
    wt_image_free(&back);
    return st;
}

wt_status pipeline_compare(const cli_options *opt, const char *a, const char *b, wt_quality *q,
                           wt_image *layout)
{
    wt_image ia = {0}, ib = {0};
    wt_status st = wt_image_load(a, &opt->load, &ia);
    if (st == WT_OK)
        st = wt_image_load(b, &opt->load, &ib);
    if (st == WT_OK && (st = wt_quality_compare(&ia, &ib, q)) != WT_OK) {
        char reason[1024];
        snprintf(reason, sizeof reason, "%s", wt_error_message());
        wt_error_set(st, "%s, %s: %s", shown(a), shown(b), reason);
    }
    *layout = ia;
    layout->pixels = NULL;
    wt_image_free(&ia);
    wt_image_free(&ib);
    return st;
}
