/* wavetool roundtrip: forward and inverse transform, and how close the result is. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "commands.h"
#include "figures.h"
#include "options.h"
#include "pages.h"
#include "pipeline.h"
#include "packet.h"
#include "undecimated.h"
#include "volume.h"
#include "report.h"
#include "result.h"
#include "wavetool_hooks.h" /* wt_env */

/* ---- its own options ------------------------------------------------------------ */

typedef struct roundtrip_options {
    const char *output;    /* -o */
    int psnr, mse;         /* report fields; neither given = both */
    cli_threshold details; /* --keep, --threshold, --soft, --hard, --keep-rank */
    double qstep;          /* --qstep Q; 0: not given */
} roundtrip_options;

static int parse_keep(const cli_arg *a)
{
    cli_threshold *t = a->field;
    if (t->kind != THRESHOLD_NONE && t->kind != THRESHOLD_KEEP) /* given again: the last wins */
        return cli_usage_error(a->cmd, "--keep and --threshold exclude each other");
    t->kind = THRESHOLD_KEEP;
    return cli_parse_real(a, 0.0, 1.0, &t->value);
}

static int parse_threshold(const cli_arg *a)
{
    cli_threshold *t = a->field;
    if (t->kind == THRESHOLD_KEEP)
        return cli_usage_error(a->cmd, "--keep and --threshold exclude each other");
    t->kind = t->kind == THRESHOLD_SOFT ? THRESHOLD_SOFT : THRESHOLD_HARD;
    return cli_parse_real(a, 0.0, 1e30, &t->value);
}

/* --soft, --hard */
static int parse_shrink(const cli_arg *a)
{
    cli_threshold *t = a->field;
    if (t->kind == THRESHOLD_KEEP)
        return cli_usage_error(a->cmd, "--%s applies to --threshold, not --keep", a->row->name);
    if (t->kind == THRESHOLD_NONE)
        t->value = NAN; /* --threshold must follow */
    t->kind = strcmp(a->row->name, "soft") == 0 ? THRESHOLD_SOFT : THRESHOLD_HARD;
    return CLI_CONTINUE;
}

static const char *const ranks[] = {"norm", "magnitude", NULL};

#define AT(field) offsetof(roundtrip_options, field)
static const cli_opt roundtrip_rows[] = {
    {"output", 'o', "OUT", cli_opt_string, AT(output), "write the reconstruction to OUT", NULL,
     "a file name or -"},
    {"psnr", 0, NULL, cli_opt_flag, AT(psnr), "report PSNR (without --psnr or --mse: both)", NULL,
     NULL},
    {"mse", 0, NULL, cli_opt_flag, AT(mse), "report MSE", NULL, NULL},
    {"keep", 0, "FRACTION", parse_keep, AT(details),
     "keep the largest FRACTION (0-1) of detail coefficients, zero the rest", NULL, NULL},
    {"keep-rank", 0, "R", cli_opt_choice, AT(details.keep_by_magnitude),
     "--keep ranks norm (|c| x the band's synthesis norm, its\n"
     "share of the reconstruction) or magnitude (|c|)",
     "norm", &(cli_choices){ranks, "norm or magnitude"}},
    {"threshold", 0, "T", parse_threshold, AT(details),
     "threshold detail coefficients at T (hard unless --soft)", NULL, NULL},
    {"soft", 0, NULL, parse_shrink, AT(details), "soft thresholding: shrink towards zero by T",
     NULL, NULL},
    {"hard", 0, NULL, parse_shrink, AT(details), "hard thresholding: zero |v| < T (the default)",
     NULL, NULL},
    {"qstep", 0, "Q", cli_opt_real, AT(qstep),
     "quantise the details with a dead-zone quantiser of step Q\nand report bits per pixel", NULL,
     &(cli_real_range){1e-9, 1e30}},
};
static const cli_group roundtrip_group = CLI_GROUP(roundtrip_rows, 1);

/* Checks between its options once all are read. */
static int check_roundtrip_options(const cli_options *o, const roundtrip_options *r)
{
    if (o->volume && (r->details.kind != THRESHOLD_NONE || r->qstep > 0.0))
        return cli_usage_error("roundtrip", "--volume takes no --keep, --threshold or --qstep");
    if ((r->details.kind == THRESHOLD_HARD || r->details.kind == THRESHOLD_SOFT) &&
        isnan(r->details.value))
        return cli_usage_error("roundtrip", "--soft and --hard need --threshold T");
    if (r->qstep > 0.0 && r->details.kind != THRESHOLD_NONE)
        return cli_usage_error("roundtrip", "--qstep excludes --keep and --threshold");
    if (r->qstep > 0.0 && !(wt_transform_class_of(o->transform)->params & WT_TPARAM_QSTEP)) {
        char list[96];
        wt_transform_names(WT_TPARAM_QSTEP, 0, ", ", " or ", list, sizeof list);
        return cli_usage_error("roundtrip", "--qstep applies to --transform %s", list);
    }
    return CLI_CONTINUE;
}

/* ---- one file ---------------------------------------------------------------- */

typedef struct roundtrip_result {
    wt_image original; /* size and layout for the report (pixels freed) */
    wt_quality quality;
    double kept; /* fraction of detail coefficients left nonzero; 1 without thresholding */
    double bpp;  /* --qstep: estimated bits per pixel of the quantised pyramid */
} roundtrip_result;

typedef struct roundtrip_job {
    const wt_params *params;
    wt_image *img;          /* given up (its pixels freed) by roundtrip_consume_on */
    wt_image *out;
    const roundtrip_options *opt; /* its --keep/--threshold/--qstep */
    double *kept;           /* thresholded: fraction of details kept */
    double *bpp;            /* --qstep: estimated bits per pixel */
} roundtrip_job;

static wt_status roundtrip_on(wt_engine *e, void *arg)
{
    roundtrip_job *j = arg;
    return wt_roundtrip_image(e, j->params, j->img, j->out);
}

/* The roundtrip with the input given up on the CPU engine (the comparison
 * reads it again); a GPU engine keeps it, so that a failure there can still
 * run on the CPU (--device auto). */
static wt_status roundtrip_consume_on(wt_engine *e, void *arg)
{
    roundtrip_job *j = arg;
    return wt_engine_is_cpu(e) ? wt_roundtrip_image_consume(e, j->params, j->img, j->out)
                               : wt_roundtrip_image(e, j->params, j->img, j->out);
}

/* --qstep: the rate of every band at step Q (cA included, as a coder would
 * spend it), then the details quantised with midpoint reconstruction. */
static wt_status quantize_on(wt_epyramid *ep, double qstep, double *bpp)
{
    const wt_pyramid *shape = wt_epyramid_shape(ep);
    size_t n = 3 * (size_t)shape->levels * (size_t)shape->channels;
    wt_band_ref *sel = malloc((n ? n : 1) * sizeof *sel);
    double *steps = malloc((n ? n : 1) * sizeof *steps);
    wt_status st = sel && steps ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    if (st == WT_OK)
        st = figures_bpp(ep, qstep, (double)shape->height * (double)shape->width, bpp);
    if (st == WT_OK) {
        n = wt_epyramid_details(ep, sel);
        for (size_t i = 0; i < n; i++)
            steps[i] = qstep;
        st = wt_epyramid_map(ep, WT_OP_QUANTIZE, sel, steps, n);
    }
    free(sel);
    free(steps);
    return st;
}

static wt_status threshold_on(wt_epyramid *ep, const roundtrip_options *o, double *kept,
                              double *bpp)
{
    const cli_threshold *t = &o->details;
    *kept = 1.0;
    if (o->qstep > 0.0)
        return quantize_on(ep, o->qstep, bpp);
    switch (t->kind) {
    case THRESHOLD_KEEP:
        return t->keep_by_magnitude ? wt_epyramid_keep(ep, t->value, kept)
                                    : wt_epyramid_keep_weighted(ep, t->value, kept);
    case THRESHOLD_HARD:
    case THRESHOLD_SOFT:
        return wt_epyramid_threshold(ep, t->value, t->kind == THRESHOLD_SOFT, kept);
    case THRESHOLD_NONE: break;
    }
    return WT_OK;
}

static wt_status threshold_inverse(wt_epyramid *ep, void *arg)
{
    roundtrip_job *j = arg;
    wt_status st = threshold_on(ep, j->opt, j->kept, j->bpp);
    return st == WT_OK ? wt_epyramid_inverse_image(ep, j->out) : st;
}

/* Forward, thresholds and inverse with the pyramid kept on the engine. */
static wt_status roundtrip_threshold_on(wt_engine *e, void *arg)
{
    roundtrip_job *j = arg;
    return pipeline_on_epyramid(e, j->params, j->img, threshold_inverse, j);
}

/* Forward, optional thresholding, inverse; quality against the input; the
 * reconstruction written to @p out unless NULL. */
/* The report against the input as read (@p depth bits, 8/16 or float32):
 * what is written (@p back in the --depth type @p want) with @p peak (0: the
 * range of a float32 input). */
static wt_status quality_as_written(const wt_image *img, const wt_image *back,
                                    wt_sample_type want, int depth, double peak, wt_quality *q)
{
    if (want.kind == WT_SAMPLE_FLOAT || img->bit_depth == depth)
        return wt_quality_compare_peak(img, back, peak, q);
    wt_image written = {0}, held = {0};
    wt_status st = wt_image_convert(back, want, &written);
    if (st == WT_OK)
        st = wt_image_convert(&written, (wt_sample_type){WT_SAMPLE_FLOAT, 32}, &held);
    if (st == WT_OK)
        st = wt_quality_compare_peak(img, &held, peak, q);
    wt_image_free(&written);
    wt_image_free(&held);
    return st;
}

/* ---- the comparison against the input read again ---------------------------
 * A big input is not held beside the pyramid: the CPU engine's roundtrip
 * takes its storage (wt_roundtrip_image_consume), and the report compares
 * the reconstruction with the input decoded again a band of rows at a time
 * (wt_stack_reread_rows), summed as the whole images would be
 * (wt_quality_rows): the same numbers without the input's copy (30000x30000
 * 16-bit: 3.5x -> 2.5x the decoded image). */

/* Decoded bytes from which the input is read again (WT_ROUNDTRIP_REREAD_BYTES
 * overrides: 0 always, for tests). */
#define REREAD_BYTES ((size_t)64 << 20)

static size_t reread_bytes(void)
{
    return wt_env_count(wt_env()->roundtrip_reread_bytes, REREAD_BYTES);
}

/* 1 when the CPU engine may give the input up and the report read it again:
 * a plain roundtrip (no thresholds, no --depth conversion) of a big page
 * that its stack reads again by rows. */
static int compares_reread(const pipeline *p, const page_binding *page, const char *in,
                           const wt_image *img, int depth, wt_sample_type want)
{
    const cli_options *o = p->opt;
    const roundtrip_options *own = o->own;
    return page && page->images && strcmp(in, page->input) == 0 &&
           wt_stack_rereads_rows(page->images) &&
           wt_transform_class_of(o->transform)->layout == WT_LAYOUT_PYRAMID &&
           own->details.kind == THRESHOLD_NONE && own->qstep <= 0.0 &&
           img->bit_depth == depth && result_same_type(want, wt_image_stored(img)) &&
           wt_image_bytes(img) >= reread_bytes();
}

typedef struct reread_compare {
    wt_quality_rows sums;
    const wt_image *back;
} reread_compare;

/* A band of the input against the same rows of the reconstruction. */
static wt_status compare_band(void *arg, const wt_image *band, uint32_t y0)
{
    reread_compare *c = arg;
    wt_image rows = *c->back;
    size_t row_bytes = wt_image_bytes(c->back) / c->back->height;
    if ((size_t)y0 * band->width != c->sums.done)
        return wt_error_set(WT_ERR_INVALID, "rows read out of order");
    rows.height = band->height;
    rows.pixels = (unsigned char *)c->back->pixels + (size_t)y0 * row_bytes;
    return wt_quality_rows_add(&c->sums, band, &rows);
}

/* The report's numbers: @p back against page @p page's input read again. */
static wt_status compare_reread(pipeline *p, page_binding *page, const wt_image *back,
                                double peak, wt_quality *q)
{
    reread_compare c = {.back = back};
    double t0 = wt_seconds();
    wt_status st = wt_quality_rows_start(&c.sums, back);
    if (st == WT_OK)
        st = wt_stack_reread_rows(page->images, page->page, compare_band, &c);
    pipeline_add_time(p, &p->stats.decode, t0);
    return st == WT_OK ? wt_quality_rows_finish(&c.sums, peak, q) : st;
}

static wt_status roundtrip_file(pipeline *p, page_binding *page, const char *in, const char *out,
                                roundtrip_result *r)
{
    const cli_options *o = p->opt;
    const roundtrip_options *own = o->own;
    wt_image img = {0}, back = {0};
    wt_params params;
    wt_sample_type want;
    memset(r, 0, sizeof *r);
    r->kept = 1.0;
    wt_status st = pages_load(p, page, in, &img);
    int depth = img.bit_depth; /* as read */
    if (st == WT_OK) /* --depth: the input as float32 unless it is the result's type */
        st = result_prepare(p, in, out, &img, &want);
    wt_tlayout layout = wt_transform_class_of(o->transform)->layout;
    int undecimated = layout == WT_LAYOUT_STACK;
    if (st == WT_OK && layout == WT_LAYOUT_PYRAMID)
        st = pipeline_params_for(o, pages_item(page), &img, in, &params);
    if (st == WT_OK)
        st = result_alloc_like(&img, in, &back);
    double peak = 0.0; /* --data-range, else the input's 2^depth - 1 (an exact 8-bit image
                          through --depth 16 is inf, not 138 dB against its range) */
    if (st == WT_OK)
        st = pipeline_name_error(
            report_psnr_peak(o, &img, depth == WT_DEPTH_F32 ? 0.0 : ldexp(1.0, depth) - 1.0, &peak),
            in);
    int reread = st == WT_OK && compares_reread(p, page, in, &img, depth, want);
    roundtrip_job job = {&params, &img, &back, own, &r->kept, &r->bpp};
    if (st == WT_OK && undecimated) /* cli/undecimated.c */
        st = undecimated_roundtrip(p, &own->details, &img, in, &back, &r->kept);
    else if (st == WT_OK && layout == WT_LAYOUT_PACKET) /* cli/packet.c */
        st = packet_roundtrip(p, &own->details, own->qstep, &img, in, &back, &r->kept, &r->bpp);
    else if (st == WT_OK)
        st = pipeline_engine_run(p,
                                 own->details.kind != THRESHOLD_NONE || own->qstep > 0.0
                                     ? roundtrip_threshold_on
                                 : reread ? roundtrip_consume_on
                                          : roundtrip_on,
                                 &job, in);
    if (st == WT_OK && !img.pixels) /* given up */
        st = pipeline_name_error(compare_reread(p, page, &back, peak, &r->quality), in);
    else if (st == WT_OK)
        st = pipeline_name_error(quality_as_written(&img, &back, want, depth, peak, &r->quality),
                                 in);
    if (st == WT_OK && out)
        st = result_save(p, page, out, &back, want);
    r->original = img;
    r->original.pixels = NULL;
    wt_image_free(&img);
    wt_image_free(&back);
    return st;
}

/* ---- the command --------------------------------------------------------------- */

typedef struct roundtrip_ctx {
    pipeline pipe;
    report_spec spec;
} roundtrip_ctx;

static wt_status roundtrip_page(void *arg, batch_item *item, page_binding *page,
                                const report_page *shown, char **report)
{
    roundtrip_ctx *ctx = arg;
    roundtrip_result r = {.kept = 1.0};
    wt_status st = ctx->pipe.opt->volume /* cli/volume.c */
                       ? volume_roundtrip(&ctx->pipe, item, item->input, item->output,
                                          &r.original, &r.quality)
                       : roundtrip_file(&ctx->pipe, page, item->input, item->output, &r);
    if (st == WT_OK)
        *report = report_quality_rate(&ctx->spec, shown, NULL, &r.original, &r.quality, r.kept,
                                      r.bpp);
    return st;
}

static void roundtrip_one(void *arg, batch_item *item)
{
    roundtrip_ctx *ctx = arg;
    pages_run(&ctx->pipe, item, PAGES_OF_IMAGES, roundtrip_page, ctx);
}

static void roundtrip_header(void *ctx, FILE *report)
{
    report_header(&((roundtrip_ctx *)ctx)->spec, report);
}

static int run_roundtrip(const cli_options *o)
{
    const roundtrip_options *own = o->own;
    roundtrip_ctx ctx = {0};
    batch_plan plan = {"roundtrip", 0, own->output, o->outdir, o->suffix, o->ext,
                       CLI_DEFAULT_EXT, WT_HOLDS_IMAGE, 2, o->base};
    int both = !own->psnr && !own->mse;
    ctx.spec = (report_spec){o->format, own->psnr || both, own->mse || both,
                             own->details.kind != THRESHOLD_NONE, 0, own->qstep};
    FILE *report = own->output && strcmp(own->output, "-") == 0 ? stderr : stdout;
    int rc = check_roundtrip_options(o, own);
    if (rc == CLI_CONTINUE)
        rc = cli_check_output("roundtrip", o, own->output, cmd_roundtrip.writes);
    if (rc == CLI_CONTINUE)
        rc = pipeline_run_files(&ctx.pipe, o, &plan, roundtrip_one, &ctx, report,
                                roundtrip_header);
    return rc;
}

const cli_command cmd_roundtrip = {
    .name = "roundtrip",
    .synopsis =
        "[options] IN [-o OUT] [--psnr] [--mse] [--keep FRACTION | --threshold T [--soft|--hard]]\n"
        "       wavetool roundtrip [options] INPUT... [-O DIR]",
    .tagline = "IN [-o OUT] [--psnr] [--mse]: forward + inverse, PSNR/MSE",
    .summary =
        "Decompose and reconstruct each input and report PSNR and MSE against it\n"
        "(peak 2^depth - 1 or --data-range; identical: inf). --keep or --threshold first zero or shrink\n"
        "detail coefficients (cA is kept); the report then gives the fraction of detail\n"
        "coefficients left nonzero. --qstep Q instead quantises the details with a\n"
        "dead-zone quantiser of step Q (midpoint reconstruction) and adds the estimated\n"
        "bits per pixel (entropy of every band's indices at step Q). -o writes the reconstruction ('-': standard output,\n"
        "the report then goes to standard error); -O DIR writes one per input.\n"
        "Inputs may be directories (walked for {IMAGES}). --transform swt|starlet:\n"
        "--keep/--threshold act on the undecimated detail bands, --keep ranking by |c|.\n"
        "--transform packet: on every leaf of the basis but the approximation.\n"
        "A stack (multi-page TIFF, 3-D .npy with --stack) gives one report line per page;\n"
        "with --volume it is one (z, y, x) volume and one line.",
    .groups = (const cli_group *const[]){&cli_group_transform, &cli_group_swt, &cli_group_starlet,
                                         &cli_group_packet, &cli_group_volume, &cli_group_device, &cli_group_gpu_codec,
                                         &cli_group_jobs, &cli_group_input,
                                         &cli_group_save, &cli_group_batch, &roundtrip_group,
                                         &cli_group_result, &cli_group_metadata, &cli_group_report, &cli_group_psnr,
                                         &cli_group_verbosity, NULL},
    .own_size = sizeof(roundtrip_options),
    .min_args = 1,
    .max_args = -1,
    .writes = WT_HOLDS_IMAGE,
    .run = run_roundtrip,
};
