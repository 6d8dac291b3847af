/* decompose, reconstruct and roundtrip with --transform swt|starlet
 * (cli/undecimated.c): band stacks of full-size planes, their .npz files,
 * mosaics and layer images. */
#ifndef WT_CLI_UNDECIMATED_H
#define WT_CLI_UNDECIMATED_H

#include "pages.h"
#include "pipeline.h"

/* decompose: .npz stack, mosaic, or --layers images and their sidecar. */
wt_status undecimated_decompose(pipeline *p, page_binding *page, const wt_image *img,
                                const char *in, const char *out);
/* reconstruct from a stack read from a .npz (wt_npz_load_any). */
wt_status undecimated_reconstruct(pipeline *p, page_binding *page, const wt_uparams *up,
                                  const float *stack, const wt_npz_meta *meta, const char *in,
                                  const char *out);
/* A --layers sidecar (NAME_layers.txt), and the image back from its layers. */
int undecimated_is_sidecar(const char *path);
wt_status undecimated_reconstruct_layers(pipeline *p, page_binding *page, const char *sidecar,
                                         const char *out);
/* roundtrip: forward, @p t (--keep or --threshold) on the detail bands (ranked
 * by |c|; *@p kept: the fraction of details left nonzero), and inverse into
 * @p back (allocated like @p img). */
wt_status undecimated_roundtrip(pipeline *p, const cli_threshold *t, const wt_image *img,
                                const char *in, wt_image *back, double *kept);
/* stats: the transform for @p img (*@p up) and its band stack (malloc'ed,
 * wt_ustack_bands x C x h x w). */
wt_status undecimated_forward(pipeline *p, const wt_image *img, const char *in, wt_uparams *up,
                              float **stack);

#endif
