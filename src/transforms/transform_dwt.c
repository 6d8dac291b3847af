/* The decimated 2-D DWT (= pywt.wavedec2): a pyramid of shrinking bands
 * (wt_forward, wt_epyramid_*), the default transform. */
#include <stdio.h>

#include "transform.h"

static void dwt_describe(const wt_params *p, wt_border border, char *buf, size_t size)
{
    (void)border;
    snprintf(buf, size, "%s, %s", p->wavelet->name, wt_mode_name(p->mode));
}

static int dwt_max_level(size_t height, size_t width)
{
    return wt_tfloor_log2(height < width ? height : width);
}

const wt_transform_class wt_transform_dwt = {
    .name = "dwt",
    .help = "dwt",
    .kind = WT_TRANSFORM_DWT,
    .params = WT_TPARAM_WAVELET | WT_TPARAM_MODE | WT_TPARAM_METHOD | WT_TPARAM_QSTEP |
              WT_TPARAM_DENOISE_EXTRAS | WT_TPARAM_DENOISE_POISSON,
    .layout = WT_LAYOUT_PYRAMID,
    .no_border = "takes -m",
    .meta_mode = WT_MODE_SYMMETRIC,
    .orientations = "AHVD",
    .max_level = dwt_max_level,
    .ref_name = wt_tband_ref_name,
    .describe = dwt_describe,
    .denoise = wt_denoise_dwt,
};
