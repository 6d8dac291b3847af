/* --volume in the file commands (see volume.h). */
#include "volume.h"

#include "figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the transform of a volume ----------------------------------------------- */

/* Threads of the volume's passes on the host: the CPU engine's share of
 * the cores (all of them beside a GPU engine), once the pool is open. */
static int volume_threads(pipeline *p)
{
    const wt_engine *e = pipeline_engine_kind(p);
    int workers = !e || !wt_engine_is_cpu(e) ? 1 : p->nengines;
    int threads = wt_cpu_count() / workers;
    return threads < 1 ? 1 : threads;
}

static int is_decimated(const wt_volume_spec *s)
{
    return wt_transform_class_of(s->transform)->layout == WT_LAYOUT_PYRAMID;
}

static void set_levels(wt_volume_spec *s, int levels)
{
    s->params.levels = levels;
    s->uparams.levels = levels;
}

/* -l max, the levels asked for, or the default 3 made smaller for small
 * volumes; deeper than the DWT's dwtn_max_level is computed as
 * pywt.wavedecn does, with a warning. */
static wt_status fit_levels(const cli_options *o, batch_item *item, const char *file,
                            const size_t shape[3], wt_volume_spec *s)
{
    int max = wt_volume_max_level(s, shape);
    if (!is_decimated(s) && max < 1)
        max = 1; /* the periodic SWT and the starlet take any size */
    if (is_decimated(s) && o->levels_given && !o->levels_max && s->params.levels > max &&
        !o->quiet)
        batch_note(item,
                   "warning: %s: %d levels on a %zux%zux%zu volume with %s, deeper than its "
                   "dwtn_max_level %d: computed as pywt.wavedecn does (boundary effects "
                   "dominate the deepest bands)",
                   pipeline_shown(file), s->params.levels, shape[2], shape[1], shape[0],
                   s->params.wavelet->name, max);
    if (o->levels_max || (!o->levels_given && s->params.levels > max))
        set_levels(s, max);
    if (!is_decimated(s) && s->uparams.levels < 1)
        return wt_error_set(WT_ERR_INVALID, "%s: --transform %s needs at least 1 level",
                            pipeline_shown(file), wt_transform_name(s->transform));
    return WT_OK;
}

/* wt_volume_load's need: the bytes a voxel takes through the transform. */
typedef struct need_ctx {
    const cli_options *o;
} need_ctx;

static unsigned volume_need(void *ctx, const size_t shape[3])
{
    const cli_options *o = ((need_ctx *)ctx)->o;
    wt_volume_spec s;
    cli_volume_spec(o, &s);
    if (o->levels_max || !o->levels_given) {
        int max = wt_volume_max_level(&s, shape);
        set_levels(&s, max < 1 ? 1 : max);
    }
    return wt_volume_bytes_per_sample(&s);
}

/* An image of a page's size, channels and sample type (no pixels). */
static wt_image image_layout_of(const wt_volume *v)
{
    return (wt_image){(uint32_t)v->shape[2], (uint32_t)v->shape[1], v->channels, v->bit_depth,
                      v->color, NULL, v->stored, NULL, NULL};
}

static wt_status load_volume(pipeline *p, const char *in, wt_volume *v)
{
    pipeline_span t0 = pipeline_span_start(p, PHASE_DECODE);
    need_ctx ctx = {p->opt};
    wt_status st = wt_volume_load(in, &p->load, volume_need, &ctx, v);
    pipeline_span_end(p, &p->stats.decode, t0);
    if (st == WT_OK) {
        p->stats.images++;
        p->stats.pixels += (double)v->shape[0] * (double)v->shape[1] * (double)v->shape[2];
    }
    return pipeline_name_error(st, in);
}

/* One transform of a volume on an engine of the pipeline (the GPU where it
 * runs the volume, wt_volume_on_engine; else the host). */
typedef struct volume_job {
    const wt_volume_spec *s;
    const wt_volume *v;
    const wt_vcoeffs *in;
    wt_vcoeffs *out;
    float *planes;
    int threads;
} volume_job;

static wt_status forward_job(wt_engine *e, void *arg)
{
    const volume_job *j = arg;
    return wt_volume_forward_on(e, j->s, j->v->planes, j->v->shape, j->v->channels, j->threads,
                                j->out);
}

static wt_status inverse_job(wt_engine *e, void *arg)
{
    const volume_job *j = arg;
    return wt_volume_inverse_on(e, j->s, j->in, j->planes, j->threads);
}

static wt_status forward(pipeline *p, const wt_volume_spec *s, const wt_volume *v,
                         const char *file, wt_vcoeffs *c)
{
    pipeline_span t0 = pipeline_span_start(p, PHASE_ENGINE);
    volume_job j = {s, v, NULL, c, NULL, volume_threads(p)};
    wt_status st = pipeline_engine_run(p, forward_job, &j, file);
    pipeline_span_end(p, &p->stats.transform, t0);
    return st;
}

static wt_status inverse(pipeline *p, const wt_volume_spec *s, const wt_vcoeffs *c,
                         float *planes, const char *file)
{
    pipeline_span t0 = pipeline_span_start(p, PHASE_ENGINE);
    volume_job j = {s, NULL, c, NULL, planes, volume_threads(p)};
    wt_status st = pipeline_engine_run(p, inverse_job, &j, file);
    pipeline_span_end(p, &p->stats.transform, t0);
    return st;
}

/* ---- decompose -------------------------------------------------------------------- */

static void fill_meta(const wt_volume_spec *s, const wt_volume *v, wt_npz_meta *m)
{
    const wt_transform_class *c = wt_transform_class_of(s->transform);
    *m = (wt_npz_meta){.width = (uint32_t)v->shape[2], .height = (uint32_t)v->shape[1],
                       .depth = (uint32_t)v->shape[0], .channels = v->channels,
                       .bit_depth = v->bit_depth, .color = v->color, .stored = v->stored};
    snprintf(m->wavelet, sizeof m->wavelet, "%s",
             c->params & WT_TPARAM_WAVELET ? s->params.wavelet->name : c->wavelet_name);
    m->mode = is_decimated(s) ? s->params.mode : c->meta_mode;
    m->method = is_decimated(s) ? s->params.method : WT_METHOD_CONV;
    m->levels = s->params.levels;
    m->transform = s->transform;
    m->start_level = s->uparams.start_level;
    m->norm = s->uparams.norm;
    m->all_approx = s->uparams.all_approx;
    m->border = s->uparams.border;
    for (int k = 0; k < s->naxes; k++)
        m->axes[k] = (char)('0' + s->axes[k]);
}

/* The volume's transform for these options, its levels fitted and resolved. */
static wt_status spec_for(pipeline *p, batch_item *item, const char *in, const wt_volume *v,
                          wt_volume_spec *s)
{
    cli_volume_spec(p->opt, s);
    wt_status st = fit_levels(p->opt, item, in, v->shape, s);
    if (st == WT_OK && is_decimated(s))
        st = pipeline_name_error(wt_params_resolve(&s->params), in);
    return st;
}

/* The mosaic of @p c: every band at --slice's page (default the middle one)
 * or projected, 8/16-bit as --depth or the input's (float: 16). */
static wt_status write_mosaic(pipeline *p, const wt_volume *v, const wt_vcoeffs *c,
                              const char *in, const char *out)
{
    const cli_options *o = p->opt;
    long z = o->slice == -2 ? (long)(v->shape[0] / 2) : o->slice;
    int depth = o->depth ? o->depth : v->bit_depth == WT_DEPTH_F32 ? 16 : v->bit_depth;
    depth = wt_format_depth(cli_output_format(o, out), depth);
    if (!wt_mosaic_style_is_plain(&o->style) || o->depth == WT_DEPTH_F32)
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: a --volume's mosaic takes --scale, "
                                                "--depth 8|16 and --slice, no other style",
                            pipeline_shown(in));
    if (z >= (long)v->shape[0])
        return wt_error_set(WT_ERR_INVALID, "%s: --slice z=%ld of a volume of %zu pages "
                                            "(0 to %zu)",
                            pipeline_shown(in), z, v->shape[0], v->shape[0] - 1);
    wt_image mosaic = {0};
    wt_status st = pipeline_name_error(wt_volume_mosaic(c, z, o->scale, depth, &mosaic), in);
    if (st == WT_OK) {
        mosaic.color = (wt_color)mosaic.channels;
        st = pipeline_save(p, out, &mosaic);
    }
    wt_image_free(&mosaic);
    return st;
}

static wt_status write_coefficients(pipeline *p, const wt_volume_spec *s, wt_volume *v,
                                    const wt_vcoeffs *c, const char *out)
{
    wt_npz_meta meta;
    fill_meta(s, v, &meta);
    meta.compress = p->opt->compress;
    wt_volume_free(v); /* not needed any more */
    pipeline_span t0 = pipeline_span_start(p, PHASE_ENCODE);
    wt_status st = wt_npz_save_volume(out, c, &meta);
    pipeline_span_end(p, &p->stats.encode, t0);
    return st;
}

/* @p in read whole, its transform chosen (--axes, levels) and run. */
static wt_status load_and_forward(pipeline *p, batch_item *item, const char *in, wt_volume *v,
                                  wt_volume_spec *s, wt_vcoeffs *c)
{
    wt_status st = load_volume(p, in, v);
    if (st == WT_OK)
        st = spec_for(p, item, in, v, s);
    if (st == WT_OK)
        st = forward(p, s, v, in, c);
    return st;
}

wt_status volume_decompose(pipeline *p, batch_item *item, const char *in, const char *out)
{
    const wt_format_info *info = wt_format_describe(cli_output_format(p->opt, out));
    const int coefficients = info && (info->holds & WT_HOLDS_COEFFS);
    wt_volume v;
    wt_volume_spec s;
    wt_vcoeffs c = {0};
    wt_status st = load_and_forward(p, item, in, &v, &s, &c);
    if (st == WT_OK)
        st = coefficients ? write_coefficients(p, &s, &v, &c, out)
                          : write_mosaic(p, &v, &c, in, out);
    wt_vcoeffs_free(&c);
    wt_volume_free(&v);
    return st;
}

/* ---- reconstruct and roundtrip --------------------------------------------------- */

/* @p v's samples written to @p out as a stack, in --depth's type or its own. */
static wt_status save_volume(pipeline *p, const char *out, wt_volume *v)
{
    const cli_options *o = p->opt;
    wt_file_format f = cli_output_format(o, out);
    wt_image like = image_layout_of(v);
    wt_sample_type want = cli_result_type(o, wt_image_stored(&like));
    char list[96];
    wt_status st = WT_OK;
    if (v->shape[0] > 1 && !wt_format_holds(f, WT_HOLDS_STACK))
        st = wt_error_set(WT_ERR_UNSUPPORTED, "%s: a volume of %zu pages is written as %s",
                          out, v->shape[0],
                          wt_format_list(list, sizeof list, WT_HOLDS_STACK | WT_HOLDS_IMAGE,
                                         ".", ", ", " or "));
    if (st == WT_OK)
        st = wt_image_check_holds(f, out, want, v->channels);
    if (st != WT_OK)
        return st;
    v->bit_depth = wt_sample_type_depth(want);
    v->stored = v->bit_depth == WT_DEPTH_F32 ? want : (wt_sample_type){0, 0};
    pipeline_span t0 = pipeline_span_start(p, PHASE_ENCODE);
    st = wt_volume_save(out, f, v);
    pipeline_span_end(p, &p->stats.encode, t0);
    return st;
}

static wt_status alloc_planes(const wt_volume *like, const char *file, float **planes)
{
    size_t n = like->shape[0] * like->shape[1] * like->shape[2] * (size_t)like->channels;
    *planes = malloc(n * sizeof **planes + 4);
    return *planes ? WT_OK
                   : wt_error_set(WT_ERR_NOMEM, "%s: out of memory (%zu MiB)",
                                  pipeline_shown(file), n * sizeof(float) >> 20);
}

wt_status volume_reconstruct(pipeline *p, const char *in, const char *out)
{
    wt_volume_spec s;
    wt_vcoeffs c;
    wt_npz_meta meta;
    pipeline_span t0 = pipeline_span_start(p, PHASE_DECODE);
    wt_status st = wt_npz_load_volume(in, &p->load, &s, &c, &meta);
    pipeline_span_end(p, &p->stats.decode, t0);
    wt_volume v = {{meta.depth, meta.height, meta.width}, meta.channels, meta.bit_depth,
                   meta.color, meta.stored, NULL};
    if (st == WT_OK)
        st = alloc_planes(&v, in, &v.planes);
    if (st == WT_OK)
        st = inverse(p, &s, &c, v.planes, in);
    wt_vcoeffs_free(&c);
    if (st == WT_OK)
        st = save_volume(p, out, &v);
    wt_volume_free(&v);
    return st;
}

/* The peak of float32 samples: the range of @p v's, 1 when flat (as
 * wt_quality_compare's); 2^depth - 1 of integers. */
static double peak_of(const wt_volume *v, size_t n)
{
    if (v->bit_depth != WT_DEPTH_F32)
        return ldexp(1.0, v->bit_depth) - 1.0;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n * (size_t)v->channels; i++) {
        lo = fmin(lo, v->planes[i]);
        hi = fmax(hi, v->planes[i]);
    }
    return hi > lo && isfinite(hi - lo) ? hi - lo : 1.0;
}

static double psnr_of(double mse, double peak)
{
    return mse > 0.0 ? 10.0 * log10(peak * peak / mse) : INFINITY;
}

/* Per channel MSE of @p back against @p v, PSNR against @p v's peak; @p back
 * rounded and clamped first as an 8/16-bit output is written (@p as_written). */
static void volume_quality(const wt_volume *v, const float *back, int as_written, wt_quality *q)
{
    const size_t n = v->shape[0] * v->shape[1] * v->shape[2];
    const double peak = peak_of(v, n);
    const int rounded = as_written && v->bit_depth != WT_DEPTH_F32;
    double sum = 0.0;
    memset(q, 0, sizeof *q);
    q->channels = v->channels;
    for (int c = 0; c < v->channels; c++) {
        double se = 0.0;
        for (size_t i = 0; i < n; i++) {
            double a = v->planes[(size_t)c * n + i], b = back[(size_t)c * n + i];
            if (rounded)
                b = fmin(fmax(nearbyint(b), 0.0), peak);
            se += (a - b) * (a - b);
        }
        q->mse[c] = se / (double)n;
        q->psnr[c] = psnr_of(q->mse[c], peak);
        sum += q->mse[c];
    }
    q->mse_mean = sum / v->channels;
    q->psnr_mean = psnr_of(q->mse_mean, peak);
}

wt_status volume_roundtrip(pipeline *p, batch_item *item, const char *in, const char *out,
                           wt_image *layout, wt_quality *q)
{
    wt_volume v, back = {0};
    wt_volume_spec s;
    wt_vcoeffs c = {0};
    wt_status st = load_and_forward(p, item, in, &v, &s, &c);
    if (st == WT_OK) {
        back = v;
        st = alloc_planes(&v, in, &back.planes);
    }
    if (st == WT_OK)
        st = inverse(p, &s, &c, back.planes, in);
    wt_vcoeffs_free(&c);
    if (st == WT_OK) {
        volume_quality(&v, back.planes, 1, q);
        *layout = image_layout_of(&v);
    }
    if (st == WT_OK && out)
        st = save_volume(p, out, &back);
    wt_volume_free(&back);
    wt_volume_free(&v);
    return st;
}

/* ---- denoise and sigma -------------------------------------------------------------- */

wt_status volume_denoise(pipeline *p, wt_denoise_options *d, const char *in, const char *out,
                         wt_denoise_info *info)
{
    const cli_options *o = p->opt;
    wt_volume v;
    wt_status st = load_volume(p, in, &v);
    if (st == WT_OK && o->levels_max) {
        wt_volume_spec s;
        cli_volume_spec(o, &s); /* --transform: the kind denoise runs */
        d->params.levels = wt_volume_max_level(&s, v.shape);
        d->params.levels = d->params.levels < 1 ? 1 : d->params.levels;
    }
    if (st == WT_OK) {
        pipeline_span t0 = pipeline_span_start(p, PHASE_ENGINE);
        st = pipeline_name_error(wt_denoise_volume(d, o->naxes ? o->axes : NULL, o->naxes, &v,
                                                   volume_threads(p), info),
                                 in);
        pipeline_span_end(p, &p->stats.transform, t0);
    }
    if (st == WT_OK)
        st = save_volume(p, out, &v);
    wt_volume_free(&v);
    return st;
}

wt_status volume_sigma(pipeline *p, const char *in, double *sigma, wt_image *layout)
{
    wt_volume v;
    wt_status st = load_volume(p, in, &v);
    if (st == WT_OK) {
        pipeline_span t0 = pipeline_span_start(p, PHASE_ENGINE);
        st = pipeline_name_error(wt_estimate_sigma_volume(&v, volume_threads(p), sigma), in);
        pipeline_span_end(p, &p->stats.transform, t0);
        *layout = image_layout_of(&v);
    }
    wt_volume_free(&v);
    return st;
}

/* ---- stats ---------------------------------------------------------------------------- */

static double largest_sample(const wt_volume *v)
{
    size_t n = (size_t)v->channels * v->shape[0] * v->shape[1] * v->shape[2];
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = v->planes[i] > m ? v->planes[i] : m;
    return m;
}

wt_status volume_figures(pipeline *p, batch_item *item, const char *in, double qstep,
                         double eps, file_figures *f)
{
    wt_volume v;
    wt_volume_spec s;
    wt_vcoeffs k = {0};
    wt_status st = load_and_forward(p, item, in, &v, &s, &k);
    if (st == WT_OK) {
        f->layout = image_layout_of(&v);
        f->depth = v.shape[0];
        f->naxes = s.naxes;
        memcpy(f->axes, s.axes, sizeof f->axes);
        f->transform = s.transform;
        f->params = s.params;
        f->border = s.uparams.border;
        f->qstep = qstep > 0.0 ? qstep : figures_qstep_for(v.bit_depth, largest_sample(&v));
        f->eps = isnan(eps) ? f->qstep : eps;
        f->file = strdup(in);
        st = f->file ? figures_compute_volume(&k, f)
                     : wt_error_set(WT_ERR_NOMEM, "out of memory");
    }
    wt_vcoeffs_free(&k);
    wt_volume_free(&v);
    return st;
}

/* ---- compare ------------------------------------------------------------------------- */

static unsigned compare_need(void *ctx, const size_t shape[3])
{
    (void)ctx, (void)shape;
    return 4; /* the samples as float32 */
}

wt_status volume_compare(const cli_options *o, wt_quality *q, wt_image *layout)
{
    wt_load_options each = o->load; /* two volumes at once share --max-memory */
    each.max_memory /= 2;
    wt_volume a = {0}, b = {0};
    wt_status st = wt_volume_load(o->args[0], &each, compare_need, NULL, &a);
    if (st == WT_OK)
        st = wt_volume_load(o->args[1], &each, compare_need, NULL, &b);
    if (st == WT_OK && (memcmp(a.shape, b.shape, sizeof a.shape) || a.channels != b.channels ||
                        a.bit_depth != b.bit_depth))
        st = wt_error_set(WT_ERR_INVALID,
                          "%s, %s: volumes differ (%zux%zux%zu, %d channels, %d-bit vs "
                          "%zux%zux%zu, %d channels, %d-bit)",
                          pipeline_shown(o->args[0]), pipeline_shown(o->args[1]), a.shape[2],
                          a.shape[1], a.shape[0], a.channels, a.bit_depth, b.shape[2],
                          b.shape[1], b.shape[0], b.channels, b.bit_depth);
    if (st == WT_OK) {
        volume_quality(&a, b.planes, 0, q);
        *layout = image_layout_of(&a);
    }
    wt_volume_free(&a);
    wt_volume_free(&b);
    return st;
}
