/* Wavelet shrinkage denoising as scikit-image 0.19.3's denoise_wavelet and
 * estimate_sigma compute it, on an engine's resident pyramids: forward, the
 * band statistics of BayesShrink, the shrinkage and the inverse run where the
 * engine computes. The noise estimate is scikit-image's bit for bit, computed
 * on the host in float64 (noise_estimate.c) and handed to the engine as a
 * known sigma; the engine estimates only where scikit-image has no
 * counterpart (JPEG 2000 wavelets, modes other than symmetric).
 *
 * Units: scikit-image works on img_as_float images (samples / peak); the
 * engine works in sample units. Thresholds scale with the samples, so only
 * BayesShrink's eps (float64's, in scikit-image's units) is carried over:
 * t = var / sqrt(max(dvar - var, eps * peak^2)) in sample units is exactly
 * peak * t' of scikit-image's t' = var' / sqrt(max(dvar' - var', eps)). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_impl.h" /* wt_shrink_plan, wt_epyramid_shrink */
#include "image_codec.h"
#include "denoise_shared.h"
#include "noise_estimate.h" /* NORM_PPF_075, the exact float64 estimate */
#include "transform.h"

void wt_denoise_defaults(wt_denoise_options *o)
{
    memset(o, 0, sizeof *o);
    o->params.wavelet = wt_wavelet_find("db1");
    o->params.mode = WT_MODE_SYMMETRIC;
    o->params.method = WT_METHOD_AUTO;
    o->params.levels = 0;
    o->rule = WT_RULE_BAYES;
    o->soft = 1;
    o->sigma = NAN;
    o->threshold = NAN;
    o->k = 3.0;
}

int wt_denoise_levels(size_t height, size_t width, const wt_wavelet *wavelet)
{
    int max = wt_max_level(height, width, wavelet);
    return max - 3 > 1 ? max - 3 : 1;
}

/* ---- one decomposition: sigma, thresholds, shrinkage --------------------- */


/* A channel's own noise: median(|nonzero cD_1|) / Phi^-1(0.75), NaN when the
 * band holds no nonzero coefficient. @p full_scale: the peak of integer
 * samples; the residues |c| < full_scale * ZERO_FRACTION are set to the 0
 * they are in exact arithmetic first (by then they are noise in the finest
 * band, which shrinkage zeroes anyway). 0 for data that is not integer
 * (YCbCr, Anscombe): only exact zeros are left out there, as scikit-image
 * does. */
static wt_status estimate_channels(wt_epyramid *ep, int channels, double full_scale,
                                   double *sigma)
{
    wt_band_ref sel[4] = {{0}};
    double zero[4] = {0};
    for (int c = 0; c < channels; c++) {
        sel[c] = (wt_band_ref){1, WT_BAND_D, c};
        zero[c] = full_scale * ZERO_FRACTION;
    }
    wt_status st = WT_OK;
    if (full_scale > 0.0)
        st = wt_epyramid_map(ep, WT_OP_HARD, sel, zero, (size_t)channels);
    if (st == WT_OK)
        st = wt_epyramid_median_abs(ep, sel, (size_t)channels, 1, sigma);
    for (int c = 0; st == WT_OK && c < channels; c++)
        sigma[c] /= NORM_PPF_075;
    return st;
}

/* BayesShrink: var / sqrt(max(mean(d^2) - var, eps)), in sample units. */
double denoise_bayes_threshold(const wt_band_stats *s, double sigma, double peak)
{
    double var = sigma * sigma;
    double dvar = s->count ? s->sum_sq / (double)s->count : 0.0;
    double floor_ = DBL_EPSILON * peak * peak;
    return var / sqrt(dvar - var > floor_ ? dvar - var : floor_);
}

double denoise_level_factor(const wt_denoise_options *o, int level)
{
    return level <= o->nlevel_scale ? o->level_scale[level - 1] : 1.0;
}

/* One threshold per detail band of @p sel (storage order), NaN where the
 * channel's sigma is unknown (a constant channel: left as it is). */
static wt_status band_thresholds(wt_epyramid *ep, const wt_denoise_options *o, double peak,
                                 const double *sigma, const wt_band_ref *sel, size_t n,
                                 double *t)
{
    const wt_pyramid *shape = wt_epyramid_shape(ep);
    wt_band_stats *stats = NULL;
    if (o->rule == WT_RULE_BAYES) {
        stats = malloc(n * sizeof *stats);
        if (!stats)
            return wt_error_set(WT_ERR_NOMEM, "out of memory");
        wt_status st = wt_epyramid_reduce(ep, sel, NULL, n, stats);
        if (st != WT_OK) {
            free(stats);
            return st;
        }
    }
    double pixels = (double)shape->height * (double)shape->width;
    for (size_t i = 0; i < n; i++) {
        double s = sigma[sel[i].channel];
        switch (o->rule) {
        case WT_RULE_BAYES: t[i] = denoise_bayes_threshold(&stats[i], s, peak); break;
        case WT_RULE_VISU: t[i] = s * sqrt(2.0 * log(pixels)); break;
        case WT_RULE_FIXED: t[i] = o->threshold; break;
        }
        t[i] *= denoise_level_factor(o, sel[i].level);
    }
    free(stats);
    return WT_OK;
}

/* An A/B switch of the environment set (=1). */
static int switch_on(const char *env)
{
    return env && env[0] == '1';
}

/* The engine runs the whole shrinkage itself (the CUDA engine: no host
 * round trip) unless it has no shrink op or WT_DENOISE_COMPOSED=1 asks for
 * the composed steps below (an A/B switch: both give the same numbers). */
static int fused_shrink(const wt_epyramid *ep)
{
    return ep->engine->ops->pyr->shrink && !switch_on(wt_env()->denoise_composed);
}

static int needs_estimate(const wt_denoise_options *o, int channels, const double *given)
{
    int estimate = 0;
    for (int c = 0; c < channels; c++)
        estimate |= isnan(given[c]);
    return o->rule != WT_RULE_FIXED && estimate;
}

/* shrink_pyramid's steps as one engine op; its sigma comes with
 * wt_epyramid_shrink_sigma. @p on_engine: the given sigma is the engine's
 * noise estimate (wt_epyramid_noise_estimate; @p given all NaN). */
static wt_status shrink_fused(wt_epyramid *ep, const wt_denoise_options *o, double peak,
                              double full_scale, const double *given, int on_engine)
{
    const wt_pyramid *shape = wt_epyramid_shape(ep);
    wt_shrink_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.estimate = needs_estimate(o, shape->channels, given);
    plan.given_on_engine = on_engine;
    plan.zero = full_scale > 0.0 ? full_scale * ZERO_FRACTION : 0.0;
    plan.ppf75 = NORM_PPF_075;
    for (int c = 0; c < 4; c++)
        plan.given[c] = c < shape->channels ? given[c] : NAN;
    plan.rule = o->rule;
    plan.soft = o->soft;
    plan.bayes_floor = DBL_EPSILON * peak * peak;
    plan.visu = sqrt(2.0 * log((double)shape->height * (double)shape->width));
    plan.fixed = o->threshold;
    for (int l = 1; l <= WT_MAX_LEVELS; l++)
        plan.factor[l - 1] = denoise_level_factor(o, l);
    return wt_epyramid_shrink(ep, &plan);
}

/* Shrink the details of a forward-transformed pyramid. @p given: sigma per
 * channel in the pyramid's units (NaN: estimated); @p used receives it. */
static wt_status shrink_composed(wt_epyramid *ep, const wt_denoise_options *o, double peak,
                                 double full_scale, const double *given, double *used)
{
    const wt_pyramid *shape = wt_epyramid_shape(ep);
    int channels = shape->channels;
    double estimated[4] = {NAN, NAN, NAN, NAN};
    wt_status st = WT_OK;
    if (needs_estimate(o, channels, given))
        st = estimate_channels(ep, channels, full_scale, estimated);
    for (int c = 0; c < channels; c++)
        used[c] = isnan(given[c]) ? estimated[c] : given[c];
    size_t most = (size_t)3 * (size_t)shape->levels * (size_t)channels;
    wt_band_ref *sel = malloc(most * sizeof *sel);
    double *t = malloc(most * sizeof *t);
    if (st == WT_OK && (!sel || !t))
        st = wt_error_set(WT_ERR_NOMEM, "out of memory");
    size_t n = st == WT_OK ? wt_epyramid_details(ep, sel) : 0;
    if (st == WT_OK)
        st = band_thresholds(ep, o, peak, used, sel, n, t);
    size_t kept = 0; /* bands of channels without a sigma stay as they are */
    for (size_t i = 0; st == WT_OK && i < n; i++)
        if (!isnan(t[i])) {
            sel[kept] = sel[i];
            t[kept++] = t[i];
        }
    if (st == WT_OK && kept)
        st = wt_epyramid_map(ep, o->soft ? WT_OP_SOFT : WT_OP_HARD, sel, t, kept);
    free(sel);
    free(t);
    return st;
}

/* The shrinkage, fused where the engine can; @p used: sigma per channel. */
static wt_status shrink_pyramid(wt_epyramid *ep, const wt_denoise_options *o, double peak,
                                double full_scale, const double *given, double *used)
{
    if (!fused_shrink(ep))
        return shrink_composed(ep, o, peak, full_scale, given, used);
    wt_status st = shrink_fused(ep, o, peak, full_scale, given, 0);
    return st == WT_OK ? wt_epyramid_shrink_sigma(ep, used) : st;
}

/* ---- options -------------------------------------------------------------- */

static wt_status check_options(const wt_denoise_options *o, const wt_image *in)
{
    if (!o->params.wavelet)
        return wt_error_set(WT_ERR_INVALID, "denoise: no wavelet");
    if (o->rule == WT_RULE_FIXED && !(o->threshold >= 0.0))
        return wt_error_set(WT_ERR_INVALID, "denoise: a fixed threshold must be >= 0");
    if (!isnan(o->sigma) && !(o->sigma >= 0.0))
        return wt_error_set(WT_ERR_INVALID, "denoise: sigma must be >= 0");
    if (o->cycle_spin < 0 || o->cycle_spin > 64)
        return wt_error_set(WT_ERR_INVALID, "denoise: cycle spin shifts must be 0..64");
    if (o->starlet && !(o->k > 0.0 && isfinite(o->k)))
        return wt_error_set(WT_ERR_INVALID, "denoise: k must be > 0");
    if (o->nlevel_scale < 0 || o->nlevel_scale > WT_MAX_LEVELS)
        return wt_error_set(WT_ERR_INVALID, "denoise: too many level scales");
    if (in->channels > 4)
        return wt_error_set(WT_ERR_UNSUPPORTED, "denoise takes 1 to 4 channels (this image has %d)",
                            in->channels);
    if (o->ycbcr && in->channels != 3)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "--ycbcr needs an RGB image (this one has %d channel%s)",
                            in->channels, in->channels == 1 ? "" : "s");
    if (o->ycbcr && o->noise == WT_NOISE_POISSON)
        return wt_error_set(WT_ERR_INVALID, "denoise: --ycbcr and Poisson noise exclude each other");
    const wt_transform_class *c = wt_transform_of_denoise(o);
    if (!(c->params & WT_TPARAM_DENOISE_EXTRAS) && (o->ycbcr || o->cycle_spin > 0))
        return wt_error_set(WT_ERR_INVALID,
                            "denoise: --transform %s goes without --ycbcr and --cycle-spin",
                            c->name);
    if (!(c->params & WT_TPARAM_DENOISE_POISSON) && o->noise == WT_NOISE_POISSON)
        return wt_error_set(WT_ERR_INVALID, "denoise: --transform %s goes without --noise poisson",
                            c->name);
    return WT_OK;
}

/* Float32 images are denoised in their own units: peak 1, nothing clipped,
 * no integer residues to clean (full scale 0). */
static double peak_of(const wt_image *img)
{
    return img->bit_depth == WT_DEPTH_F32 ? 1.0 : img->bit_depth > 8 ? 65535.0 : 255.0;
}

static double full_scale_of(const wt_image *img)
{
    return img->bit_depth == WT_DEPTH_F32 ? 0.0 : peak_of(img);
}

/* The range results are clipped to: [0, peak] for integer samples. */
static double clip_hi(const wt_image *img)
{
    return img->bit_depth == WT_DEPTH_F32 ? INFINITY : peak_of(img);
}

static double clip_lo(const wt_image *img)
{
    return img->bit_depth == WT_DEPTH_F32 ? -INFINITY : 0.0;
}

/* A float32 result of integer samples clipped to their range, as scikit-image
 * clips (integer results are clipped when rounded). */
static void clip_result(const wt_image *in, wt_image *out)
{
    if (out->bit_depth != WT_DEPTH_F32 || in->bit_depth == WT_DEPTH_F32)
        return;
    float *px = out->pixels, hi = (float)peak_of(in);
    size_t all = (size_t)out->width * out->height * (size_t)out->channels;
    for (size_t i = 0; i < all; i++)
        px[i] = px[i] < 0.0f ? 0.0f : (px[i] > hi ? hi : px[i]);
}

/* The transform for an image: levels 0 = scikit-image's default. */
static wt_params params_for(const wt_denoise_options *o, const wt_image *img)
{
    wt_params p = o->params;
    if (p.levels <= 0)
        p.levels = wt_denoise_levels(img->height, img->width, p.wavelet);
    return p;
}

/* Shifts of cycle spinning along each axis (1: none). */
static size_t spin_shifts(const wt_denoise_options *o)
{
    return o->cycle_spin > 0 ? (size_t)o->cycle_spin + 1 : 1;
}

/* Whether sigma is estimated here, on the host (see known_sigma). */
static int host_estimate(const wt_denoise_options *o, const wt_params *p)
{
    return o->rule != WT_RULE_FIXED && wt_noise_exact(p->wavelet, p->mode);
}

/* Whether the DWT's denoise of @p o on @p e makes known_sigma's estimate on
 * the engine, after the forward (wt_epyramid_noise_estimate: the same bits,
 * no host work): an engine that has it, fused into its shrinkage, unless
 * the estimates were made before or WT_DENOISE_HOST_ESTIMATE=1 (an A/B
 * switch: the same numbers). */
static int engine_estimate(const wt_engine *e, const wt_denoise_options *o, const wt_params *p)
{
    return !o->estimates && isnan(o->sigma) && host_estimate(o, p) &&
           wt_engine_estimates_noise(e, p->wavelet) &&
           !switch_on(wt_env()->denoise_host_estimate) &&
           !switch_on(wt_env()->denoise_composed);
}

/* No sigma yet: the engine's estimate follows. */
static void unknown_sigma(double *given)
{
    for (int c = 0; c < 4; c++)
        given[c] = NAN;
}

/* The sigma of each channel in sample units: --sigma, or where the rule
 * needs one, scikit-image's estimate of @p in rolled by (dy, dx) (on
 * img_as_float's samples: integers times 1 / peak) computed in float64 as
 * PyWavelets does, so that its exact zeros are scikit-image's. NaN where
 * the engine estimates (a wavelet or mode without that estimate) or where
 * no coefficient is nonzero (a constant channel, left as it is). */
static wt_status known_sigma(const wt_denoise_options *o, const wt_params *p, const wt_image *in,
                             size_t dy, size_t dx, double *given)
{
    if (o->estimates) { /* made before (wt_denoise_estimate) */
        memcpy(given, o->estimates + 4 * (dy * spin_shifts(o) + dx), 4 * sizeof *given);
        return WT_OK;
    }
    for (int c = 0; c < 4; c++)
        given[c] = o->sigma;
    if (!isnan(o->sigma) || !host_estimate(o, p))
        return WT_OK;
    double peak = peak_of(in);
    wt_status st = wt_noise_sigma_image(in, dy, dx, 1.0 / peak, p->wavelet, given);
    for (int c = 0; c < in->channels; c++)
        given[c] *= peak;
    return st;
}

/* ---- denoise of float planes (YCbCr, Anscombe, cycle spinning) ---------- */

/* Forward, shrink, inverse of C planes in place. */
static wt_status denoise_planes(wt_engine *e, const wt_denoise_options *o, const wt_params *p,
                                size_t h, size_t w, int channels, double peak, double full_scale,
                                const double *given, double *used, float *planes)
{
    wt_epyramid *ep = NULL;
    wt_status st = wt_epyramid_create(e, p, h, w, channels, &ep);
    if (st == WT_OK)
        st = wt_epyramid_forward(ep, planes);
    if (st == WT_OK)
        st = shrink_pyramid(ep, o, peak, full_scale, given, used);
    if (st == WT_OK)
        st = wt_epyramid_inverse(ep, planes);
    wt_epyramid_destroy(ep);
    return st;
}

/* skimage.color's BT.601 matrices (rgb2ycbcr: Y' in 16..235 from [0, 1]). */
static const double ycbcr_from_rgb[3][3] = {{65.481, 128.553, 24.966},
                                            {-37.797, -74.203, 112.0},
                                            {112.0, -93.786, -18.214}};
static const double ycbcr_offset[3] = {16.0, 128.0, 128.0};

static void invert3(const double m[3][3], double r[3][3])
{
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                 m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int a = (j + 1) % 3, b = (j + 2) % 3, c = (i + 1) % 3, d = (i + 2) % 3;
            r[i][j] = (m[a][c] * m[b][d] - m[a][d] * m[b][c]) / det;
        }
}

/* RGB planes in [0, 1] -> Y, Cb, Cr planes (in place, double), in
 * rgb2ycbcr's order (rgb @ M.T, then the offset): the noise estimate sees
 * scikit-image's very bits. */
static void rgb_to_ycbcr(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double rgb[3] = {x[i], x[n + i], x[2 * n + i]};
        for (int k = 0; k < 3; k++)
            x[(size_t)k * n + i] = ycbcr_from_rgb[k][0] * rgb[0] + ycbcr_from_rgb[k][1] * rgb[1] +
                                   ycbcr_from_rgb[k][2] * rgb[2] + ycbcr_offset[k];
    }
}

static void ycbcr_to_rgb(double *x, size_t n)
{
    double inv[3][3];
    invert3(ycbcr_from_rgb, inv);
    for (size_t i = 0; i < n; i++) {
        double y[3] = {x[i] - 16.0, x[n + i] - 128.0, x[2 * n + i] - 128.0};
        for (int k = 0; k < 3; k++)
            x[(size_t)k * n + i] = inv[k][0] * y[0] + inv[k][1] * y[1] + inv[k][2] * y[2];
    }
}

/* _rescale_sigma_rgb2ycbcr: sigma of each YCbCr channel from the RGB ones. */
static void sigma_to_ycbcr(const double *rgb, double *ycc)
{
    for (int k = 0; k < 3; k++) {
        double v = 0.0;
        for (int j = 0; j < 3; j++)
            v += ycbcr_from_rgb[k][j] * ycbcr_from_rgb[k][j] * rgb[j] * rgb[j];
        ycc[k] = sqrt(v);
    }
}

/* denoise_wavelet(convert2ycbcr=True) of an RGB image scaled to [0, 1]:
 * each YCbCr channel min-max normalised, denoised, put back. */
static wt_status denoise_ycbcr(wt_engine *e, const wt_denoise_options *o, const wt_params *p,
                               size_t h, size_t w, const double *sigma_rgb, double *x,
                               float *work, double *used)
{
    size_t n = h * w;
    double given[3];
    sigma_to_ycbcr(sigma_rgb, given);
    rgb_to_ycbcr(x, n);
    wt_status st = WT_OK;
    for (int c = 0; c < 3 && st == WT_OK; c++) {
        double *ch = x + (size_t)c * n, lo = ch[0], hi = ch[0];
        for (size_t i = 1; i < n; i++) {
            lo = ch[i] < lo ? ch[i] : lo;
            hi = ch[i] > hi ? ch[i] : hi;
        }
        double range = hi - lo;
        used[c] = NAN;
        if (range == 0.0)
            continue; /* scikit-image skips a constant channel */
        for (size_t i = 0; i < n; i++)
            ch[i] = (ch[i] - lo) / range;
        double g = given[c] / range;
        if (isnan(g) && host_estimate(o, p))
            st = wt_noise_sigma_plane(ch, h, w, p->wavelet, &g);
        for (size_t i = 0; i < n; i++)
            work[i] = (float)ch[i];
        if (st == WT_OK)
            st = denoise_planes(e, o, p, h, w, 1, 1.0, 0.0, &g, &used[c], work);
        for (size_t i = 0; st == WT_OK && i < n; i++)
            ch[i] = (double)work[i] * range + lo;
        used[c] *= range;
    }
    ycbcr_to_rgb(x, n);
    return st;
}

/* Anscombe: 2 sqrt(x + 3/8) makes Poisson noise nearly Gaussian of sigma 1. */
double denoise_anscombe(double x)
{
    return 2.0 * sqrt(x + 0.375);
}

/* Makitalo and Foi (2011), closed-form approximation of the exact unbiased
 * inverse of the Anscombe transform. */
double denoise_anscombe_inverse(double y)
{
    if (y < 1e-9)
        y = 1e-9;
    double s = sqrt(1.5);
    return 0.25 * y * y + 0.25 * s / y - 1.375 / (y * y) + 0.625 * s / (y * y * y) - 0.125;
}

/* Samples of @p img rolled by (dy, dx) (np.roll on both axes) into planes:
 * plane[c][(y + dy) % h][(x + dx) % w] = sample(y, x, c). */
static void rolled_planes(const wt_image *img, size_t dy, size_t dx, double *x)
{
    size_t h = img->height, w = img->width, n = h * w;
    int c = img->channels;
    for (size_t yy = 0; yy < h; yy++)
        for (size_t xx = 0; xx < w; xx++) {
            size_t src = (yy * w + xx) * (size_t)c;
            size_t dst = ((yy + dy) % h) * w + (xx + dx) % w;
            for (int k = 0; k < c; k++)
                x[(size_t)k * n + dst] = wt_image_sample(img, src + (size_t)k);
        }
}

/* One denoise_wavelet call on planes @p x of samples (sample units in and out,
 * clipped to [0, peak] as scikit-image clips integer images' results). */
static wt_status denoise_sample_planes(wt_engine *e, const wt_denoise_options *o,
                                       const wt_params *p, const wt_image *img, double *x,
                                       float *work, double *used)
{
    size_t h = img->height, w = img->width, n = h * w;
    int channels = img->channels;
    double peak = peak_of(img), given[4];
    wt_status st = WT_OK;
    for (int c = 0; c < channels; c++)
        given[c] = o->noise == WT_NOISE_POISSON ? 1.0 : o->sigma / peak;
    if (o->ycbcr) {
        for (size_t i = 0; i < 3 * n; i++)
            x[i] *= 1.0 / peak; /* img_as_float */
        st = denoise_ycbcr(e, o, p, h, w, given, x, work, used);
        for (size_t i = 0; i < 3 * n; i++)
            x[i] *= peak; /* sigma stays in YCbCr units (Y' 16-235) */
    } else {
        int poisson = o->noise == WT_NOISE_POISSON;
        for (size_t i = 0; i < (size_t)channels * n; i++)
            work[i] = (float)(poisson ? denoise_anscombe(x[i]) : x[i]);
        for (int c = 0; c < channels && !poisson; c++)
            given[c] *= peak;
        st = denoise_planes(e, o, p, h, w, channels, poisson ? 1.0 : peak,
                            poisson ? 0.0 : full_scale_of(img), given, used, work);
        for (size_t i = 0; i < (size_t)channels * n; i++)
            x[i] = poisson ? denoise_anscombe_inverse(work[i]) : work[i];
    }
    double lo = clip_lo(img), hi = clip_hi(img);
    for (size_t i = 0; i < (size_t)channels * n; i++)
        x[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
    return st;
}

/* x (sample units, planes) rounded half to even into the image. */
static void planes_to_image(const double *x, wt_image *out)
{
    size_t n = (size_t)out->width * out->height;
    int c = out->channels;
    double peak = peak_of(out);
    wt_sample_type stored = wt_image_stored(out);
    for (int k = 0; k < c; k++)
        for (size_t i = 0; i < n; i++) {
            double v = x[(size_t)k * n + i];
            if (out->bit_depth == WT_DEPTH_F32) {
                wt_image_set_sample(out, i * (size_t)c + (size_t)k, wt_sample_clamp(stored, v));
                continue;
            }
            v = isnan(v) ? 0.0 : (v < 0.0 ? 0.0 : (v > peak ? peak : v));
            if (out->bit_depth > 8)
                ((uint16_t *)out->pixels)[i * (size_t)c + (size_t)k] = (uint16_t)lrint(v);
            else
                ((uint8_t *)out->pixels)[i * (size_t)c + (size_t)k] = (uint8_t)lrint(v);
        }
}

/* ---- the stationary wavelet transform (host stacks) ----------------------- */

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* numpy's median of the |c| >= @p zero of @p n values (NaN when none). */
double denoise_median_abs_above(const float *c, size_t n, double zero, double *scratch)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs((double)c[i]) >= zero && c[i] != 0.0f)
            scratch[m++] = fabs((double)c[i]);
    if (!m)
        return NAN;
    qsort(scratch, m, sizeof *scratch, by_double);
    return m % 2 ? scratch[m / 2] : 0.5 * (scratch[m / 2 - 1] + scratch[m / 2]);
}

void denoise_shrink_band(float *c, size_t n, double t, int soft)
{
    for (size_t i = 0; i < n; i++) {
        double v = c[i], m = fabs(v);
        c[i] = (float)(m < t ? 0.0 : (soft ? copysign(m - t, v) : v));
    }
}

double denoise_band_mean_sq(const float *c, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += (double)c[i] * (double)c[i];
    return n ? s / (double)n : 0.0;
}

/* One channel's detail bands of a stack: sigma, thresholds, shrinkage. */
static void shrink_swt_channel(const wt_denoise_options *o, const wt_uparams *u, float *bands,
                               size_t h, size_t w, int channels, int c, double peak,
                               double given, double *scratch, double *used)
{
    size_t n = h * w;
    float *d1 = bands + ((size_t)wt_ustack_index(u, 1, WT_BAND_D) * (size_t)channels + (size_t)c) * n;
    double sigma = given;
    if (isnan(sigma) && o->rule != WT_RULE_FIXED)
        sigma = denoise_median_abs_above(d1, n, peak * ZERO_FRACTION, scratch) / NORM_PPF_075;
    *used = sigma;
    for (int l = 1; l <= u->levels; l++)
        for (int b = WT_BAND_H; b <= WT_BAND_D; b++) {
            float *band = bands + ((size_t)wt_ustack_index(u, l, (wt_band)b) * (size_t)channels +
                                   (size_t)c) * n;
            double t = o->threshold;
            if (o->rule == WT_RULE_BAYES) {
                wt_band_stats s = {.count = n, .sum_sq = denoise_band_mean_sq(band, n) * (double)n};
                t = denoise_bayes_threshold(&s, sigma, peak);
            } else if (o->rule == WT_RULE_VISU) {
                t = sigma * sqrt(2.0 * log((double)n));
            }
            t *= denoise_level_factor(o, l);
            if (!isnan(t))
                denoise_shrink_band(band, n, t, o->soft);
        }
}

/* ---- the starlet: Sparse2D mr_filter's k-sigma thresholding ------------- */

/* ||psi_j||, the standard deviation of scale j of the starlet of unit white
 * Gaussian noise (no border), j = 1..@p levels, into @p norm: the B3 kernel is
 * separable, phi_j = h_j (x) h_j with h_j the 1-D kernel after j smoothings,
 * and w_j = phi_{j-1} - phi_j, so ||w_j||^2 = |h_{j-1}|^4 - 2 <h_{j-1}, h_j>^2
 * + |h_j|^4. */
static wt_status starlet_scale_norms(int levels, double *norm)
{
    size_t most = ((size_t)4 << levels) + 1; /* h_L spans 4 (2^L - 1) + 1 taps */
    double *prev = calloc(most, sizeof *prev), *next = calloc(most, sizeof *next);
    if (!prev || !next) {
        free(prev);
        free(next);
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    }
    static const double b3[5] = {1.0 / 16, 4.0 / 16, 6.0 / 16, 4.0 / 16, 1.0 / 16};
    size_t len = 1;
    prev[0] = 1.0; /* h_0: the identity */
    for (int j = 1; j <= levels; j++) {
        size_t step = (size_t)1 << (j - 1), grown = len + 4 * step;
        memset(next, 0, grown * sizeof *next);
        for (size_t i = 0; i < len; i++)
            for (size_t t = 0; t < 5; t++)
                next[i + t * step] += prev[i] * b3[t];
        double pp = 0.0, nn = 0.0, pn = 0.0; /* h_{j-1} centred in h_j: offset 2 step */
        for (size_t i = 0; i < len; i++) {
            pp += prev[i] * prev[i];
            pn += prev[i] * next[i + 2 * step];
        }
        for (size_t i = 0; i < grown; i++)
            nn += next[i] * next[i];
        norm[j - 1] = sqrt(pp * pp - 2.0 * pn * pn + nn * nn);
        double *swap = prev;
        prev = next;
        next = swap;
        len = grown;
    }
    free(prev);
    free(next);
    return WT_OK;
}

/* One channel's scales of a starlet stack thresholded at k sigma ||psi_j||
 * (--threshold: that value; --level-scale: times its factor), c_L kept; sigma
 * from w_1 (median |w_1| / 0.6745 / ||psi_1||) unless given. @p in_support
 * counts the coefficients kept per scale. */
static void shrink_starlet_channel(const wt_denoise_options *o, const wt_uparams *u,
                                   const double *norm, float *bands, size_t h, size_t w,
                                   int channels, int c, double peak, double given,
                                   double *scratch, double *used, double *in_support)
{
    size_t n = h * w;
    float *w1 = bands + ((size_t)wt_ustack_index(u, 1, WT_BAND_H) * (size_t)channels + (size_t)c) * n;
    double sigma = given;
    if (isnan(sigma))
        sigma = denoise_median_abs_above(w1, n, peak * ZERO_FRACTION, scratch) / NORM_PPF_075 / norm[0];
    *used = sigma;
    for (int l = 1; l <= u->levels; l++) {
        float *band = bands + ((size_t)wt_ustack_index(u, l, WT_BAND_H) * (size_t)channels +
                               (size_t)c) * n;
        double t = o->rule == WT_RULE_FIXED ? o->threshold : o->k * sigma * norm[l - 1];
        t *= denoise_level_factor(o, l);
        if (isnan(t))
            continue;
        denoise_shrink_band(band, n, t, o->soft);
        for (size_t i = 0; i < n; i++)
            in_support[l - 1] += band[i] != 0.0f;
    }
}

/* ---- band stacks: the SWT and the starlet (host stacks) ------------------ */

/* A stack kind's shrinkage of channel @p c (sigma into @p used). */
typedef struct stack_shrink {
    const double *norm; /* starlet: ||psi_j||, j = 1..levels */
    double *in_support; /* starlet: coefficients kept per scale, all channels */
} stack_shrink;

static void shrink_stack_channel(const wt_denoise_options *o, const wt_uparams *u,
                                 const stack_shrink *k, float *bands, size_t h, size_t w,
                                 int channels, int c, double peak, double given,
                                 double *scratch, double *used)
{
    if (k->norm)
        shrink_starlet_channel(o, u, k->norm, bands, h, w, channels, c, peak, given, scratch,
                               used, k->in_support);
    else
        shrink_swt_channel(o, u, bands, h, w, channels, c, peak, given, scratch, used);
}

/* A band stack's denoise: samples to planes, wt_uforward, shrink, wt_uinverse;
 * Poisson counts through the Anscombe transform and sigma 1, as the DWT's path. */
static wt_status denoise_stack(wt_engine *e, const wt_denoise_options *o, const wt_uparams *u,
                               const stack_shrink *k, const wt_image *in, wt_image *out,
                               double *used)
{
    size_t h = in->height, w = in->width, n = h * w;
    int channels = in->channels;
    size_t nb = (size_t)wt_ustack_bands(u);
    float *planes = malloc(n * (size_t)channels * sizeof *planes);
    float *bands = malloc(nb * n * (size_t)channels * sizeof *bands);
    double *scratch = malloc(n * sizeof *scratch), *x = malloc(n * (size_t)channels * sizeof *x);
    int poisson = o->noise == WT_NOISE_POISSON;
    double peak = poisson ? 1.0 : peak_of(in), lo = clip_lo(in), hi = clip_hi(in);
    wt_status st = planes && bands && scratch && x ? wt_image_to_planes(in, planes)
                                                   : wt_error_set(WT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == WT_OK && poisson && i < n * (size_t)channels; i++)
        planes[i] = (float)denoise_anscombe(planes[i]);
    if (st == WT_OK)
        st = wt_uforward(e, u, planes, h, w, channels, bands);
    for (int c = 0; st == WT_OK && c < channels; c++)
        shrink_stack_channel(o, u, k, bands, h, w, channels, c, peak,
                             poisson ? 1.0 : o->sigma, scratch, &used[c]);
    if (st == WT_OK)
        st = wt_uinverse(e, u, bands, h, w, channels, planes);
    for (size_t i = 0; st == WT_OK && i < n * (size_t)channels; i++) {
        x[i] = poisson ? denoise_anscombe_inverse(planes[i]) : planes[i];
        x[i] = poisson && x[i] < lo ? lo : (poisson && x[i] > hi ? hi : x[i]);
    }
    if (st == WT_OK)
        planes_to_image(x, out);
    free(planes);
    free(bands);
    free(scratch);
    free(x);
    return st;
}

/* The stack's parameters for @p in: -l, or @p deepest below the deepest level
 * the size allows (at least 1), or @p fixed levels at most that deep. */
static wt_status stack_params(const wt_denoise_options *o, const wt_image *in, int below,
                              int fixed, wt_uparams *u)
{
    *u = (wt_uparams){wt_transform_of_denoise(o)->kind, o->params.wavelet, o->params.levels, 0,
                      0, 0, WT_BORDER_MIRROR};
    if (u->levels <= 0) {
        int max = wt_umax_level(u, in->height, in->width);
        u->levels = fixed ? (fixed < max ? fixed : max) : (max - below > 1 ? max - below : 1);
    }
    return wt_uparams_check(u, in->height, in->width);
}

/* Denoise with the SWT (the SWT module's hook): scikit-image's rules on the
 * bands of pywt.swt2; levels max(swt_max_level - 3, 1) by default. */
wt_status wt_denoise_swt(wt_engine *e, const wt_denoise_options *o, const wt_params *p,
                         const wt_image *in, wt_image *out, wt_denoise_info *info)
{
    (void)p;
    wt_uparams u;
    stack_shrink k = {NULL, NULL};
    wt_status st = stack_params(o, in, 3, 0, &u);
    info->levels = u.levels;
    return st == WT_OK ? denoise_stack(e, o, &u, &k, in, out, info->sigma) : st;
}

/* Denoise with the starlet (the starlet module's hook): Sparse2D mr_filter's
 * default, hard k-sigma thresholding of 3 scales; info->support: the share of
 * each scale in the multiresolution support. */
wt_status wt_denoise_starlet(wt_engine *e, const wt_denoise_options *o, const wt_params *p,
                             const wt_image *in, wt_image *out, wt_denoise_info *info)
{
    (void)p;
    wt_uparams u;
    double norm[WT_MAX_LEVELS], kept[WT_MAX_LEVELS] = {0};
    stack_shrink k = {norm, kept};
    wt_status st = stack_params(o, in, 0, 3, &u);
    info->levels = u.levels;
    if (st == WT_OK)
        st = starlet_scale_norms(u.levels, norm);
    if (st == WT_OK)
        st = denoise_stack(e, o, &u, &k, in, out, info->sigma);
    double all = (double)in->height * (double)in->width * (double)in->channels;
    for (int l = 0; st == WT_OK && l < u.levels; l++)
        info->support[l] = kept[l] / all;
    return st;
}

/* ---- wavelet packets ---------------------------------------------------------- */

/* Leaf (l, k)'s channel @p c shrunk as a DWT band of level l. */
static void shrink_leaf(const wt_denoise_options *o, const wt_packet_tree *t, int l, size_t k,
                        int c, double sigma, double peak)
{
    size_t n = t->node_h[l] * t->node_w[l];
    float *band = wt_packet_node(t, l, k) + (size_t)c * n;
    double th = o->threshold;
    if (o->rule == WT_RULE_BAYES) {
        wt_band_stats s = {.count = n, .sum_sq = denoise_band_mean_sq(band, n) * (double)n};
        th = denoise_bayes_threshold(&s, sigma, peak);
    } else if (o->rule == WT_RULE_VISU) {
        th = sigma * sqrt(2.0 * log((double)t->height * (double)t->width));
    }
    th *= denoise_level_factor(o, l);
    if (!isnan(th))
        denoise_shrink_band(band, n, th, o->soft);
}

/* Sigma of each channel: --sigma or scikit-image's estimate, else (a wavelet
 * or mode without it) from the node d as the DWT's cD1. */
static wt_status packet_sigma(const wt_denoise_options *o, const wt_params *p,
                              const wt_image *in, const wt_packet_tree *t, double *sigma)
{
    wt_status st = known_sigma(o, p, in, 0, 0, sigma);
    size_t n = t->node_h[1] * t->node_w[1];
    double *scratch = st == WT_OK ? malloc(n * sizeof *scratch) : NULL;
    if (st == WT_OK && !scratch)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    for (int c = 0; st == WT_OK && c < in->channels; c++)
        if (isnan(sigma[c]) && o->rule != WT_RULE_FIXED)
            sigma[c] = denoise_median_abs_above(wt_packet_node(t, 1, 3) + (size_t)c * n, n,
                                        full_scale_of(in) * ZERO_FRACTION, scratch) /
                       NORM_PPF_075;
    free(scratch);
    return st;
}

/* Shrinks every leaf of @p basis but the approximation's (path a..a). */
static wt_status shrink_leaves(const wt_denoise_options *o, const wt_packet_tree *t,
                               const unsigned char *basis, const double *sigma, double peak)
{
    size_t n = wt_packet_leaves(t->params.levels, basis, NULL, NULL);
    int *level = malloc(n * sizeof *level);
    size_t *index = malloc(n * sizeof *index);
    if (!level || !index) {
        free(level);
        free(index);
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    }
    wt_packet_leaves(t->params.levels, basis, level, index);
    for (size_t i = 0; i < n; i++)
        for (int c = 0; index[i] != 0 && c < t->channels; c++)
            shrink_leaf(o, t, level[i], index[i], c, sigma[c], peak);
    free(level);
    free(index);
    return WT_OK;
}

/* Denoise with wavelet packets (the packet module's hook): the tree, its
 * basis, every leaf but the approximation shrunk as a DWT band, the inverse. */
wt_status wt_denoise_packet(wt_engine *e, const wt_denoise_options *o, const wt_params *p,
                            const wt_image *in, wt_image *out, wt_denoise_info *info)
{
    size_t all = (size_t)in->height * in->width * (size_t)in->channels;
    wt_packet_tree t = {0};
    float *planes = malloc(all * sizeof *planes);
    double *x = malloc(all * sizeof *x);
    unsigned char *basis = malloc(wt_packet_node_count(p->levels));
    double *used = info->sigma;
    info->levels = p->levels;
    wt_status st = planes && x && basis ? wt_image_to_planes(in, planes)
                                        : wt_error_set(WT_ERR_NOMEM, "out of memory");
    if (st == WT_OK)
        st = wt_packet_alloc(&t, p, in->height, in->width, in->channels);
    if (st == WT_OK) /* every node: the noise estimate reads node d, a leaf or not */
        st = wt_packet_decompose(e, &t, planes, &o->basis, &o->cost, basis, NULL, 1);
    if (st == WT_OK)
        st = packet_sigma(o, p, in, &t, used);
    if (st == WT_OK)
        st = shrink_leaves(o, &t, basis, used, peak_of(in));
    if (st == WT_OK)
        st = wt_packet_inverse(e, &t, basis, planes);
    for (size_t i = 0; st == WT_OK && i < all; i++)
        x[i] = planes[i];
    if (st == WT_OK)
        planes_to_image(x, out);
    wt_packet_free(&t);
    free(planes);
    free(x);
    free(basis);
    return st;
}

/* cycle_spin(max_shifts=N): the mean over shifts (dy, dx) in 0..N of the
 * denoised rolled image rolled back; N = 0 is one plain call. */
static wt_status denoise_on_host_planes(wt_engine *e, const wt_denoise_options *o,
                                        const wt_params *p, const wt_image *in, wt_image *out,
                                        double *used)
{
    size_t h = in->height, w = in->width, n = h * w, all = n * (size_t)in->channels;
    double *x = malloc(all * sizeof *x), *sum = calloc(all, sizeof *sum);
    float *work = malloc(all * sizeof *work);
    wt_status st = x && sum && work ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    size_t shifts = spin_shifts(o);
    for (size_t dy = 0; st == WT_OK && dy < shifts; dy++)
        for (size_t dx = 0; st == WT_OK && dx < shifts; dx++) {
            double u[4];
            rolled_planes(in, dy % h, dx % w, x);
            st = denoise_sample_planes(e, o, p, in, x, work, u);
            if (dy == 0 && dx == 0)
                memcpy(used, u, sizeof u);
            for (int c = 0; st == WT_OK && c < in->channels; c++)
                for (size_t yy = 0; yy < h; yy++)
                    for (size_t xx = 0; xx < w; xx++)
                        sum[(size_t)c * n + yy * w + xx] +=
                            x[(size_t)c * n + ((yy + dy) % h) * w + (xx + dx) % w];
        }
    for (size_t i = 0; st == WT_OK && i < all; i++)
        sum[i] /= (double)(shifts * shifts);
    if (st == WT_OK)
        planes_to_image(sum, out);
    free(x);
    free(sum);
    free(work);
    return st;
}

/* The sigma of @p in rolled by (dy, dx), whose forward @p ep just made, for
 * the shrink that follows: the engine's noise estimate, kept on the engine,
 * where *on_engine (@p given all NaN), else known_sigma's. The GPU out of
 * memory for the estimate: the host's from then on. */
static wt_status shift_sigma(wt_epyramid *ep, const wt_denoise_options *o, const wt_params *p,
                             const wt_image *in, size_t dy, size_t dx, int *on_engine,
                             double *given)
{
    if (*on_engine) {
        double peak = peak_of(in);
        unknown_sigma(given);
        wt_status st = wt_epyramid_noise_estimate(ep, 1.0 / peak, peak);
        if (st != WT_ERR_DEVICE_NOMEM)
            return st;
        *on_engine = 0;
    }
    return known_sigma(o, p, in, dy, dx, given);
}

/* The common case on the engine alone: samples in, forward, sigma, band
 * statistics, shrinkage, inverse, samples out. */
static wt_status denoise_resident(wt_engine *e, const wt_denoise_options *o, const wt_params *p,
                                  const wt_image *in, wt_image *out, double *used)
{
    double given[4], peak = peak_of(in);
    wt_epyramid *ep = NULL;
    int on_engine = engine_estimate(e, o, p);
    wt_status st = wt_epyramid_create(e, p, in->height, in->width, in->channels, &ep);
    int fused = st == WT_OK && fused_shrink(ep);
    if (st == WT_OK)
        st = wt_epyramid_forward_image(ep, in);
    if (st == WT_OK)
        st = shift_sigma(ep, o, p, in, 0, 0, &on_engine, given);
    if (st == WT_OK)
        st = fused ? shrink_fused(ep, o, peak, full_scale_of(in), given, on_engine)
                   : shrink_pyramid(ep, o, peak, full_scale_of(in), given, used);
    if (st == WT_OK)
        st = wt_epyramid_inverse_image(ep, out);
    if (st == WT_OK && fused) /* after the inverse: no wait in between */
        st = wt_epyramid_shrink_sigma(ep, used);
    wt_epyramid_destroy(ep);
    return st;
}

/* The samples of @p in loaded for cycle spinning; for a float32 result of
 * integer samples as float32 (the same values), so that the mean comes back
 * unrounded. */
static wt_status spin_load(wt_epyramid *ep, const wt_image *in, const wt_image *out)
{
    if (out->bit_depth == in->bit_depth)
        return wt_epyramid_spin_load(ep, in);
    wt_image copy = {0};
    wt_status st = wt_image_convert(in, (wt_sample_type){WT_SAMPLE_FLOAT, 32}, &copy);
    if (st == WT_OK)
        st = wt_epyramid_spin_load(ep, &copy);
    wt_image_free(&copy);
    return st;
}

/* cycle_spin(max_shifts=N) on the engine: the samples go up once, each
 * shift is a forward of the resident planes rolled, the shrinkage, an
 * inverse rolled back into the engine's accumulator; the mean comes down
 * once. The sigma reported is the unshifted decomposition's. */
static wt_status denoise_spin_resident(wt_engine *e, const wt_denoise_options *o,
                                       const wt_params *p, const wt_image *in, wt_image *out,
                                       double *used)
{
    double given[4], peak = peak_of(in);
    size_t shifts = spin_shifts(o);
    wt_epyramid *ep = NULL;
    int on_engine = engine_estimate(e, o, p);
    wt_status st = wt_epyramid_create(e, p, in->height, in->width, in->channels, &ep);
    int fused = st == WT_OK && fused_shrink(ep);
    if (st == WT_OK)
        st = spin_load(ep, in, out);
    for (size_t dy = 0; st == WT_OK && dy < shifts; dy++)
        for (size_t dx = 0; st == WT_OK && dx < shifts; dx++) {
            double u[4] = {NAN, NAN, NAN, NAN};
            int first = dy == 0 && dx == 0;
            st = wt_epyramid_spin_forward(ep, dy, dx);
            if (st == WT_OK) /* cycle_spin: each shift's own */
                st = shift_sigma(ep, o, p, in, dy, dx, &on_engine, given);
            if (st == WT_OK && fused) /* only the first shift's sigma is waited for */
                st = shrink_fused(ep, o, peak, full_scale_of(in), given, on_engine);
            if (st == WT_OK && fused && first)
                st = wt_epyramid_shrink_sigma(ep, u);
            if (st == WT_OK && !fused)
                st = shrink_pyramid(ep, o, peak, full_scale_of(in), given, u);
            if (st == WT_OK)
                st = wt_epyramid_spin_inverse_add(ep, dy, dx, clip_lo(in), clip_hi(in));
            if (first)
                memcpy(used, u, sizeof u);
        }
    if (st == WT_OK)
        st = wt_epyramid_spin_result(ep, (double)(shifts * shifts), out);
    wt_epyramid_destroy(ep);
    return st;
}

/* Denoise with the DWT (the DWT module's hook): on host planes where the
 * pyramid cannot stay on the engine, else resident. */
wt_status wt_denoise_dwt(wt_engine *e, const wt_denoise_options *o, const wt_params *p,
                         const wt_image *in, wt_image *out, wt_denoise_info *info)
{
    double *used = info->sigma;
    info->levels = p->levels;
    if (o->ycbcr || o->noise == WT_NOISE_POISSON)
        return denoise_on_host_planes(e, o, p, in, out, used);
    if (o->cycle_spin > 0)
        return denoise_spin_resident(e, o, p, in, out, used);
    return denoise_resident(e, o, p, in, out, used);
}

wt_status wt_denoise_image(wt_engine *engine, const wt_denoise_options *o, const wt_image *in,
                           wt_image *out, wt_denoise_info *info)
{
    wt_status st = check_options(o, in);
    if (st != WT_OK)
        return st;
    if (out->width != in->width || out->height != in->height || out->channels != in->channels ||
        (out->bit_depth != in->bit_depth && out->bit_depth != WT_DEPTH_F32))
        return wt_error_set(WT_ERR_INVALID, "denoise: output image does not match the input");
    wt_params p = params_for(o, in);
    wt_denoise_info found = {.sigma = {NAN, NAN, NAN, NAN}, .channels = in->channels};
    st = wt_transform_of_denoise(o)->denoise(engine, o, &p, in, out, &found);
    if (st == WT_OK)
        clip_result(in, out);
    if (info)
        *info = found;
    return st;
}

size_t wt_denoise_estimate_count(const wt_denoise_options *o)
{
    return 4 * spin_shifts(o) * spin_shifts(o);
}

/* Whether the denoise of @p o reads known_sigma (the DWT and packets on the
 * samples as they are). */
static int uses_known_sigma(const wt_denoise_options *o)
{
    return !o->swt && !o->starlet && !o->ycbcr && o->noise != WT_NOISE_POISSON;
}

typedef struct estimate_job {
    const wt_denoise_options *o; /* without estimates */
    const wt_params *p;
    const wt_image *in;
    size_t shifts;
    double *sigma;
    wt_status *status; /* per shift */
} estimate_job;

static void estimate_shifts(void *ctx, size_t begin, size_t end)
{
    const estimate_job *j = ctx;
    for (size_t k = begin; k < end; k++)
        j->status[k] = known_sigma(j->o, j->p, j->in, k / j->shifts, k % j->shifts,
                                   j->sigma + 4 * k);
}

wt_status wt_denoise_estimate(const wt_denoise_options *o, const wt_image *in, int threads,
                              double *sigma)
{
    size_t count = wt_denoise_estimate_count(o), shifts = spin_shifts(o);
    for (size_t i = 0; i < count; i++)
        sigma[i] = NAN;
    wt_status st = check_options(o, in);
    if (st != WT_OK || !uses_known_sigma(o))
        return st;
    wt_denoise_options own = *o;
    own.estimates = NULL;
    wt_params p = params_for(&own, in);
    wt_status *status = malloc(shifts * shifts * sizeof *status);
    if (!status)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    estimate_job j = {&own, &p, in, shifts, sigma, status};
    /* each shift's channels on threads of their own (wt_noise_sigma_image) */
    threads = threads > 0 ? threads : wt_cpu_count();
    int per_shift = in->channels > 1 ? in->channels : 1;
    wt_parallel_for(threads > per_shift ? threads / per_shift : 1, shifts * shifts,
                    estimate_shifts, &j);
    for (size_t k = 0; k < shifts * shifts && st == WT_OK; k++)
        st = status[k];
    free(status);
    return st;
}

int wt_denoise_estimates_on_engine(const wt_engine *engine, const wt_denoise_options *o,
                                   const wt_image *in)
{
    if (check_options(o, in) != WT_OK || wt_transform_of_denoise(o)->denoise != wt_denoise_dwt ||
        o->ycbcr || o->noise == WT_NOISE_POISSON)
        return 0;
    wt_params p = params_for(o, in);
    return engine_estimate(engine, o, &p);
}

wt_status wt_estimate_sigma(wt_engine *engine, const wt_image *img, double *sigma)
{
    (void)engine; /* float64 on the host: the engines' float32 would move its exact zeros */
    if (img->channels > 4)
        return wt_error_set(WT_ERR_UNSUPPORTED, "the noise estimate takes 1 to 4 channels (this "
                                                "image has %d)",
                            img->channels);
    /* estimate_sigma: pywt.dwtn(image, 'db2') on the samples as they are */
    return wt_noise_sigma_image(img, 0, 0, 1.0, wt_wavelet_find("db2"), sigma);
}

/* ---- test hooks (wavetool_hooks.h) ------------------------------------------ */

/* shrink_fused with a fixed threshold: no estimate of the engine's own, so
 * the sigma it reports is the given one. */
static wt_status engine_sigma_of_shift(wt_epyramid *ep, const wt_denoise_options *o,
                                       const wt_image *img, size_t dy, size_t dx, double *sigma)
{
    wt_denoise_options fixed = *o;
    double given[4], peak = peak_of(img);
    unknown_sigma(given);
    fixed.rule = WT_RULE_FIXED;
    fixed.threshold = 0.0;
    wt_status st = wt_epyramid_spin_load(ep, img);
    if (st == WT_OK)
        st = wt_epyramid_spin_forward(ep, dy, dx);
    if (st == WT_OK)
        st = wt_epyramid_noise_estimate(ep, 1.0 / peak, peak);
    if (st == WT_OK)
        st = shrink_fused(ep, &fixed, peak, full_scale_of(img), given, 1);
    return st == WT_OK ? wt_epyramid_shrink_sigma(ep, sigma) : st;
}

wt_status wt_denoise_engine_sigma(wt_engine *engine, const wt_denoise_options *o,
                                  const wt_image *img, size_t dy, size_t dx, double *sigma)
{
    if (!wt_denoise_estimates_on_engine(engine, o, img))
        return wt_error_set(WT_ERR_UNSUPPORTED, "engine %s makes no noise estimate for this "
                                                "denoise",
                            engine->name);
    wt_params p = params_for(o, img);
    wt_epyramid *ep = NULL;
    wt_status st = wt_epyramid_create(engine, &p, img->height, img->width, img->channels, &ep);
    if (st == WT_OK)
        st = engine_sigma_of_shift(ep, o, img, dy, dx, sigma);
    wt_epyramid_destroy(ep);
    return st;
}

/* ---- device-resident timing (wavetool_hooks.h) ---------------------------- */

/* One timed run; @p on_engine: with the engine's noise estimate (else the
 * engine's own float32 estimate where o->sigma is NaN). */
static wt_status resident_run(wt_epyramid *ep, const wt_denoise_options *o, double peak,
                              double full_scale, int on_engine, double *ms)
{
    double given[4] = {o->sigma, o->sigma, o->sigma, o->sigma}, used[4];
    double t0 = wt_seconds();
    wt_status st = wt_epyramid_spin_forward(ep, 0, 0);
    if (st == WT_OK && on_engine)
        st = wt_epyramid_noise_estimate(ep, 1.0 / peak, peak);
    if (st == WT_OK)
        st = shrink_fused(ep, o, peak, full_scale, given, on_engine);
    if (st == WT_OK) /* planes NULL: the inverse stays on the engine */
        st = ep->engine->ops->pyr->inverse(ep, NULL);
    if (st == WT_OK)
        st = wt_epyramid_shrink_sigma(ep, used); /* waits for the engine */
    *ms = 1e3 * (wt_seconds() - t0);
    return st;
}

wt_status wt_denoise_time_resident(wt_engine *e, const wt_denoise_options *o,
                                   const wt_image *img, int runs, double *ms)
{
    wt_params p = params_for(o, img);
    wt_epyramid *ep = NULL;
    double *t = malloc((size_t)(runs > 0 ? runs : 1) * sizeof *t);
    wt_status st = t ? check_options(o, img) : wt_error_set(WT_ERR_NOMEM, "out of memory");
    if (st == WT_OK)
        st = wt_epyramid_create(e, &p, img->height, img->width, img->channels, &ep);
    if (st == WT_OK && !(fused_shrink(ep) && ep->engine->ops->pyr->spin_load))
        st = wt_error_set(WT_ERR_UNSUPPORTED, "engine %s has no device-resident denoise",
                          e->name);
    if (st == WT_OK)
        st = wt_epyramid_spin_load(ep, img);
    for (int r = -1; st == WT_OK && r < runs; r++) /* r = -1: warm-up */
        st = resident_run(ep, o, peak_of(img), full_scale_of(img), engine_estimate(e, o, &p),
                          &t[r < 0 ? 0 : r]);
    if (st == WT_OK)
        *ms = wt_median(t, (size_t)runs);
    wt_epyramid_destroy(ep);
    free(t);
    return st;
}
