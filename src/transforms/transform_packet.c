/* Wavelet packets (= pywt.WaveletPacket2D) with a basis (full, best as
 * MATLAB's besttree, or one level): a tree of decimated nodes, each split by
 * one single-level 2-D DWT call of the engine (src/transforms/packet.c). */
#include <stdio.h>

#include "transform.h"

static void packet_describe(const wt_params *p, wt_border border, char *buf, size_t size)
{
    (void)border;
    snprintf(buf, size, "packet %s, %s", p->wavelet->name, wt_mode_name(p->mode));
}

const wt_transform_class wt_transform_packet = {
    .name = "packet",
    .help = "packet\n(= pywt.WaveletPacket2D, --basis)",
    .kind = WT_TRANSFORM_PACKET,
    .params = WT_TPARAM_WAVELET | WT_TPARAM_MODE | WT_TPARAM_METHOD | WT_TPARAM_QSTEP |
              WT_TPARAM_BASIS,
    .layout = WT_LAYOUT_PACKET,
    .filter_banks_only = 1,
    .no_border = "takes -m",
    .meta_mode = WT_MODE_SYMMETRIC,
    .orientations = "AHVD",
    .describe = packet_describe,
    .denoise = wt_denoise_packet,
};
