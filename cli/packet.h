/* decompose, reconstruct, roundtrip and stats with --transform packet
 * (cli/packet.c): packet trees on the engine, their bases (--basis, --cost),
 * .npz files of leaves, mosaics. */
#ifndef WT_CLI_PACKET_H
#define WT_CLI_PACKET_H

#include "pages.h"
#include "pipeline.h"

/* The tree of @p img and the basis --basis and --cost choose (malloc'ed). */
wt_status packet_tree_of(pipeline *p, const wt_image *img, const char *in, wt_packet_tree *t,
                         unsigned char **basis);
/* decompose: the leaves' .npz, or the basis's mosaic. */
wt_status packet_decompose(pipeline *p, page_binding *page, const wt_image *img, const char *in,
                           const char *out);
/* reconstruct: the image back from a packet file's leaves. */
wt_status packet_reconstruct(pipeline *p, page_binding *page, const char *in, const char *out);
/* roundtrip: forward, basis, @p th or @p qstep (> 0) on the detail leaves
 * (*@p kept, *@p bpp as for the DWT), inverse into @p back (allocated like @p img). */
wt_status packet_roundtrip(pipeline *p, const cli_threshold *th, double qstep,
                           const wt_image *img, const char *in, wt_image *back, double *kept,
                           double *bpp);

#endif
