/* wavetool roundtrip: forward and inverse transform, and how close the result is. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "commands.h"
#include "figures.h"
#include "options.h"
#include "pages.h"
#include "pipeline.h"
#include "undecimated.h"
#include "report.h"
#include "result.h"

/* ---- one file ---------------------------------------------------------------- */

typedef struct roundtrip_result {
    wt_image original; /* size and layout for the report (pixels freed) */
    wt_quality quality;
    double kept; /* fraction of detail coefficients left nonzero; 1 without thresholding */
    double bpp;  /* --qstep: estimated bits per pixel of the quantised pyramid */
} roundtrip_result;

typedef struct roundtrip_job {
    const wt_params *params;
    const wt_image *img;
    wt_image *out;
    const cli_options *opt; /* its --keep/--threshold */
    double *kept;           /* thresholded: fraction of details kept */
    double *bpp;            /* --qstep: estimated bits per pixel */
} roundtrip_job;

static wt_status roundtrip_on(wt_engine *e, void *arg)
{
    roundtrip_job *j = arg;
    return wt_roundtrip_image(e, j->params, j->img, j->out);
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

static wt_status threshold_on(wt_epyramid *ep, const cli_options *o, double *kept, double *bpp)
{
    *kept = 1.0;
    if (o->qstep > 0.0)
        return quantize_on(ep, o->qstep, bpp);
    switch (o->threshold) {
    case THRESHOLD_KEEP:
        return o->keep_by_magnitude ? wt_epyramid_keep(ep, o->threshold_value, kept)
                                    : wt_epyramid_keep_weighted(ep, o->threshold_value, kept);
    case THRESHOLD_HARD:
    case THRESHOLD_SOFT:
        return wt_epyramid_threshold(ep, o->threshold_value, o->threshold == THRESHOLD_SOFT,
                                     kept);
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

/* The report against the input as read (@p depth bits, 8/16 or float32):
 * what is written (@p back in the --depth type @p want) and the input's peak,
 * 2^depth - 1 of an 8/16-bit input (an exact 8-bit image through --depth 16
 * is inf, not 138 dB against its range). */
static wt_status quality_as_written(const wt_image *img, const wt_image *back,
                                    wt_sample_type want, int depth, wt_quality *q)
{
    double peak = depth == WT_DEPTH_F32 ? 0.0 : ldexp(1.0, depth) - 1.0;
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

/* Forward, optional thresholding, inverse; quality against the input; the
 * reconstruction written to @p out unless NULL. */
static wt_status roundtrip_file(pipeline *p, const char *in, const char *out,
                                roundtrip_result *r)
{
    const cli_options *o = p->opt;
    wt_image img = {0}, back = {0};
    wt_params params;
    wt_sample_type want;
    memset(r, 0, sizeof *r);
    r->kept = 1.0;
    wt_status st = pipeline_load(p, in, &img);
    int depth = img.bit_depth; /* as read */
    if (st == WT_OK) /* --depth: the input as float32 unless it is the result's type */
        st = result_prepare(p, in, out, &img, &want);
    int undecimated = o->transform != WT_TRANSFORM_DWT;
    if (st == WT_OK && !undecimated)
        st = pipeline_params_for(o, &img, in, &params);
    if (st == WT_OK)
        st = result_alloc_like(&img, in, &back);
    roundtrip_job job = {&params, &img, &back, o, &r->kept, &r->bpp};
    if (st == WT_OK && undecimated)
        st = undecimated_roundtrip(p, &img, in, &back, &r->kept); /* cli/undecimated.c */
    else if (st == WT_OK)
        st = pipeline_engine_run(p,
                                 o->threshold != THRESHOLD_NONE || o->qstep > 0.0
                                     ? roundtrip_threshold_on
                                     : roundtrip_on,
                                 &job, in);
    if (st == WT_OK)
        st = pipeline_name_error(quality_as_written(&img, &back, want, depth, &r->quality), in);
    if (st == WT_OK && out)
        st = result_save(p, out, &back, want);
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

static wt_status roundtrip_page(void *arg, batch_item *item, const char *shown, char **report)
{
    roundtrip_ctx *ctx = arg;
    roundtrip_result r;
    wt_status st = roundtrip_file(&ctx->pipe, item->input, item->output, &r);
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
    roundtrip_ctx ctx = {0};
    batch_plan plan = {"roundtrip", 0, o->output, o->outdir, o->suffix, o->ext, CLI_DEFAULT_EXT,
                       WT_HOLDS_IMAGE};
    int both = !o->psnr && !o->mse;
    ctx.spec = (report_spec){o->format, o->psnr || both, o->mse || both,
                             o->threshold != THRESHOLD_NONE, 0, o->qstep};
    FILE *report = o->output && strcmp(o->output, "-") == 0 ? stderr : stdout;
    int rc = cli_check_output("roundtrip", o, o->output, cmd_roundtrip.writes);
    if (rc == CLI_CONTINUE && o->transform != WT_TRANSFORM_DWT && o->qstep > 0.0)
        rc = cli_usage_error("roundtrip", "--qstep applies to --transform dwt");
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
        "(peak 2^depth - 1; identical: inf). --keep or --threshold first zero or shrink\n"
        "detail coefficients (cA is kept); the report then gives the fraction of detail\n"
        "coefficients left nonzero. --qstep Q instead quantises the details with a\n"
        "dead-zone quantiser of step Q (midpoint reconstruction) and adds the estimated\n"
        "bits per pixel (entropy of every band's indices at step Q). -o writes the reconstruction ('-': standard output,\n"
        "the report then goes to standard error); -O DIR writes one per input.\n"
        "Inputs may be directories (walked for {IMAGES}). --transform swt|starlet:\n"
        "--keep/--threshold act on the undecimated detail bands, --keep ranking by |c|.\n"
        "A stack (multi-page TIFF, 3-D .npy with --stack) gives one report line per page.",
    .groups = OPTS_VERBOSITY | OPTS_TRANSFORM | OPTS_ENGINE | OPTS_LOAD | OPTS_SAVE | OPTS_BATCH | OPTS_OUTPUT |
              OPTS_QUALITY | OPTS_THRESHOLD | OPTS_REPORT | OPTS_QUANT | OPTS_RESULT,
    .min_args = 1,
    .max_args = -1,
    .transforms = CLI_TRANSFORMS_ALL,
    .writes = WT_HOLDS_IMAGE,
    .run = run_roundtrip,
};
