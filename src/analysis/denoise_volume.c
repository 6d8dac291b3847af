/* Denoising volumes as scikit-image 0.19.3's denoise_wavelet and
 * estimate_sigma do on a 3-D array (wavetool_hooks.h): the volume transform
 * (src/transforms/transform_volume.c) on the host, sigma, thresholds and
 * shrinkage per channel and band, in sample units (see denoise.c: thresholds
 * scale with the samples; BayesShrink's eps is float64's times peak^2). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "denoise_shared.h"
#include "noise_estimate.h" /* NORM_PPF_075 */
#include "transform.h" /* wt_transform_of_denoise */
#include "wavetool_hooks.h"

static size_t voxels_of(const size_t shape[3])
{
    return shape[0] * shape[1] * shape[2];
}

/* Float32 volumes are denoised in their own units: peak 1, nothing clipped,
 * no integer residues (full scale 0). */
static double peak_of(const wt_volume *v)
{
    return v->bit_depth == WT_DEPTH_F32 ? 1.0 : v->bit_depth > 8 ? 65535.0 : 255.0;
}

/* Channel @p c's samples of band @p b. */
static float *band_channel(const wt_vcoeffs *k, int b, int c)
{
    return (float *)k->band[b].data + (size_t)c * voxels_of(k->band[b].shape);
}

/* The finest level's all-'d' band (the last of the bands). */
static int finest_diagonal(const wt_vcoeffs *k)
{
    return k->nbands - 1;
}

/* median(|nonzero c|) / Phi^-1(0.75) of channel @p c of band @p b; NaN when
 * no coefficient is nonzero. */
static wt_status band_sigma(const wt_vcoeffs *k, int b, int c, double full_scale, double *sigma)
{
    size_t n = voxels_of(k->band[b].shape);
    double *scratch = malloc((n ? n : 1) * sizeof *scratch);
    if (!scratch)
        return wt_error_set(WT_ERR_NOMEM, "out of memory for the noise estimate");
    *sigma = denoise_median_abs_above(band_channel(k, b, c), n, full_scale * ZERO_FRACTION,
                                      scratch) /
             NORM_PPF_075;
    free(scratch);
    return WT_OK;
}

/* scikit-image's estimate bit for bit (noise_estimate.c) where it applies:
 * the DWT along all three axes in their order, pywt's wavelet in mode
 * symmetric; the channel's samples times @p scale in float64. */
static int decimated(const wt_volume_spec *s)
{
    return wt_transform_class_of(s->transform)->layout == WT_LAYOUT_PYRAMID;
}

static int exact_estimate(const wt_volume_spec *s)
{
    return decimated(s) && s->naxes == 3 && s->axes[0] == 0 &&
           s->axes[1] == 1 && s->axes[2] == 2 && wt_noise_exact(s->params.wavelet, s->params.mode);
}

static wt_status exact_sigma(const wt_volume *v, int c, const wt_wavelet *wavelet, double scale,
                             double *sigma)
{
    const size_t n = voxels_of(v->shape);
    double *x = malloc((n ? n : 1) * sizeof *x);
    if (!x)
        return wt_error_set(WT_ERR_NOMEM, "out of memory for the noise estimate");
    for (size_t i = 0; i < n; i++)
        x[i] = (double)v->planes[(size_t)c * n + i] * scale;
    wt_status st = wt_noise_sigma_volume(x, v->shape, wavelet, sigma);
    free(x);
    return st;
}

/* One band's threshold for a channel of noise @p sigma. */
static double band_threshold(const wt_denoise_options *o, const wt_vcoeffs *k, int b, int c,
                             double sigma, double peak)
{
    const size_t n = voxels_of(k->band[b].shape);
    double t = o->threshold;
    if (o->rule == WT_RULE_BAYES) {
        float *d = band_channel(k, b, c);
        wt_band_stats s = {.count = n, .sum_sq = denoise_band_mean_sq(d, n) * (double)n};
        t = denoise_bayes_threshold(&s, sigma, peak);
    } else if (o->rule == WT_RULE_VISU) {
        t = sigma * sqrt(2.0 * log((double)voxels_of(k->shape)));
    }
    return t * denoise_level_factor(o, k->band[b].level);
}

/* Sigma, thresholds and shrinkage of channel @p c's detail bands (band 0
 * is the approximation). */
static wt_status shrink_channel(const wt_denoise_options *o, wt_vcoeffs *k, int c,
                                double given, double peak, double full_scale, double *used)
{
    wt_status st = WT_OK;
    double sigma = given;
    if (isnan(sigma) && o->rule != WT_RULE_FIXED)
        st = band_sigma(k, finest_diagonal(k), c, full_scale, &sigma);
    *used = sigma;
    for (int b = 1; st == WT_OK && b < k->nbands; b++) {
        double t = band_threshold(o, k, b, c, sigma, peak);
        if (!isnan(t))
            denoise_shrink_band(band_channel(k, b, c), voxels_of(k->band[b].shape), t,
                                o->soft);
    }
    return st;
}

/* The transform a denoise asks for on a volume of @p shape. */
static wt_status spec_of(const wt_denoise_options *o, const int *axes, int naxes,
                         const size_t shape[3], wt_volume_spec *s)
{
    memset(s, 0, sizeof *s);
    s->transform = wt_transform_of_denoise(o)->kind;
    s->params = o->params;
    s->naxes = axes ? naxes : 3;
    for (int k = 0; k < s->naxes; k++)
        s->axes[k] = axes ? axes[k] : k;
    s->uparams = (wt_uparams){s->transform, o->params.wavelet, o->params.levels, 0, 0, 0,
                              WT_BORDER_MIRROR};
    if (s->params.levels <= 0) {
        int max = wt_volume_max_level(s, shape);
        s->params.levels = s->uparams.levels = max - 3 > 1 ? max - 3 : 1;
    }
    if (o->ycbcr || o->cycle_spin)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "volumes are denoised without --ycbcr and --cycle-spin");
    return decimated(s) ? wt_params_resolve(&s->params) : WT_OK;
}

static void clip_integer(wt_volume *v, size_t n)
{
    if (v->bit_depth == WT_DEPTH_F32)
        return;
    const float hi = (float)peak_of(v);
    for (size_t i = 0; i < n; i++)
        v->planes[i] = v->planes[i] < 0.0f ? 0.0f : (v->planes[i] > hi ? hi : v->planes[i]);
}

wt_status wt_denoise_volume(const wt_denoise_options *o, const int *axes, int naxes,
                            wt_volume *v, int threads, wt_denoise_info *info)
{
    const size_t n = voxels_of(v->shape) * (size_t)v->channels;
    const int poisson = o->noise == WT_NOISE_POISSON;
    wt_volume_spec s;
    wt_vcoeffs k = {0};
    wt_status st = spec_of(o, axes, naxes, v->shape, &s);
    if (st != WT_OK)
        return st;
    if (poisson)
        for (size_t i = 0; i < n; i++)
            v->planes[i] = (float)denoise_anscombe(v->planes[i]);
    const double peak = poisson ? 1.0 : peak_of(v);
    const double full_scale = poisson || v->bit_depth == WT_DEPTH_F32 ? 0.0 : peak;
    double given[WT_MAX_CHANNELS], used[WT_MAX_CHANNELS];
    for (int c = 0; c < v->channels; c++) {
        given[c] = poisson ? 1.0 : o->sigma;
        if (isnan(given[c]) && o->rule != WT_RULE_FIXED && exact_estimate(&s))
            st = exact_sigma(v, c, s.params.wavelet, 1.0 / peak, &given[c]); /* img_as_float */
        given[c] *= isnan(o->sigma) && !poisson ? peak : 1.0;
        if (st != WT_OK)
            return st;
    }
    st = wt_volume_forward(&s, v->planes, v->shape, v->channels, threads, &k);
    for (int c = 0; st == WT_OK && c < v->channels; c++)
        st = shrink_channel(o, &k, c, given[c], peak, full_scale, &used[c]);
    if (st == WT_OK)
        st = wt_volume_inverse(&s, &k, v->planes, threads);
    wt_vcoeffs_free(&k);
    if (poisson)
        for (size_t i = 0; i < n; i++)
            v->planes[i] = (float)denoise_anscombe_inverse(v->planes[i]);
    clip_integer(v, n);
    if (info && st == WT_OK) {
        memset(info, 0, sizeof *info);
        info->levels = s.params.levels;
        info->channels = v->channels;
        for (int c = 0; c < v->channels && c < 4; c++)
            info->sigma[c] = used[c];
    }
    return st;
}

wt_status wt_estimate_sigma_volume(const wt_volume *v, int threads, double *sigma)
{
    (void)threads;
    wt_status st = WT_OK;
    for (int c = 0; st == WT_OK && c < v->channels; c++) /* estimate_sigma: the raw samples */
        st = exact_sigma(v, c, wt_wavelet_find("db2"), 1.0, &sigma[c]);
    return st;
}
