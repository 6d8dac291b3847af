/* wavetool decompose: a subband mosaic or a coefficient file of each input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "commands.h"
#include "options.h"
#include "pages.h"
#include "pipeline.h"
#include "packet.h"
#include "undecimated.h"
#include "volume.h"

/* ---- one file ---------------------------------------------------------------- */

typedef struct forward_job {
    const wt_params *params;
    const wt_image *img;
    wt_pyramid *pyr;
} forward_job;

static wt_status forward_on(wt_engine *e, void *arg)
{
    forward_job *j = arg;
    return wt_forward_image(e, j->params, j->img, j->pyr);
}

/* The coefficients of an image the caller gives up: on a GPU engine the
 * pyramid is made on the device, the image's pixels are freed, and only then
 * is the host pyramid allocated and downloaded, so the host never holds the
 * image and its pyramid together (30000x30000 16-bit: 3.1x -> about 2.1x the
 * decoded image). The CPU engine transforms in the image's own storage
 * (wt_forward_image_consume: about 2.5x the decoded 16-bit image).
 * After the pixels are gone a GPU failure cannot be retried on the CPU: the
 * rerun under --device auto returns the GPU's status (its message stands). */
typedef struct coeffs_job {
    const wt_params *params;
    wt_image *img; /* its pixels freed on a GPU engine */
    wt_pyramid *pyr;
    wt_status device_status;
} coeffs_job;

static wt_status release_and_download(wt_epyramid *ep, void *arg)
{
    coeffs_job *j = arg;
    wt_image_drop_pixels(j->img);
    wt_status st = wt_pyramid_alloc(j->pyr, j->params, j->img->height, j->img->width,
                                    j->img->channels);
    return st == WT_OK ? wt_epyramid_download(ep, j->pyr) : st;
}

static wt_status download_releasing(wt_engine *e, coeffs_job *j)
{
    return j->device_status = pipeline_on_epyramid(e, j->params, j->img, release_and_download, j);
}

static wt_status coeffs_on(wt_engine *e, void *arg)
{
    coeffs_job *j = arg;
    if (!j->img->pixels) /* a rerun after the GPU failed past the release */
        return j->device_status;
    return wt_engine_is_cpu(e) ? wt_forward_image_consume(e, j->params, j->img, j->pyr)
                               : download_releasing(e, j);
}

typedef struct mosaic_job {
    const wt_params *params;
    const wt_image *img;
    wt_scale scale;
    int depth;
    wt_image *out; /* allocated there */
} mosaic_job;

static wt_status mosaic_on(wt_engine *e, void *arg)
{
    mosaic_job *j = arg;
    return wt_mosaic_image(e, j->params, j->img, j->scale, j->depth, j->out);
}

static wt_status forward_image(pipeline *p, const wt_image *img, const wt_params *params,
                               const char *file, wt_pyramid *pyr)
{
    wt_status st = pipeline_name_error(wt_pyramid_alloc(pyr, params, img->height, img->width,
                                                        img->channels),
                                       file);
    forward_job job = {params, img, pyr};
    return st == WT_OK ? pipeline_engine_run(p, forward_on, &job, file) : st;
}

static void fill_meta(const wt_params *params, const wt_image *img, wt_npz_meta *meta)
{
    pipeline_meta_of_image(img, meta);
    snprintf(meta->wavelet, sizeof meta->wavelet, "%s", params->wavelet->name);
    meta->mode = params->mode;
    meta->method = params->method;
    meta->levels = params->levels;
}

/* --depth, or 8 for a diverging map (8-bit RGB whatever the input), or the
 * input's depth as the output format holds it (JPEG: 8) */
static int mosaic_depth(const cli_options *o, const wt_image *img, wt_file_format format)
{
    if (o->depth)
        return o->depth;
    int held = img->bit_depth == WT_DEPTH_F32 ? 16 : img->bit_depth; /* float32: 16-bit displays */
    return o->style.colormap == WT_COLORMAP_DIVERGING ? 8 : wt_format_depth(format, held);
}

/* The channels a mosaic shows (--alpha): @p img itself, or into @p view its
 * colour channels (opaque) or its alpha alone (only). */
static wt_status mosaic_view(const cli_options *o, const wt_image *img, const char *file,
                             wt_image *view, const wt_image **shown)
{
    int has_alpha = img->channels == 2 || img->channels == 4;
    *shown = img;
    if (!has_alpha || o->alpha == ALPHA_KEEP)
        return WT_OK;
    int keep = o->alpha == ALPHA_ONLY ? 1 : img->channels - 1;
    int first = o->alpha == ALPHA_ONLY ? img->channels - 1 : 0;
    wt_status st = pipeline_name_error(
        wt_image_alloc(view, img->width, img->height, keep, img->bit_depth), file);
    if (st != WT_OK)
        return st;
    view->stored = img->stored;
    size_t n = (size_t)img->width * img->height, bytes = (size_t)img->bit_depth / 8;
    const unsigned char *from = img->pixels;
    unsigned char *to = view->pixels;
    for (size_t i = 0; i < n; i++)
        memcpy(to + i * (size_t)keep * bytes,
               from + (i * (size_t)img->channels + (size_t)first) * bytes, (size_t)keep * bytes);
    *shown = view;
    return WT_OK;
}

/* A mosaic in a non-plain style: the pyramid from the engine, drawn on the host. */
static wt_status styled_mosaic(pipeline *p, const wt_image *img, const wt_params *params,
                               const char *in, int depth, wt_image *mosaic)
{
    wt_pyramid pyr = {0};
    wt_status st = forward_image(p, img, params, in, &pyr);
    if (st == WT_OK)
        st = pipeline_name_error(wt_mosaic_render_style(&pyr, &p->opt->style, depth, mosaic),
                                 in);
    wt_pyramid_free(&pyr);
    return st;
}

/* @p mosaic sized for @p img's transform, its pixels in the worker's output
 * room, when the pool has rooms: the engine draws into them (a GPU engine by
 * one copy from the device). Else left empty for the engine to allocate. */
static void mosaic_in_room(pipeline *p, const wt_image *img, const wt_params *params, int depth,
                           wt_image *mosaic)
{
    wt_pixel_room *room = pipeline_output_room(p);
    wt_pyramid plan;
    size_t mh, mw;
    if (!room || wt_pyramid_plan(&plan, params, img->height, img->width, img->channels) != WT_OK)
        return;
    wt_mosaic_size(&plan, &mh, &mw);
    if (mh > UINT32_MAX || mw > UINT32_MAX ||
        wt_image_alloc_in(mosaic, room, (uint32_t)mw, (uint32_t)mh, img->channels, depth) !=
            WT_OK ||
        !mosaic->room)
        wt_image_free(mosaic); /* (the engine's own pixels, as without a room) */
}

/* The mosaic of @p img into @p out: drawn by the engine in the plain style,
 * else on the host (wt_mosaic_render_style). */
static wt_status write_mosaic(pipeline *p, page_binding *page, const wt_image *img,
                              const wt_params *params, const char *in, const char *out)
{
    const cli_options *o = p->opt;
    wt_image mosaic = {0}, view = {0};
    const wt_image *shown = img;
    int depth = mosaic_depth(o, img, cli_output_format(o, out));
    if (img->channels > 4) /* extra channels: their coefficients go to .npz */
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: mosaics show 1 to 4 channels, not %d; "
                                                "decompose to .npz keeps them all",
                            in, img->channels);
    wt_status st = mosaic_view(o, img, in, &view, &shown);
    mosaic_job job = {params, shown, o->scale, depth, &mosaic};
    if (st == WT_OK && wt_mosaic_style_is_plain(&o->style)) {
        mosaic_in_room(p, shown, params, depth, &mosaic);
        st = pipeline_engine_run(p, mosaic_on, &job, in);
    }
    else if (st == WT_OK)
        st = styled_mosaic(p, shown, params, in, depth, &mosaic);
    if (st == WT_OK)
        st = pages_save(p, page, out, &mosaic);
    wt_image_free(&mosaic);
    wt_image_free(&view);
    return st;
}

/* Writes the coefficients of @p img, whose pixels it may free (coeffs_on). */
static wt_status write_coefficients(pipeline *p, page_binding *page, wt_image *img,
                                    const wt_params *params, const char *in, const char *out)
{
    wt_pyramid pyr = {0};
    wt_npz_meta meta;
    coeffs_job job = {params, img, &pyr, WT_OK};
    fill_meta(params, img, &meta); /* before the pixels may go */
    meta.compress = p->opt->compress;
    meta.image = pipeline_kept_meta(p, img);
    wt_status st = pipeline_engine_run(p, coeffs_on, &job, in);
    if (st == WT_OK)
        st = pages_save_pyramid(p, page, out, &pyr, &meta);
    wt_pyramid_free(&pyr);
    return st;
}

/* 1 when @p out (with --ext for '-') is a coefficient file */
static int writes_coefficients(const cli_options *o, const char *out)
{
    const wt_format_info *info = wt_format_describe(cli_output_format(o, out));
    return info && (info->holds & WT_HOLDS_COEFFS);
}

/* Decode @p in and find its transform; then the mosaic or coefficients, or
 * (@p transcode_only) the decoded image itself, into @p out. */
static wt_status decompose_or_transcode(pipeline *p, page_binding *page, const char *in,
                                        const char *out, int transcode_only)
{
    wt_image img = {0};
    wt_params params;
    wt_status st = pages_load_borrowing(p, page, in, &img); /* gone by the end */
    wt_tlayout layout = wt_transform_class_of(p->opt->transform)->layout;
    int undecimated = layout == WT_LAYOUT_STACK && !transcode_only;
    int packets = layout == WT_LAYOUT_PACKET && !transcode_only;
    if (st == WT_OK && !undecimated && !packets)
        st = pipeline_params_for(p->opt, pages_item(page), &img, in, &params);
    if (st == WT_OK && undecimated)
        st = undecimated_decompose(p, page, &img, in, out); /* cli/undecimated.c */
    else if (st == WT_OK && packets)
        st = packet_decompose(p, page, &img, in, out); /* cli/packet.c */
    else if (st == WT_OK && transcode_only)
        st = pages_save(p, page, out, &img);
    else if (st == WT_OK && writes_coefficients(p->opt, out))
        st = write_coefficients(p, page, &img, &params, in, out);
    else if (st == WT_OK)
        st = write_mosaic(p, page, &img, &params, in, out);
    wt_image_free(&img);
    return st;
}

wt_status decompose_file(pipeline *p, page_binding *page, const char *in, const char *out)
{
    if (p->opt->volume) /* cli/volume.c */
        return volume_decompose(p, pages_item(page), in, out);
    return decompose_or_transcode(p, page, in, out, 0);
}

wt_status decompose_transcode_file(pipeline *p, page_binding *page, const char *in,
                                   const char *out)
{
    return decompose_or_transcode(p, page, in, out, 1);
}

/* ---- the command --------------------------------------------------------------- */

static int run_decompose(const cli_options *o)
{
    int rc = cli_check_output("decompose", o, !o->outdir && o->nargs == 2 ? o->args[1] : NULL,
                              cmd_decompose.writes);
    return rc == CLI_CONTINUE ? pages_run_conversions(o, "decompose", PAGES_OF_IMAGES,
                                                      decompose_file)
                              : rc;
}

const cli_command cmd_decompose = {
    .name = "decompose",
    .synopsis = "[options] IN OUT\n       wavetool decompose [options] -O DIR INPUT...",
    .tagline = "IN OUT: subband mosaic ({IMAGES}) or coefficients ({COEFFS})",
    .summary =
        "Decompose an image into a multi-level 2D discrete wavelet transform.\n"
        "OUT ending in {IMAGES} gets a mosaic of all subbands, laid out as\n"
        "pywt.coeffs_to_array does (cA top-left; per level cV top-right, cH bottom-left,\n"
        "cD bottom-right), each band scaled for display; {COEFFS} gets the coefficients\n"
        "(float32, int32 for legall53), readable with numpy.load. '-' is standard\n"
        "input or output (its type from --ext, default png). With -O, each INPUT (a file,\n"
        "or a directory walked for {IMAGES}) gives DIR/STEM[SUFFIX].EXT. A stack (a\n"
        "multi-page TIFF, a 3-D .npy with --stack) is decomposed page by page into one\n"
        "multi-page TIFF, (N, H, W) .npy or .npz with a leading page axis; with\n"
        "--volume it is one (z, y, x) volume, its coefficients as pywt.wavedecn's and\n"
        "its mosaic a grid of every band at one page or projected (--slice).",
    .groups = (const cli_group *const[]){&cli_group_transform, &cli_group_swt, &cli_group_starlet,
                                         &cli_group_packet, &cli_group_volume, &cli_group_volume_view,
                                         &cli_group_device, &cli_group_gpu_codec, &cli_group_jobs, &cli_group_input,
                                         &cli_group_save, &cli_group_metadata, &cli_group_mosaic, &cli_group_batch,
                                         &cli_group_verbosity, NULL},
    .min_args = 1,
    .max_args = -1,
    .writes = WT_HOLDS_IMAGE | WT_HOLDS_COEFFS,
    .run = run_decompose,
};
