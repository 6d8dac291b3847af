/* The stationary wavelet transform (= pywt.swt2 with trim_approx=True, any
 * size): a stack of full-size bands, periodic border; the host code is
 * src/undecimated.c's, the CUDA engine's cuda/cu_swt.cu. */
#include <stdio.h>

#include "transform.h"

/* 1 + 3L bands (+ L - 1 with all_approx): cA_L, then cH_l, cV_l, cD_l for
 * l = L..1, then cA_1..cA_{L-1}. */
static int swt_nbands(const wt_uparams *p)
{
    return 1 + 3 * p->levels + (p->all_approx ? p->levels - 1 : 0);
}

static int swt_band_index(const wt_uparams *p, int level, wt_band band)
{
    int L = p->levels;
    if (level < 1 || level > L || (unsigned)band > WT_BAND_D)
        return -1;
    if (band != WT_BAND_A)
        return 1 + 3 * (L - level) + (int)band - 1;
    if (level == L)
        return 0;
    return p->all_approx ? 1 + 3 * L + level - 1 : -1;
}

static int swt_band_ref(const wt_uparams *p, int i, wt_band_ref *ref)
{
    int L = p->levels;
    if (i == 0)
        *ref = (wt_band_ref){L, WT_BAND_A, 0};
    else if (i <= 3 * L)
        *ref = (wt_band_ref){L - (i - 1) / 3, (wt_band)(1 + (i - 1) % 3), 0};
    else
        *ref = (wt_band_ref){i - 3 * L, WT_BAND_A, 0};
    return ref->band != WT_BAND_A;
}

static void swt_member_name(const wt_uparams *p, int i, char *out, size_t cap)
{
    wt_band_ref r;
    swt_band_ref(p, i, &r);
    if (i == 0)
        snprintf(out, cap, "cA");
    else
        wt_tband_ref_name(&r, out, cap);
}

/* One row per level from the coarsest (top): cA, cH, cV, cD; the cA column
 * holds cA_L on the top row and cA_l on the others with all_approx. */
static void swt_mosaic_cell(const wt_uparams *p, int i, size_t *row, size_t *col)
{
    wt_band_ref r;
    swt_band_ref(p, i, &r);
    *row = (size_t)(p->levels - r.level);
    *col = (size_t)r.band;
}

static void swt_mosaic_grid(const wt_uparams *p, size_t *rows, size_t *cols)
{
    *rows = (size_t)p->levels;
    *cols = 4;
}

static int swt_max_level(size_t height, size_t width)
{
    size_t n = height < width ? height : width;
    int k = 0;
    while (n > 1 && n % 2 == 0) { /* pywt.swt_max_level */
        n /= 2;
        k++;
    }
    return k;
}

static void swt_ref_name(const wt_band_ref *r, char *buf, size_t size)
{
    if (r->band == WT_BAND_A)
        snprintf(buf, size, "cA");
    else
        wt_tband_ref_name(r, buf, size);
}

static void swt_describe(const wt_params *p, wt_border border, char *buf, size_t size)
{
    (void)border;
    snprintf(buf, size, "swt %s", p->wavelet->name);
}

/* 1 plane read and 4 written a level (the inverse 4 + 1). */
static double swt_bench_bytes(const wt_uparams *p, double plane, int inverse)
{
    (void)inverse;
    return 4.0 * plane * 5 * p->levels;
}

static wt_status swt_check(const wt_uparams *p)
{
    if (!p->wavelet)
        return wt_error_set(WT_ERR_INVALID, "swt: no wavelet");
    if (p->wavelet->kind != WT_KIND_FILTER_BANK)
        return wt_error_set(WT_ERR_INVALID,
                            "swt: %s is a JPEG 2000 wavelet; the SWT takes filter-bank "
                            "wavelets (bior4.4 for cdf97, bior2.2 for legall53)",
                            p->wavelet->name);
    if (p->wavelet->filter_len > WT_UTAPS)
        return wt_error_set(WT_ERR_UNSUPPORTED, "swt: %s has more than %d taps",
                            p->wavelet->name, WT_UTAPS);
    if (p->start_level < 0 || p->start_level > WT_MAX_LEVELS - p->levels) /* no overflow */
        return wt_error_set(WT_ERR_INVALID,
                            "swt: start level %d + %d levels is more than %d", p->start_level,
                            p->levels, WT_MAX_LEVELS);
    return WT_OK;
}

static const struct wt_transform_ops swt_ops = {
    .check = swt_check,
    .host_forward = wt_swt_host_forward,
    .host_inverse = wt_swt_host_inverse,
    .b3_kernel = 0,
    .fixed_border = WT_BORDER_PERIODIC,
};

const wt_transform_class wt_transform_swt = {
    .name = "swt",
    .help = "swt (= pywt.swt2, any size)",
    .kind = WT_TRANSFORM_SWT,
    .params = WT_TPARAM_WAVELET | WT_TPARAM_NORM | WT_TPARAM_START_LEVEL |
              WT_TPARAM_ALL_APPROX | WT_TPARAM_LAYERS | WT_TPARAM_DENOISE_POISSON,
    .layout = WT_LAYOUT_STACK,
    .filter_banks_only = 1,
    .no_border = "is periodic",
    .meta_mode = WT_MODE_PERIODIC,
    .orientations = "AHVD",
    .nbands = swt_nbands,
    .band_index = swt_band_index,
    .band_ref = swt_band_ref,
    .member_name = swt_member_name,
    .mosaic_cell = swt_mosaic_cell,
    .mosaic_grid = swt_mosaic_grid,
    .max_level = swt_max_level,
    .ref_name = swt_ref_name,
    .describe = swt_describe,
    .bench_bytes = swt_bench_bytes,
    .denoise = wt_denoise_swt,
    .ops = &swt_ops,
};
