/* --volume: a stack (multi-page TIFF, 3-D .npy) or a volume's coefficient
 * file as one (z, y, x) array, transformed along --axes (default all three)
 * (wavetool_hooks.h: wt_volume_*): on the GPU where one is used, else on
 * the CPU engine's axis core. Each input is one
 * volume: no pages, one output, one report line. */
#ifndef WT_CLI_VOLUME_H
#define WT_CLI_VOLUME_H

#include "pipeline.h"

/* decompose --volume: the coefficients of @p in into @p out (.npz). */
wt_status volume_decompose(pipeline *p, batch_item *item, const char *in, const char *out);
/* reconstruct of a volume's coefficient file into a stack @p out. */
wt_status volume_reconstruct(pipeline *p, const char *in, const char *out);

/* roundtrip --volume: forward and inverse of @p in, *@p q against it (in
 * the type written), *@p layout its channels and type for the report; the
 * result into @p out unless NULL. */
wt_status volume_roundtrip(pipeline *p, batch_item *item, const char *in, const char *out,
                           wt_image *layout, wt_quality *q);

/* denoise --volume: @p in denoised with @p d (levels 0: scikit-image's
 * default; -l max fitted here) into the stack @p out. */
wt_status volume_denoise(pipeline *p, wt_denoise_options *d, const char *in, const char *out,
                         wt_denoise_info *info);
/* sigma --volume: estimate_sigma of each channel of the 3-D array @p in;
 * *@p layout its channels and type for the report. */
wt_status volume_sigma(pipeline *p, const char *in, double *sigma, wt_image *layout);

/* compare --volume: B against A, each read whole as one volume (same
 * shape, channels and depth), *@p layout A's channels and type. */
wt_status volume_compare(const cli_options *o, wt_quality *q, wt_image *layout);

/* stats --volume: the figures of every band and channel of @p in's
 * transform (@p qstep 0: the depth's default; @p eps NaN: qstep). */
struct file_figures;
wt_status volume_figures(pipeline *p, batch_item *item, const char *in, double qstep,
                         double eps, struct file_figures *f);

#endif
