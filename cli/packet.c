/* decompose, reconstruct, roundtrip and stats with --transform packet: the
 * packet tree of an image on the engine, its basis (--basis, --cost), the
 * leaves' .npz file and mosaic, the image back from any set of leaves. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packet.h"
#include "result.h"

/* ---- the tree of one image ------------------------------------------------------ */

/* -l max, the levels asked for, or the default made smaller for small images
 * (at most pywt.dwt_max_level and WT_PACKET_MAX_LEVELS). */
static wt_status params_for(const cli_options *o, const wt_image *img, const char *file,
                            wt_params *p)
{
    *p = o->params;
    int max = wt_max_level(img->height, img->width, p->wavelet);
    max = max < WT_PACKET_MAX_LEVELS ? max : WT_PACKET_MAX_LEVELS;
    if (o->levels_max || (!o->levels_given && p->levels > max))
        p->levels = max;
    if (p->levels < 1)
        return wt_error_set(WT_ERR_INVALID, "%s: --transform packet needs at least 1 level",
                            pipeline_shown(file));
    return WT_OK;
}

typedef struct packet_job {
    wt_packet_tree *t;
    const cli_options *o; /* the forward's --basis and --cost; NULL: the inverse */
    unsigned char *basis; /* the forward's result, the inverse's leaves */
    float *planes;
} packet_job;

/* The forward keeps only the basis's leaves (a resident engine copies back
 * no other node): every use below reads leaves alone. */
static wt_status packet_run(wt_engine *e, void *arg)
{
    packet_job *j = arg;
    return j->o ? wt_packet_decompose(e, j->t, j->planes, &j->o->basis, &j->o->cost, j->basis,
                                      NULL, 0)
                : wt_packet_inverse(e, j->t, j->basis, j->planes);
}

/* The tree of @p img and the basis --basis and --cost choose on it
 * (malloc'ed into *@p basis). */
static wt_status forward(pipeline *p, const wt_image *img, const char *file, wt_packet_tree *t,
                         unsigned char **basis)
{
    wt_params params;
    size_t n = (size_t)img->height * img->width * (size_t)img->channels;
    float *planes = NULL;
    wt_status st = params_for(p->opt, img, file, &params);
    if (st == WT_OK)
        st = pipeline_name_error(
            wt_packet_alloc(t, &params, img->height, img->width, img->channels), file);
    if (st == WT_OK && !(planes = malloc(n * sizeof *planes)))
        st = wt_error_set(WT_ERR_NOMEM, "%s: out of memory", pipeline_shown(file));
    if (st == WT_OK && !(*basis = malloc(wt_packet_node_count(t->params.levels))))
        st = wt_error_set(WT_ERR_NOMEM, "%s: out of memory", pipeline_shown(file));
    if (st == WT_OK)
        st = wt_image_to_planes(img, planes);
    packet_job job = {t, p->opt, *basis, planes};
    if (st == WT_OK)
        st = pipeline_engine_run(p, packet_run, &job, file);
    free(planes);
    return st;
}

/* The image back from the leaves of @p basis into @p img (allocated). */
static wt_status inverse(pipeline *p, wt_packet_tree *t, const unsigned char *basis,
                         const char *file, wt_image *img)
{
    float *planes = malloc(wt_packet_node_size(t, 0) * sizeof *planes);
    if (!planes)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", pipeline_shown(file));
    packet_job job = {t, NULL, (unsigned char *)basis, planes};
    wt_status st = pipeline_engine_run(p, packet_run, &job, file);
    if (st == WT_OK)
        wt_image_from_planes(img, planes);
    free(planes);
    return st;
}

wt_status packet_tree_of(pipeline *p, const wt_image *img, const char *in, wt_packet_tree *t,
                         unsigned char **basis)
{
    *basis = NULL;
    wt_status st = forward(p, img, in, t, basis);
    if (st != WT_OK) {
        wt_packet_free(t);
        free(*basis);
        *basis = NULL;
    }
    return st;
}

/* ---- decompose ---------------------------------------------------------------------- */

static wt_status write_npz(pipeline *p, page_binding *page, const wt_image *img,
                           const wt_packet_tree *t, const unsigned char *basis, const char *in,
                           const char *out)
{
    if (page && page->pages > 1)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: --transform packet writes the .npz of one image, not of a "
                            "stack's pages",
                            pipeline_shown(in));
    wt_npz_meta meta;
    pipeline_meta_of_image(img, &meta);
    snprintf(meta.wavelet, sizeof meta.wavelet, "%s", t->params.wavelet->name);
    meta.mode = t->params.mode;
    meta.method = t->params.method;
    meta.levels = t->params.levels;
    meta.transform = p->opt->transform;
    meta.compress = p->opt->compress;
    pipeline_span t0 = pipeline_span_start(p, PHASE_ENCODE);
    wt_status st = wt_npz_save_packets(out, t, basis, &meta);
    pipeline_span_end(p, &p->stats.encode, t0);
    return st;
}

static wt_status write_mosaic(pipeline *p, page_binding *page, const wt_image *img,
                              const wt_packet_tree *t, const unsigned char *basis,
                              const char *in, const char *out)
{
    const cli_options *o = p->opt;
    int depth = o->depth ? o->depth
                         : (cli_output_format(o, out) == WT_FORMAT_JPEG ? 8
                            : img->bit_depth == WT_DEPTH_F32        ? 16 /* a 16-bit display */
                                                                    : img->bit_depth);
    wt_image mosaic = {0};
    wt_status st = pipeline_name_error(wt_packet_mosaic(t, basis, &o->style, depth, &mosaic), in);
    if (st == WT_OK)
        st = pages_save(p, page, out, &mosaic);
    wt_image_free(&mosaic);
    return st;
}

wt_status packet_decompose(pipeline *p, page_binding *page, const wt_image *img, const char *in,
                           const char *out)
{
    wt_packet_tree t = {0};
    unsigned char *basis = NULL;
    wt_status st = packet_tree_of(p, img, in, &t, &basis);
    if (st == WT_OK && cli_output_format(p->opt, out) == WT_FORMAT_NPZ)
        st = write_npz(p, page, img, &t, basis, in, out);
    else if (st == WT_OK)
        st = write_mosaic(p, page, img, &t, basis, in, out);
    wt_packet_free(&t);
    free(basis);
    return st;
}

/* ---- reconstruct ---------------------------------------------------------------------- */

wt_status packet_reconstruct(pipeline *p, page_binding *page, const char *in, const char *out)
{
    wt_packet_tree t = {0};
    unsigned char *basis = NULL;
    wt_npz_meta meta;
    wt_image img = {0};
    pipeline_span t0 = pipeline_span_start(p, PHASE_DECODE);
    wt_status st = wt_npz_load_packets(in, &p->load, &t, &basis, &meta);
    pipeline_span_end(p, &p->stats.decode, t0);
    if (st == WT_OK)
        st = result_alloc_reconstruction(p, in, out, &meta, NULL, &img);
    if (st == WT_OK)
        st = inverse(p, &t, basis, in, &img);
    if (st == WT_OK)
        st = pages_save(p, page, out, &img);
    wt_image_free(&img);
    wt_packet_free(&t);
    free(basis);
    return st;
}

/* ---- roundtrip ---------------------------------------------------------------------- */

/* --keep, --threshold or --qstep on the detail leaves. */
static wt_status change_details(wt_packet_tree *t, const unsigned char *basis,
                                const cli_threshold *th, double qstep, double *kept,
                                double *bpp)
{
    *kept = 1.0;
    if (qstep > 0.0)
        return wt_packet_quantize(t, basis, qstep, bpp);
    switch (th->kind) {
    case THRESHOLD_KEEP:
        return wt_packet_keep(t, basis, th->value, !th->keep_by_magnitude, kept);
    case THRESHOLD_HARD:
    case THRESHOLD_SOFT:
        return wt_packet_threshold(t, basis, th->value, th->kind == THRESHOLD_SOFT, kept);
    case THRESHOLD_NONE: break;
    }
    return WT_OK;
}

wt_status packet_roundtrip(pipeline *p, const cli_threshold *th, double qstep,
                           const wt_image *img, const char *in, wt_image *back, double *kept,
                           double *bpp)
{
    wt_packet_tree t = {0};
    unsigned char *basis = NULL;
    wt_status st = packet_tree_of(p, img, in, &t, &basis);
    if (st == WT_OK)
        st = pipeline_name_error(change_details(&t, basis, th, qstep, kept, bpp), in);
    if (st == WT_OK)
        st = inverse(p, &t, basis, in, back);
    wt_packet_free(&t);
    free(basis);
    return st;
}
