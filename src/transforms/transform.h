/* The engine's side of a transform kind (the registry's class is in
 * wavetool_hooks.h): the host code of a band-stack kind and what the CUDA
 * engine reads of it. One module per kind, src/transform_NAME.c, fills a
 * wt_transform_ops next to its wt_transform_class. */
#ifndef WT_TRANSFORM_H
#define WT_TRANSFORM_H

#include "wavetool.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "undecimated_geometry.h" /* WT_UTAPS */
#include "wavetool_hooks.h" /* wt_transform_class, C linkage for cuda/ too */

/* Work planes of one channel: 4 of h x w (src/undecimated.c allocates them). */
typedef struct wt_uwork {
    float *lo, *hi, *c0, *c1;
} wt_uwork;

/* Channel @p c of an image's planes (@p x, h x w) into the stack @p bands, or back. */
typedef wt_status (*wt_ustack_forward_fn)(int threads, const wt_uparams *p, const float *x,
                                          size_t h, size_t w, int c, int channels, float *bands,
                                          const wt_uwork *k);
typedef wt_status (*wt_ustack_inverse_fn)(int threads, const wt_uparams *p, const float *bands,
                                          size_t h, size_t w, int c, int channels, float *x,
                                          const wt_uwork *k);

struct wt_transform_ops {
    /* The kind's own checks of wt_uparams_check (levels and size checked before). */
    wt_status (*check)(const wt_uparams *p);
    wt_ustack_forward_fn host_forward;
    wt_ustack_inverse_fn host_inverse;
    int b3_kernel;    /* filters: the B3 spline (else the wavelet's filter bank) */
    int fixed_border; /* the border it always uses (wt_border), or -1: wt_uparams.border */
};

/* The class of a band stack's parameters. */
static inline const wt_transform_class *wt_uclass(const wt_uparams *p)
{
    return wt_transform_class_of(p->transform);
}

/* The border an undecimated transform extends with; its filter taps. */
static inline wt_border wt_uborder(const wt_uparams *p)
{
    int b = wt_uclass(p)->ops->fixed_border;
    return b >= 0 ? (wt_border)b : p->border;
}
static inline int wt_ub3_kernel(const wt_uparams *p)
{
    return wt_uclass(p)->ops->b3_kernel;
}
static inline int wt_utaps(const wt_uparams *p)
{
    return wt_ub3_kernel(p) ? wt_uclass(p)->kernel_taps : p->wavelet->filter_len;
}

/* Host code of the kinds (src/undecimated.c) that the modules point to. */
wt_status wt_swt_host_forward(int threads, const wt_uparams *p, const float *x, size_t h,
                              size_t w, int c, int channels, float *bands, const wt_uwork *k);
wt_status wt_swt_host_inverse(int threads, const wt_uparams *p, const float *bands, size_t h,
                              size_t w, int c, int channels, float *x, const wt_uwork *k);
wt_status wt_starlet_host_forward(int threads, const wt_uparams *p, const float *x, size_t h,
                                  size_t w, int c, int channels, float *bands, const wt_uwork *k);
wt_status wt_starlet_host_inverse(int threads, const wt_uparams *p, const float *bands,
                                  size_t h, size_t w, int c, int channels, float *x,
                                  const wt_uwork *k);
struct wt_filter_spec; /* axis_filter.h */
/* The SWT's filters of level @p j (1-based, start level included):
 * analysis, or (@p inverse) synthesis (src/undecimated.c; volumes too). */
void wt_swt_filters(const wt_uparams *p, int j, int inverse, struct wt_filter_spec *lo,
                    struct wt_filter_spec *hi);
/* Denoise hooks (src/denoise.c). */
wt_status wt_denoise_dwt(wt_engine *e, const wt_denoise_options *o, const wt_params *p,
                         const wt_image *in, wt_image *out, wt_denoise_info *info);
wt_status wt_denoise_swt(wt_engine *e, const wt_denoise_options *o, const wt_params *p,
                         const wt_image *in, wt_image *out, wt_denoise_info *info);
wt_status wt_denoise_packet(wt_engine *e, const wt_denoise_options *o, const wt_params *p,
                            const wt_image *in, wt_image *out, wt_denoise_info *info);
wt_status wt_denoise_starlet(wt_engine *e, const wt_denoise_options *o, const wt_params *p,
                             const wt_image *in, wt_image *out, wt_denoise_info *info);
/* The class wt_denoise_options.swt (or .packet, .starlet) chooses. */
const wt_transform_class *wt_transform_of_denoise(const wt_denoise_options *o);

/* Shared by the modules' layouts: "c%c%d" names with letters AHVD. */
void wt_tband_ref_name(const wt_band_ref *r, char *buf, size_t size);
/* floor(log2(n)), n >= 1. */
int wt_tfloor_log2(size_t n);

/* ---- volumes' DWT on an engine (transform_volume.c drives the levels) ---- */

struct wt_line;

/* One DWT level along @p axis of dense (C, z, y, x) arrays in an engine's
 * memory: sig of @p shape, lo and hi of its shape with line->nlo and
 * line->nhi along the axis; forward sig -> (lo, hi), inverse back. */
typedef struct wt_vpass {
    const struct wt_line *line;
    int axis, inverse, channels;
    wt_dtype dtype;
    size_t shape[3];
    void *sig, *lo, *hi;
} wt_vpass;

/* One whole DWT level along all three axes (an engine may fuse its passes):
 * @p lines[k] the level's line along array axis k (0 z, 1 y, 2 x), sig of
 * @p shape, bands[i] the level's 8 outputs in key order (bit 2 - j of i:
 * 'd' along axes[j]; bands[0] the approximation); forward sig -> bands,
 * inverse back. */
typedef struct wt_vlevel {
    const struct wt_line *lines;
    int axes[3], inverse, channels;
    size_t shape[3];
    void *sig, *bands[8];
} wt_vlevel;

typedef struct wt_vpass_runner {
    wt_status (*run)(void *ctx, const wt_vpass *p);
    void *ctx;
    /* optional: whether the runner does a whole level itself (the same
     * answer for the same level), and that level */
    int (*level_takes)(void *ctx, const wt_vlevel *l);
    wt_status (*level)(void *ctx, const wt_vlevel *l);
} wt_vpass_runner;

/* Elements of the work areas wt_volume_dwt_levels needs for @p c with
 * runner @p r (NULL: every level by passes; the levels @p r takes whole
 * need no arrays between passes). */
size_t wt_volume_dwt_work(const wt_volume_spec *s, const wt_vcoeffs *c,
                          const wt_vpass_runner *r);
/* The levels of @p c (at least 1) by @p r's passes, all arrays in the
 * runner's memory: @p samples ((C, z, y, x) of c's dtype) into c's bands,
 * or (@p inverse) back; @p work of wt_volume_dwt_work elements. */
wt_status wt_volume_dwt_levels(const wt_volume_spec *s, const wt_vcoeffs *c, void *samples,
                               void *work, int inverse, const wt_vpass_runner *r);

/* ---- volumes' SWT and starlet on an engine (transform_volume.c drives the levels) */

/* A filter (wt_filter_spec's fields, axis_filter.h): taps scaled by gain,
 * step apart, shifted by shift. */
typedef struct wt_vtaps {
    const double *taps;
    int ntaps;
    double gain;
    size_t step;
    long long shift;
} wt_vtaps;

/* One undecimated pass along @p axis of dense (C, z, y, x) float arrays of
 * @p shape in an engine's memory: dst[t] = filter f[t] of src[t],
 *   dst[o] = sum_k f.taps[k] f.gain src[border(o + f.shift - k f.step)],
 * the terms of one destination (both, when dst[0] == dst[1]) summed. */
typedef struct wt_vfilter {
    int axis, channels, nterms;
    size_t shape[3];
    wt_border border;
    const float *src[2];
    float *dst[2];
    wt_vtaps f[2];
} wt_vfilter;

typedef struct wt_vfilter_runner {
    wt_status (*filter)(void *ctx, const wt_vfilter *p);
    /* dst[i] = a[i] + sign * b[i] for i < n (float arithmetic) */
    wt_status (*combine)(void *ctx, float *dst, const float *a, const float *b, float sign,
                         size_t n);
    void *ctx;
} wt_vfilter_runner;

/* Elements of the work area of wt_volume_undecimated_levels for @p c. */
size_t wt_volume_undecimated_work(const wt_volume_spec *s, const wt_vcoeffs *c);
/* The levels of SWT or starlet @p c by @p r, all arrays in the runner's
 * memory: @p samples into c's bands, or (@p inverse) back. */
wt_status wt_volume_undecimated_levels(const wt_volume_spec *s, const wt_vcoeffs *c,
                                       float *samples, float *work, int inverse,
                                       const wt_vfilter_runner *r);

/* The registry's modules. */
extern const wt_transform_class wt_transform_dwt;
extern const wt_transform_class wt_transform_swt;
extern const wt_transform_class wt_transform_starlet;
extern const wt_transform_class wt_transform_packet;

#ifdef __cplusplus
}
#endif
#endif
