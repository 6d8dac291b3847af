/* The isotropic undecimated starlet (B3-spline à trous): c_L and the scales
 * w_1..w_L, full size, summing back to the image; mirror, periodic or
 * nearest border. Host code in src/undecimated.c, CUDA in cuda/cu_swt.cu. */
#include <stdio.h>

#include "transform.h"

/* L + 1 bands: c (level 0), then w_1..w_L (level j, band ignored). */
static int starlet_nbands(const wt_uparams *p)
{
    return p->levels + 1;
}

static int starlet_band_index(const wt_uparams *p, int level, wt_band band)
{
    (void)band;
    return level >= 0 && level <= p->levels ? level : -1;
}

static int starlet_band_ref(const wt_uparams *p, int i, wt_band_ref *ref)
{
    *ref = i == 0 ? (wt_band_ref){p->levels, WT_BAND_A, 0} : (wt_band_ref){i, WT_BAND_H, 0};
    return i != 0;
}

static void starlet_ref_name(const wt_band_ref *r, char *buf, size_t size)
{
    if (r->band == WT_BAND_A)
        snprintf(buf, size, "c");
    else
        snprintf(buf, size, "w%d", r->level);
}

static void starlet_member_name(const wt_uparams *p, int i, char *out, size_t cap)
{
    wt_band_ref r;
    starlet_band_ref(p, i, &r);
    starlet_ref_name(&r, out, cap);
}

/* One row: c, then w_L ... w_1. */
static void starlet_mosaic_cell(const wt_uparams *p, int i, size_t *row, size_t *col)
{
    *row = 0;
    *col = i == 0 ? 0 : (size_t)(p->levels - i + 1);
}

static void starlet_mosaic_grid(const wt_uparams *p, size_t *rows, size_t *cols)
{
    *rows = 1;
    *cols = (size_t)p->levels + 1;
}

static int starlet_max_level(size_t height, size_t width)
{
    return wt_tfloor_log2(height < width ? height : width);
}

static void starlet_describe(const wt_params *p, wt_border border, char *buf, size_t size)
{
    (void)p;
    snprintf(buf, size, "starlet, border %s", wt_border_name(border));
}

/* A scale reads 1 plane and writes 2 more (smooth pass, difference); the
 * inverse reads L + 1 and writes 1. */
static double starlet_bench_bytes(const wt_uparams *p, double plane, int inverse)
{
    double L = p->levels;
    return 4.0 * plane * (inverse ? L + 2 : 3 * L);
}

static wt_status starlet_check(const wt_uparams *p)
{
    return (unsigned)p->border < 3 ? WT_OK : wt_error_set(WT_ERR_INVALID, "unknown border");
}

static const struct wt_transform_ops starlet_ops = {
    .check = starlet_check,
    .host_forward = wt_starlet_host_forward,
    .host_inverse = wt_starlet_host_inverse,
    .b3_kernel = 1,
    .fixed_border = -1,
};

const wt_transform_class wt_transform_starlet = {
    .name = "starlet",
    .help = "starlet\n(B3-spline a trous)",
    .kind = WT_TRANSFORM_STARLET,
    .params = WT_TPARAM_BORDER | WT_TPARAM_LAYERS | WT_TPARAM_DENOISE_POISSON |
              WT_TPARAM_DENOISE_KSIGMA,
    .layout = WT_LAYOUT_STACK,
    .wavelet_name = "b3spline",
    .kernel_taps = 5,
    .meta_mode = WT_MODE_REFLECT,
    .orientations = "AWWW",
    .nbands = starlet_nbands,
    .band_index = starlet_band_index,
    .band_ref = starlet_band_ref,
    .member_name = starlet_member_name,
    .mosaic_cell = starlet_mosaic_cell,
    .mosaic_grid = starlet_mosaic_grid,
    .max_level = starlet_max_level,
    .ref_name = starlet_ref_name,
    .describe = starlet_describe,
    .bench_bytes = starlet_bench_bytes,
    .denoise = wt_denoise_starlet,
    .ops = &starlet_ops,
};
