/* Engine-resident pyramids: the public functions check their arguments once
 * (one message each) and dispatch to the engine's wt_epyramid_ops; medians,
 * "keep the largest" and thresholds are composed here from the engine's
 * reductions, selections and maps, so every engine gives the same numbers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_impl.h"

static const wt_epyramid_ops *ops_of(const wt_epyramid *p)
{
    return p->engine->ops->pyr;
}

wt_status wt_epyramid_create(wt_engine *engine, const wt_params *params, size_t height,
                             size_t width, int channels, wt_epyramid **out)
{
    *out = NULL;
    if (!engine || !params || !params->wavelet)
        return wt_error_set(WT_ERR_INVALID, "no engine or wavelet for a pyramid");
    if (!engine->ops->pyr)
        return wt_error_set(WT_ERR_UNSUPPORTED, "engine %s holds no pyramids", engine->name);
    wt_epyramid *p = calloc(1, sizeof *p);
    if (!p)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    p->engine = engine;
    p->params = *params;
    wt_status st = wt_params_resolve(&p->params);
    if (st == WT_OK)
        st = wt_pyramid_plan(&p->shape, &p->params, height, width, channels);
    if (st == WT_OK)
        st = ops_of(p)->create(p);
    if (st != WT_OK) {
        free(p);
        return st;
    }
    *out = p;
    return WT_OK;
}

/* Cycle spinning composed on the host (engines without spin ops). */
struct wt_spin_planes {
    float *source; /* the samples, C x h x w */
    float *work;   /* rolled planes in and out of the transforms */
    double *accum; /* the sum of the rolled-back results */
};

static void spin_free(wt_epyramid *p)
{
    if (!p->spin)
        return;
    free(p->spin->source);
    free(p->spin->work);
    free(p->spin->accum);
    free(p->spin);
    p->spin = NULL;
}

void wt_epyramid_destroy(wt_epyramid *p)
{
    if (!p)
        return;
    ops_of(p)->destroy(p);
    spin_free(p);
    free(p);
}

const wt_pyramid *wt_epyramid_shape(const wt_epyramid *p)
{
    return &p->shape;
}

const wt_params *wt_epyramid_params(const wt_epyramid *p)
{
    return &p->params;
}

/* ---------------------------------------------------------------------- */
/* Transforms and transfers */

static wt_status check_image(const wt_epyramid *p, const wt_image *img, int input)
{
    const wt_pyramid *s = &p->shape;
    if (!img || !img->pixels ||
        (img->bit_depth != 8 && img->bit_depth != 16 && img->bit_depth != WT_DEPTH_F32) ||
        img->height != s->height || img->width != s->width || img->channels != s->channels)
        return wt_error_set(WT_ERR_INVALID,
                            "image differs from the pyramid's %zux%zu, %d channels, or is not "
                            "8/16-bit or float32",
                            s->width, s->height, s->channels);
    return wt_check_samples_fit(&p->params, img, input);
}

/* Engines' image ops take 8/16-bit samples of 1-4 channels; float32 images
 * and more channels move as host planes (the float transforms). */
static int image_on_engine(const wt_image *img)
{
    return img->bit_depth != WT_DEPTH_F32 && img->channels <= 4;
}

static float *planes_for(const wt_epyramid *p)
{
    size_t all = p->shape.height * p->shape.width * (size_t)p->shape.channels;
    float *planes = malloc((all ? all : 1) * sizeof *planes);
    if (!planes)
        wt_error_set(WT_ERR_NOMEM, "out of memory for the image's planes");
    return planes;
}

static wt_status forward_via_planes(wt_epyramid *p, const wt_image *img)
{
    float *planes = planes_for(p);
    wt_status st = planes ? wt_image_to_planes(img, planes) : WT_ERR_NOMEM;
    if (st == WT_OK)
        st = ops_of(p)->forward(p, planes);
    free(planes);
    return st;
}

static wt_status inverse_via_planes(wt_epyramid *p, wt_image *img)
{
    float *planes = planes_for(p);
    wt_status st = planes ? ops_of(p)->inverse(p, planes) : WT_ERR_NOMEM;
    if (st == WT_OK)
        wt_image_from_planes(img, planes);
    free(planes);
    return st;
}

static wt_status check_planes(const void *planes)
{
    return planes ? WT_OK : wt_error_set(WT_ERR_INVALID, "no planes for the pyramid");
}

wt_status wt_epyramid_forward(wt_epyramid *p, const float *planes)
{
    wt_status st = check_planes(planes);
    return st == WT_OK ? ops_of(p)->forward(p, planes) : st;
}

wt_status wt_epyramid_forward_image(wt_epyramid *p, const wt_image *img)
{
    wt_status st = check_image(p, img, 1);
    if (st == WT_OK && !image_on_engine(img))
        return forward_via_planes(p, img);
    return st == WT_OK ? ops_of(p)->forward_image(p, img) : st;
}

wt_status wt_epyramid_inverse(wt_epyramid *p, float *planes)
{
    wt_status st = check_planes(planes);
    return st == WT_OK ? ops_of(p)->inverse(p, planes) : st;
}

wt_status wt_epyramid_inverse_image(wt_epyramid *p, wt_image *img)
{
    wt_status st = check_image(p, img, 0);
    if (st == WT_OK && !image_on_engine(img))
        return inverse_via_planes(p, img);
    return st == WT_OK ? ops_of(p)->inverse_image(p, img) : st;
}

static wt_status check_host(const wt_epyramid *p, const wt_pyramid *host)
{
    const wt_pyramid *s = &p->shape;
    if (!host || !host->data || host->total != s->total || host->levels != s->levels ||
        host->dtype != s->dtype || host->height != s->height || host->width != s->width ||
        host->channels != s->channels)
        return wt_error_set(WT_ERR_INVALID, "host pyramid differs from the engine's pyramid");
    return WT_OK;
}

static wt_status timed(wt_engine *e, double *part, double t0, wt_status st)
{
    *part += wt_seconds() - t0;
    e->times.calls++;
    return st;
}

wt_status wt_epyramid_upload(wt_epyramid *p, const wt_pyramid *host)
{
    wt_status st = check_host(p, host);
    double t0 = wt_seconds();
    return st == WT_OK ? timed(p->engine, &p->engine->times.upload, t0,
                               ops_of(p)->upload(p, host))
                       : st;
}

wt_status wt_epyramid_download(const wt_epyramid *p, wt_pyramid *host)
{
    wt_status st = check_host(p, host);
    double t0 = wt_seconds();
    return st == WT_OK ? timed(p->engine, &p->engine->times.download, t0,
                               ops_of(p)->download(p, host))
                       : st;
}

/* ---------------------------------------------------------------------- */
/* Band selections */

static int same_band(const wt_band_span *a, const wt_band_span *b)
{
    return a->level == b->level && a->band == b->band && a->channel == b->channel;
}

/* The spans of @p sel into *out (allocated here); @p distinct: a band may
 * not be selected twice. */
static wt_status spans_of(const wt_epyramid *p, const wt_band_ref *sel, size_t n, int distinct,
                          wt_band_span **out)
{
    const wt_pyramid *s = &p->shape;
    *out = NULL;
    if (n && !sel)
        return wt_error_set(WT_ERR_INVALID, "no band selection");
    wt_band_span *sp = malloc((n ? n : 1) * sizeof *sp);
    if (!sp)
        return wt_error_set(WT_ERR_NOMEM, "out of memory for %zu band refs", n);
    for (size_t i = 0; i < n; i++) {
        const wt_band_ref *r = &sel[i];
        if (!wt_band_ref_valid(s, r)) {
            free(sp);
            return wt_error_set(WT_ERR_INVALID,
                                "band %zu of the selection (level %d, band %d, channel %d) is "
                                "not in this %d-level, %d-channel pyramid",
                                i, r->level, (int)r->band, r->channel, s->levels, s->channels);
        }
        sp[i] = (wt_band_span){r->level, r->band, r->channel, 0, 0,
                               wt_pyramid_offset(s, r->level, r->band, r->channel)};
        wt_pyramid_band_shape(s, r->level, r->band, &sp[i].rows, &sp[i].cols);
        for (size_t j = 0; distinct && j < i; j++)
            if (same_band(&sp[i], &sp[j])) {
                free(sp);
                return wt_error_set(WT_ERR_INVALID, "band %zu of the selection repeats band %zu",
                                    i, j);
            }
    }
    *out = sp;
    return WT_OK;
}

size_t wt_epyramid_details(const wt_epyramid *p, wt_band_ref *sel)
{
    size_t n = 0;
    for (int l = p->shape.levels; l >= 1; l--)
        for (int b = WT_BAND_H; b <= WT_BAND_D; b++)
            for (int c = 0; c < p->shape.channels; c++)
                sel[n++] = (wt_band_ref){l, (wt_band)b, c};
    return n;
}

static wt_status check_map_args(wt_band_op op, const double *args, size_t n)
{
    if ((unsigned)op > WT_OP_QUANTIZE)
        return wt_error_set(WT_ERR_INVALID, "unknown band operation %d", (int)op);
    if (op == WT_OP_ZERO || !n)
        return WT_OK;
    if (!args)
        return wt_error_set(WT_ERR_INVALID, "band operation without arguments");
    for (size_t i = 0; i < n; i++)
        if (isnan(args[i]) || ((op == WT_OP_HARD || op == WT_OP_SOFT) && args[i] < 0.0) ||
            (op == WT_OP_QUANTIZE && !(args[i] > 0.0 && isfinite(args[i]))))
            return wt_error_set(WT_ERR_INVALID, "argument %zu of the band operation is %g", i,
                                args[i]);
    return WT_OK;
}

wt_status wt_epyramid_map(wt_epyramid *p, wt_band_op op, const wt_band_ref *sel,
                          const double *args, size_t n)
{
    wt_status st = check_map_args(op, args, n);
    if (st != WT_OK)
        return st;
    wt_band_span *sp;
    st = spans_of(p, sel, n, 1, &sp);
    if (st != WT_OK)
        return st;
    double t0 = wt_seconds();
    st = n ? ops_of(p)->map(p, op, sp, args, n) : WT_OK;
    free(sp);
    return timed(p->engine, &p->engine->times.transform, t0, st);
}

static wt_status reduce_spans(const wt_epyramid *p, const wt_band_span *sp, const double *t,
                              size_t n, wt_band_stats *out)
{
    double t0 = wt_seconds();
    wt_status st = n ? ops_of(p)->reduce(p, sp, t, n, out) : WT_OK;
    return timed(p->engine, &p->engine->times.transform, t0, st);
}

wt_status wt_epyramid_reduce(const wt_epyramid *p, const wt_band_ref *sel, const double *t,
                             size_t n, wt_band_stats *out)
{
    if (n && !out)
        return wt_error_set(WT_ERR_INVALID, "no room for band statistics");
    wt_band_span *sp;
    wt_status st = spans_of(p, sel, n, 0, &sp);
    if (st != WT_OK)
        return st;
    st = reduce_spans(p, sp, t, n, out);
    free(sp);
    return st;
}

static wt_status select_groups(const wt_epyramid *p, const wt_band_span *sp,
                               const wt_select_group *g, size_t ng, double *out)
{
    double t0 = wt_seconds();
    wt_status st = ng ? ops_of(p)->select(p, sp, g, ng, out) : WT_OK;
    return timed(p->engine, &p->engine->times.transform, t0, st);
}

/* The one or two selection groups of the median of span i's |c| (its first
 * @p skip smallest left out); *ng grows by their number (0: no values). */
static void median_groups(size_t i, uint64_t count, uint64_t skip, wt_select_group *g,
                          size_t *ng)
{
    uint64_t m = count - skip;
    if (m == 0)
        return;
    g[(*ng)++] = (wt_select_group){i, 1, skip + (m - 1) / 2};
    if (m % 2 == 0)
        g[(*ng)++] = (wt_select_group){i, 1, skip + m / 2};
}

static wt_status medians(const wt_epyramid *p, const wt_band_span *sp, size_t n,
                         int nonzero_only, double *out)
{
    wt_band_stats *st_b = malloc(n * sizeof *st_b);
    wt_select_group *g = malloc(2 * n * sizeof *g);
    double *v = malloc(2 * n * sizeof *v);
    wt_status st = st_b && g && v ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    if (st == WT_OK)
        st = reduce_spans(p, sp, NULL, n, st_b);
    size_t ng = 0;
    for (size_t i = 0; st == WT_OK && i < n; i++)
        median_groups(i, st_b[i].count, nonzero_only ? st_b[i].zeros : 0, g, &ng);
    if (st == WT_OK)
        st = select_groups(p, sp, g, ng, v);
    for (size_t i = 0, k = 0; st == WT_OK && i < n; i++) {
        if (k < ng && g[k].first == i) {
            int pair = k + 1 < ng && g[k + 1].first == i;
            out[i] = pair ? (v[k] + v[k + 1]) / 2.0 : v[k];
            k += pair ? 2 : 1;
        } else {
            out[i] = NAN;
        }
    }
    free(st_b);
    free(g);
    free(v);
    return st;
}

wt_status wt_epyramid_median_abs(const wt_epyramid *p, const wt_band_ref *sel, size_t n,
                                 int nonzero_only, double *out)
{
    if (n && !out)
        return wt_error_set(WT_ERR_INVALID, "no room for medians");
    wt_band_span *sp;
    wt_status st = spans_of(p, sel, n, 0, &sp);
    if (st != WT_OK)
        return st;
    st = n ? medians(p, sp, n, nonzero_only, out) : WT_OK;
    free(sp);
    return st;
}

static uint64_t span_elems(const wt_band_span *sp, size_t n)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += (uint64_t)sp[i].rows * sp[i].cols;
    return total;
}

wt_status wt_epyramid_kth_abs(const wt_epyramid *p, const wt_band_ref *sel, size_t n,
                              uint64_t k, double *out)
{
    wt_band_span *sp;
    wt_status st = spans_of(p, sel, n, 1, &sp);
    if (st != WT_OK)
        return st;
    uint64_t total = span_elems(sp, n);
    if (k >= total || !out)
        st = wt_error_set(WT_ERR_INVALID,
                          "k-th smallest |c| with k = %llu of %llu coefficients",
                          (unsigned long long)k, (unsigned long long)total);
    wt_select_group g = {0, n, k};
    if (st == WT_OK)
        st = select_groups(p, sp, &g, 1, out);
    free(sp);
    return st;
}

wt_status wt_epyramid_zero_below(wt_epyramid *p, const wt_band_ref *sel, size_t n, double cut,
                                 uint64_t ties)
{
    if (isnan(cut))
        return wt_error_set(WT_ERR_INVALID, "cut of zero_below is NaN");
    wt_band_span *sp;
    wt_status st = spans_of(p, sel, n, 1, &sp);
    if (st != WT_OK)
        return st;
    double t0 = wt_seconds();
    st = n ? ops_of(p)->zero_below(p, sp, n, cut, ties) : WT_OK;
    free(sp);
    return timed(p->engine, &p->engine->times.transform, t0, st);
}

static int engine_shrinks(const wt_epyramid *p)
{
    return ops_of(p)->shrink && ops_of(p)->shrink_sigma;
}

wt_status wt_epyramid_shrink(wt_epyramid *p, const wt_shrink_plan *plan)
{
    if (!engine_shrinks(p))
        return wt_error_set(WT_ERR_UNSUPPORTED, "engine %s has no fused shrinkage",
                            p->engine->name);
    double t0 = wt_seconds();
    return timed(p->engine, &p->engine->times.transform, t0, ops_of(p)->shrink(p, plan));
}

wt_status wt_epyramid_shrink_sigma(wt_epyramid *p, double *sigma)
{
    if (!engine_shrinks(p))
        return wt_error_set(WT_ERR_UNSUPPORTED, "engine %s has no fused shrinkage",
                            p->engine->name);
    return ops_of(p)->shrink_sigma(p, sigma);
}

int wt_engine_estimates_noise(const wt_engine *e, const wt_wavelet *wavelet)
{
    const wt_epyramid_ops *ops = e->ops->pyr;
    return ops && ops->noise_estimate && ops->shrink && ops->shrink_sigma &&
           wavelet->filter_len <= WT_ENGINE_NOISE_TAPS;
}

wt_status wt_epyramid_noise_estimate(wt_epyramid *p, double scale, double peak)
{
    if (!wt_engine_estimates_noise(p->engine, p->params.wavelet))
        return wt_error_set(WT_ERR_UNSUPPORTED, "engine %s makes no noise estimate",
                            p->engine->name);
    double t0 = wt_seconds();
    return timed(p->engine, &p->engine->times.transform, t0,
                 ops_of(p)->noise_estimate(p, scale, peak));
}

/* ---------------------------------------------------------------------- */
/* Thresholds of all detail bands, as wt_pyramid_threshold / wt_pyramid_keep */

/* The detail bands as spans into *sp (allocated here), *n their number. */
static wt_status detail_spans(const wt_epyramid *p, wt_band_span **sp, size_t *n)
{
    size_t most = (size_t)3 * (size_t)p->shape.levels * (size_t)p->shape.channels;
    wt_band_ref *sel = malloc((most ? most : 1) * sizeof *sel);
    *sp = NULL;
    if (!sel)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    *n = wt_epyramid_details(p, sel);
    wt_status st = spans_of(p, sel, *n, 0, sp);
    free(sel);
    return st;
}

/* The fraction of detail coefficients left nonzero (1 when there are none). */
static wt_status fraction_nonzero(const wt_epyramid *p, const wt_band_span *sp, size_t n,
                                  double *kept)
{
    wt_band_stats *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    wt_status st = reduce_spans(p, sp, NULL, n, s);
    uint64_t total = 0, zeros = 0;
    for (size_t i = 0; st == WT_OK && i < n; i++) {
        total += s[i].count;
        zeros += s[i].zeros;
    }
    if (st == WT_OK && kept)
        *kept = total ? (double)(total - zeros) / (double)total : 1.0;
    free(s);
    return st;
}

wt_status wt_epyramid_fraction_nonzero(const wt_epyramid *p, const wt_band_ref *sel, size_t n,
                                       double *kept)
{
    wt_band_span *sp;
    wt_status st = spans_of(p, sel, n, 0, &sp);
    if (st == WT_OK)
        st = fraction_nonzero(p, sp, n, kept);
    free(sp);
    return st;
}

static wt_status threshold_spans(wt_epyramid *p, const wt_band_span *sp, size_t n, double value,
                                 int soft)
{
    double *args = malloc((n ? n : 1) * sizeof *args);
    if (!args)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        args[i] = value;
    double t0 = wt_seconds();
    wt_status st = n ? ops_of(p)->map(p, soft ? WT_OP_SOFT : WT_OP_HARD, sp, args, n) : WT_OK;
    free(args);
    return timed(p->engine, &p->engine->times.transform, t0, st);
}

wt_status wt_epyramid_threshold(wt_epyramid *p, double value, int soft, double *kept)
{
    if (isnan(value) || value < 0.0)
        return wt_error_set(WT_ERR_INVALID, "invalid threshold");
    size_t n = 0;
    wt_band_span *sp;
    wt_status st = detail_spans(p, &sp, &n);
    if (st == WT_OK)
        st = threshold_spans(p, sp, n, value, soft);
    if (st == WT_OK && kept)
        st = fraction_nonzero(p, sp, n, kept);
    free(sp);
    return st;
}

/* Keep the k largest |c| of the spans (ties: the first in storage order):
 * the cut is the (total - k)-th smallest; of the values equal to it, as many
 * survive as k leaves after those above it. */
static wt_status keep_largest(wt_epyramid *p, const wt_band_span *sp, size_t n, uint64_t total,
                              uint64_t k)
{
    double cut = INFINITY;
    wt_select_group g = {0, n, total - k};
    wt_status st = k ? select_groups(p, sp, &g, 1, &cut) : WT_OK;
    wt_band_stats *s = malloc(n * sizeof *s);
    double *t = malloc(n * sizeof *t);
    if (st == WT_OK && (!s || !t))
        st = wt_error_set(WT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == WT_OK && i < n; i++)
        t[i] = cut;
    if (st == WT_OK)
        st = reduce_spans(p, sp, t, n, s);
    uint64_t at_most = 0;
    for (size_t i = 0; st == WT_OK && i < n; i++)
        at_most += s[i].at_most;
    free(s);
    free(t);
    if (st != WT_OK)
        return st;
    uint64_t above = total - at_most;
    double t0 = wt_seconds();
    st = ops_of(p)->zero_below(p, sp, n, cut, k > above ? k - above : 0);
    return timed(p->engine, &p->engine->times.transform, t0, st);
}

wt_status wt_epyramid_keep(wt_epyramid *p, double fraction, double *kept)
{
    if (isnan(fraction) || fraction < 0.0)
        return wt_error_set(WT_ERR_INVALID, "invalid threshold");
    if (fraction > 1.0)
        return wt_error_set(WT_ERR_INVALID, "fraction to keep must be between 0 and 1");
    size_t n = 0;
    wt_band_span *sp;
    wt_status st = detail_spans(p, &sp, &n);
    if (st != WT_OK)
        return st;
    uint64_t total = span_elems(sp, n);
    uint64_t k = (uint64_t)floor(fraction * (double)total + 0.5);
    st = k < total ? keep_largest(p, sp, n, total, k) : WT_OK;
    if (st == WT_OK && kept)
        st = fraction_nonzero(p, sp, n, kept);
    free(sp);
    return st;
}

/* ---------------------------------------------------------------------- */
/* Cycle spinning: the engine's spin ops, or forward/inverse of host planes */

static size_t plane_elems(const wt_epyramid *p)
{
    return p->shape.height * p->shape.width * (size_t)p->shape.channels;
}

static wt_status host_spin_load(wt_epyramid *p, const wt_image *img)
{
    size_t all = plane_elems(p);
    spin_free(p);
    p->spin = calloc(1, sizeof *p->spin);
    if (p->spin) {
        p->spin->source = malloc((all ? all : 1) * sizeof(float));
        p->spin->work = malloc((all ? all : 1) * sizeof(float));
        p->spin->accum = calloc(all ? all : 1, sizeof(double));
    }
    if (!p->spin || !p->spin->source || !p->spin->work || !p->spin->accum) {
        spin_free(p);
        return wt_error_set(WT_ERR_NOMEM, "out of memory for the cycle spinning planes");
    }
    return wt_image_to_planes(img, p->spin->source);
}

/* Index of (y + dy, x + dx) of plane c, circularly. */
static size_t rolled_index(const wt_pyramid *s, size_t c, size_t y, size_t x, size_t dy,
                           size_t dx)
{
    size_t h = s->height, w = s->width;
    return (c * h + (y + dy) % h) * w + (x + dx) % w;
}

static wt_status host_spin_forward(wt_epyramid *p, size_t dy, size_t dx)
{
    const wt_pyramid *s = &p->shape;
    for (size_t c = 0, i = 0; c < (size_t)s->channels; c++)
        for (size_t y = 0; y < s->height; y++)
            for (size_t x = 0; x < s->width; x++, i++)
                p->spin->work[rolled_index(s, c, y, x, dy, dx)] = p->spin->source[i];
    return ops_of(p)->forward(p, p->spin->work);
}

static wt_status host_spin_inverse_add(wt_epyramid *p, size_t dy, size_t dx, double lo, double hi)
{
    const wt_pyramid *s = &p->shape;
    wt_status st = ops_of(p)->inverse(p, p->spin->work);
    for (size_t c = 0, i = 0; st == WT_OK && c < (size_t)s->channels; c++)
        for (size_t y = 0; y < s->height; y++)
            for (size_t x = 0; x < s->width; x++, i++) {
                double v = p->spin->work[rolled_index(s, c, y, x, dy, dx)];
                p->spin->accum[i] += v < lo ? lo : (v > hi ? hi : v);
            }
    return st;
}

static wt_status host_spin_result(wt_epyramid *p, double count, wt_image *img)
{
    size_t n = p->shape.height * p->shape.width;
    int ch = p->shape.channels;
    double peak = img->bit_depth > 8 ? 65535.0 : 255.0;
    wt_sample_type stored = wt_image_stored(img);
    for (int k = 0; k < ch; k++)
        for (size_t i = 0; i < n; i++) {
            double v = p->spin->accum[(size_t)k * n + i] / count;
            if (img->bit_depth == WT_DEPTH_F32) { /* float32: the stored type's range */
                ((float *)img->pixels)[i * (size_t)ch + (size_t)k] =
                    (float)wt_sample_clamp(stored, v);
                continue;
            }
            v = isnan(v) ? 0.0 : (v < 0.0 ? 0.0 : (v > peak ? peak : v));
            if (img->bit_depth > 8)
                ((uint16_t *)img->pixels)[i * (size_t)ch + (size_t)k] = (uint16_t)lrint(v);
            else
                ((uint8_t *)img->pixels)[i * (size_t)ch + (size_t)k] = (uint8_t)lrint(v);
        }
    return WT_OK;
}

/* The engine's spin ops, unless the samples were loaded on the host (engines
 * without them, float32 images, more than 4 channels). */
static int engine_spins(const wt_epyramid *p)
{
    return ops_of(p)->spin_load != NULL && !p->spin;
}

static wt_status check_spin_loaded(const wt_epyramid *p)
{
    return engine_spins(p) || p->spin
               ? WT_OK
               : wt_error_set(WT_ERR_INVALID, "cycle spinning before wt_epyramid_spin_load");
}

wt_status wt_epyramid_spin_load(wt_epyramid *p, const wt_image *img)
{
    wt_status st = check_image(p, img, 1);
    if (st != WT_OK)
        return st;
    double t0 = wt_seconds();
    spin_free(p);
    st = engine_spins(p) && image_on_engine(img) ? ops_of(p)->spin_load(p, img)
                                                 : host_spin_load(p, img);
    return timed(p->engine, &p->engine->times.upload, t0, st);
}

wt_status wt_epyramid_spin_forward(wt_epyramid *p, size_t dy, size_t dx)
{
    wt_status st = check_spin_loaded(p);
    if (st != WT_OK)
        return st;
    dy %= p->shape.height;
    dx %= p->shape.width;
    return engine_spins(p) ? ops_of(p)->spin_forward(p, dy, dx) : host_spin_forward(p, dy, dx);
}

wt_status wt_epyramid_spin_inverse_add(wt_epyramid *p, size_t dy, size_t dx, double lo, double hi)
{
    wt_status st = check_spin_loaded(p);
    if (st != WT_OK)
        return st;
    dy %= p->shape.height;
    dx %= p->shape.width;
    return engine_spins(p) ? ops_of(p)->spin_inverse_add(p, dy, dx, lo, hi)
                           : host_spin_inverse_add(p, dy, dx, lo, hi);
}

wt_status wt_epyramid_spin_result(wt_epyramid *p, double count, wt_image *img)
{
    wt_status st = check_spin_loaded(p);
    if (st == WT_OK)
        st = check_image(p, img, 0);
    if (st == WT_OK && !(count > 0.0))
        st = wt_error_set(WT_ERR_INVALID, "cycle spinning result over %g shifts", count);
    if (st != WT_OK)
        return st;
    double t0 = wt_seconds();
    st = engine_spins(p) ? ops_of(p)->spin_result(p, count, img) : host_spin_result(p, count, img);
    return timed(p->engine, &p->engine->times.download, t0, st);
}
