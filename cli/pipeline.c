/* The work on one file: load, transform, write, measure. */
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>
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
 * area). The pool has one CPU engine per worker, sharing the cores; or the one
 * GPU engine, which workers take in turn while they decode and encode. */

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

/* Engines 1.. of a CPU pool; a message and WT_ERR_* on failure. */
static wt_status open_more_cpu_engines(pipeline *p, int workers, int threads)
{
    wt_status st = WT_OK;
    wt_engine_set_threads(p->engines[0], threads);
    while (st == WT_OK && p->nengines < workers) {
        st = wt_engine_open(&p->engines[p->nengines], "cpu");
        if (st == WT_OK)
            wt_engine_set_threads(p->engines[p->nengines++], threads);
    }
    return st;
}

static void say_engine(const pipeline *p, int workers, int threads)
{
    if (!p->opt->verbose)
        return;
    if (p->nengines > 1)
        fprintf(stderr, "wavetool: engine: cpu (%d thread%s per file, %d files at a time)\n",
                threads, threads > 1 ? "s" : "", workers);
    else
        fprintf(stderr, "wavetool: engine: %s\n", wt_engine_name(p->engines[0]));
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
    wt_status st = wt_engine_open(&p->engines[0], opt->device);
    p->nengines = st == WT_OK;
    int threads = cpu_cores() / workers;
    threads = threads < 1 ? 1 : threads;
    if (st == WT_OK && wt_engine_is_cpu(p->engines[0]) && workers > 1)
        st = open_more_cpu_engines(p, workers, threads);
    if (st != WT_OK) {
        pool_close(p);
        fprintf(stderr, "wavetool: %s\n", wt_error_message());
        return EXIT_SOME_FAILED;
    }
    p->is_gpu = !wt_engine_is_cpu(p->engines[0]);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->freed, NULL);
    say_engine(p, workers, threads);
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

static void engine_release(pipeline *p, int i)
{
    pthread_mutex_lock(&p->lock);
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

static wt_status cpu_run(const wt_params *params, const float *planes, wt_pyramid *pyr,
                         float *out, int inverse)
{
    wt_engine *cpu = NULL;
    wt_status st = wt_engine_open(&cpu, "cpu");
    if (st == WT_OK)
        st = inverse ? wt_inverse(cpu, params, pyr, out) : wt_forward(cpu, params, planes, pyr);
    wt_engine_close(cpu);
    return st;
}

/* Forward (inverse: planes -> out from pyr) on an engine of the pool. */
static wt_status engine_run(pipeline *p, const wt_params *params, const float *planes,
                            wt_pyramid *pyr, float *out, int inverse, const char *file)
{
    int i = engine_acquire(p);
    wt_status st = inverse ? wt_inverse(p->engines[i], params, pyr, out)
                           : wt_forward(p->engines[i], params, planes, pyr);
    engine_release(p, i);
    if (falls_back(p, st, file))
        st = cpu_run(params, planes, pyr, out, inverse);
    return name_error(st, file);
}

/* ---- steps --------------------------------------------------------------- */

/* The transform for this image: -l max, the levels asked for if they fit, or
 * the default (3) made smaller for small images. */
static wt_status params_for(const cli_options *o, const wt_image *img, const char *file,
                            wt_params *p)
{
    *p = o->params;
    int max = wt_max_level(img->height, img->width, p->wavelet);
    if (o->levels_max || (!o->levels_given && p->levels > max))
        p->levels = max;
    else if (p->levels > max)
        return wt_error_set(WT_ERR_INVALID,
                            "%s: %d level%s too deep for a %ux%u image with %s (at most %d; "
                            "use -l max)",
                            shown(file), p->levels, p->levels == 1 ? " is" : "s is", img->width,
                            img->height, p->wavelet->name, max);
    return name_error(wt_params_resolve(p), file);
}

static float *alloc_planes(const wt_image *img, const char *file)
{
    size_t n = (size_t)img->width * img->height;
    float *planes = NULL;
    if (n <= SIZE_MAX / sizeof(float) / 4)
        planes = malloc((n ? n : 1) * (size_t)img->channels * sizeof *planes);
    if (!planes)
        wt_error_set(WT_ERR_NOMEM, "%s: out of memory for %ux%u samples", shown(file), img->width,
                     img->height);
    return planes;
}

static wt_status forward_image(pipeline *p, const wt_image *img, const wt_params *params,
                               const char *file, wt_pyramid *pyr)
{
    float *planes = alloc_planes(img, file);
    wt_status st = planes ? WT_OK : WT_ERR_NOMEM;
    if (st == WT_OK)
        st = name_error(wt_image_to_planes(img, planes), file);
    if (st == WT_OK)
        st = name_error(wt_pyramid_alloc(pyr, params, img->height, img->width, img->channels),
                        file);
    if (st == WT_OK)
        st = engine_run(p, params, planes, pyr, NULL, 0, file);
    free(planes);
    return st;
}

/* Inverse into @p img, already allocated with the original's layout. */
static wt_status inverse_image(pipeline *p, const wt_params *params, wt_pyramid *pyr,
                               const char *file, wt_image *img)
{
    float *planes = alloc_planes(img, file);
    wt_status st = planes ? WT_OK : WT_ERR_NOMEM;
    if (st == WT_OK)
        st = engine_run(p, params, NULL, pyr, planes, 1, file);
    if (st == WT_OK)
        wt_image_from_planes(img, planes);
    free(planes);
    return st;
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

static wt_status write_mosaic(const cli_options *o, const wt_pyramid *pyr, const wt_image *img,
                              wt_file_format format, const char *in, const char *out)
{
    wt_image mosaic = {0};
    int depth = o->depth ? o->depth : (format == WT_FORMAT_JPEG ? 8 : img->bit_depth);
    wt_status st = name_error(wt_mosaic_render(pyr, o->scale, depth, &mosaic), in);
    if (st == WT_OK)
        st = wt_image_save(out, &mosaic, &o->save, format);
    wt_image_free(&mosaic);
    return st;
}

/* ---- commands ---------------------------------------------------------------- */

wt_status pipeline_decompose(pipeline *p, const char *in, const char *out)
{
    const cli_options *o = p->opt;
    wt_image img = {0};
    wt_pyramid pyr = {0};
    wt_params params;
    wt_npz_meta meta;
    wt_file_format format = cli_output_format(o, out);
    wt_status st = wt_image_load(in, &o->load, &img);
    if (st == WT_OK)
        st = params_for(o, &img, in, &params);
    if (st == WT_OK)
        st = forward_image(p, &img, &params, in, &pyr);
    if (st == WT_OK && format == WT_FORMAT_NPZ) {
        fill_meta(&params, &img, &meta);
        st = wt_npz_save(out, &pyr, &meta);
    } else if (st == WT_OK) {
        st = write_mosaic(o, &pyr, &img, format, in, out);
    }
    wt_pyramid_free(&pyr);
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
    wt_status st = wt_npz_load(in, &pyr, &meta);
    if (st == WT_OK)
        st = params_from_meta(&meta, &pyr, in, &params);
    if (st == WT_OK)
        st = name_error(wt_image_alloc(&img, meta.width, meta.height, meta.channels,
                                       meta.bit_depth),
                        in);
    if (st == WT_OK) {
        img.color = meta.color;
        st = inverse_image(p, &params, &pyr, in, &img);
    }
    if (st == WT_OK)
        st = wt_image_save(out, &img, &p->opt->save, cli_output_format(p->opt, out));
    wt_image_free(&img);
    wt_pyramid_free(&pyr);
    return st;
}

static wt_status apply_threshold(const cli_options *o, wt_pyramid *pyr, const char *file,
                                 double *kept)
{
    *kept = 1.0;
    switch (o->threshold) {
    case THRESHOLD_KEEP: return name_error(wt_pyramid_keep(pyr, o->threshold_value, kept), file);
    case THRESHOLD_HARD:
    case THRESHOLD_SOFT:
        return name_error(wt_pyramid_threshold(pyr, o->threshold_value,
                                               o->threshold == THRESHOLD_SOFT, kept),
                          file);
    case THRESHOLD_NONE: break;
    }
    return WT_OK;
}

wt_status pipeline_roundtrip(pipeline *p, const char *in, const char *out, roundtrip_result *r)
{
    const cli_options *o = p->opt;
    wt_image img = {0}, back = {0};
    wt_pyramid pyr = {0};
    wt_params params;
    memset(r, 0, sizeof *r);
    wt_status st = wt_image_load(in, &o->load, &img);
    if (st == WT_OK)
        st = params_for(o, &img, in, &params);
    if (st == WT_OK)
        st = forward_image(p, &img, &params, in, &pyr);
    if (st == WT_OK)
        st = apply_threshold(o, &pyr, in, &r->kept);
    if (st == WT_OK)
        st = name_error(wt_image_alloc(&back, img.width, img.height, img.channels,
                                       img.bit_depth),
                        in);
    if (st == WT_OK) {
        back.color = img.color;
        st = inverse_image(p, &params, &pyr, in, &back);
    }
    if (st == WT_OK)
        st = name_error(wt_quality_compare(&img, &back, &r->quality), in);
    if (st == WT_OK && out)
        st = wt_image_save(out, &back, &o->save, cli_output_format(o, out));
    r->original = img;
    r->original.pixels = NULL;
    wt_pyramid_free(&pyr);
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
