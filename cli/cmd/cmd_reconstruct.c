/* wavetool reconstruct: the image back from a coefficient file. */
#include <stdlib.h>

#include "batch.h"
#include "commands.h"
#include "options.h"
#include "pages.h"
#include "pipeline.h"
#include "result.h"
#include "packet.h"
#include "undecimated.h"
#include "volume.h"

/* ---- one file ---------------------------------------------------------------- */

typedef struct inverse_job {
    const wt_params *params;
    const wt_pyramid *pyr;
    wt_image *out;
} inverse_job;

static wt_status inverse_on(wt_engine *e, void *arg)
{
    inverse_job *j = arg;
    return wt_inverse_image(e, j->params, j->pyr, j->out);
}

static wt_status params_from_meta(const wt_npz_meta *meta, const wt_pyramid *pyr,
                                  const char *file, wt_params *params)
{
    *params = (wt_params){wt_wavelet_find(meta->wavelet), meta->mode, meta->method,
                          meta->levels};
    if (!params->wavelet)
        return wt_error_set(WT_ERR_FORMAT, "%s: unknown wavelet '%s' in meta", file,
                            meta->wavelet);
    if (pyr->height != meta->height || pyr->width != meta->width ||
        pyr->channels != meta->channels)
        return wt_error_set(WT_ERR_FORMAT, "%s: coefficients do not match meta", file);
    return pipeline_name_error(wt_params_resolve(params), file);
}

static wt_status reconstruct_file(pipeline *p, page_binding *page, const char *in,
                                  const char *out)
{
    wt_pyramid pyr = {0};
    wt_npz_meta meta = {0};
    wt_params params;
    wt_image img = {0};
    float *stack = NULL; /* an undecimated transform's bands (swt, starlet) */
    wt_uparams up;
    if (p->opt->volume || wt_npz_is_volume(in)) /* a volume's file: cli/volume.c */
        return volume_reconstruct(p, in, out);
    if (undecimated_is_sidecar(in))
        return undecimated_reconstruct_layers(p, page, in, out);
    if (wt_npz_is_packets(in))
        return packet_reconstruct(p, page, in, out); /* cli/packet.c */
    wt_status st = pages_load_coefficients(p, page, in, &pyr, &stack, &up, &meta);
    if (st == WT_OK && stack) {
        st = undecimated_reconstruct(p, page, &up, stack, &meta, in, out);
        free(stack);
        wt_image_meta_release(meta.image);
        return st;
    }
    if (st == WT_OK)
        st = params_from_meta(&meta, &pyr, in, &params);
    if (st == WT_OK) /* in the worker's output room (a GPU pool): one DMA into it */
        st = result_alloc_reconstruction(p, in, out, &meta, pipeline_output_room(p), &img);
    if (st == WT_OK) {
        wt_image_share_meta(&img, &(wt_image){.meta = meta.image}); /* stored by decompose */
        inverse_job job = {&params, &pyr, &img};
        st = pipeline_engine_run(p, inverse_on, &job, in);
    }
    if (st == WT_OK)
        st = pages_save(p, page, out, &img);
    wt_image_free(&img);
    wt_image_meta_release(meta.image);
    wt_pyramid_free(&pyr);
    return st;
}

/* ---- the command --------------------------------------------------------------- */

static int run_reconstruct(const cli_options *o)
{
    int rc = CLI_CONTINUE;
    if (o->outdir || o->nargs == 2)
        rc = cli_check_output("reconstruct", o, o->outdir ? NULL : o->args[1], cmd_reconstruct.writes);
    return rc == CLI_CONTINUE ? pages_run_conversions(o, "reconstruct", PAGES_OF_COEFFS,
                                                      reconstruct_file)
                              : rc;
}

const cli_command cmd_reconstruct = {
    .name = "reconstruct",
    .synopsis = "[options] COEFFS.npz OUT\n       wavetool reconstruct [options] -O DIR COEFFS...",
    .tagline = "COEFFS OUT: the image back from coefficients",
    .summary =
        "Reconstruct an image from a coefficient file written by 'wavetool decompose'.\n"
        "The image gets the original's size, channels and bit depth (from the file's\n"
        "meta); samples are rounded and clamped. OUT is {IMAGES} ('-': standard\n"
        "output, type from --ext). With -O, each COEFFS (a file, or a directory walked\n"
        "for {COEFFS}) gives DIR/STEM[SUFFIX].EXT. Files of --transform swt, starlet or\n"
        "packet are read as such (packets: from any leaves that tile the tree); COEFFS may also be the NAME_layers.txt of decompose --layers.\n"
        "A stack's file (members (N, C, h, w)) gives a multi-page TIFF or (N, H, W) .npy,\n"
        "so does a volume's (decompose --volume); --volume reads numpy's files as one.",
    .groups = (const cli_group *const[]){&cli_group_volume, &cli_group_device, &cli_group_gpu_codec, &cli_group_jobs, &cli_group_input,
                                         &cli_group_save, &cli_group_metadata, &cli_group_batch, &cli_group_result,
                                         &cli_group_verbosity, NULL},
    .min_args = 1,
    .max_args = -1,
    .writes = WT_HOLDS_IMAGE,
    .run = run_reconstruct,
};
