/* wavetool denoise: wavelet shrinkage equal to scikit-image's denoise_wavelet. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "batch.h"
#include "commands.h"
#include "options.h"
#include "pages.h"
#include "pipeline.h"
#include "report.h"
#include "result.h"

/* ---- one file ---------------------------------------------------------------- */

typedef struct denoise_job {
    const wt_denoise_options *denoise;
    const wt_image *img;
    wt_image *out;
    wt_denoise_info *info;
} denoise_job;

static wt_status denoise_on(wt_engine *e, void *arg)
{
    denoise_job *j = arg;
    return wt_denoise_image(e, j->denoise, j->img, j->out, j->info);
}

/* denoise's options for one image: -w -m --method from the command line, the
 * levels scikit-image's default unless -l was given, --threshold a fixed rule. */
static wt_status denoise_options_for(const cli_options *o, const wt_image *img, const char *file,
                                     wt_denoise_options *d)
{
    *d = o->denoise;
    d->params = o->params;
    d->swt = o->transform == WT_TRANSFORM_SWT;
    wt_uparams u = {WT_TRANSFORM_SWT, o->params.wavelet, 1, 0, 0, 0, WT_BORDER_MIRROR};
    if (o->levels_max)
        d->params.levels = d->swt ? wt_umax_level(&u, img->height, img->width)
                                  : wt_max_level(img->height, img->width, o->params.wavelet);
    else if (!o->levels_given)
        d->params.levels = 0;
    if (o->threshold != THRESHOLD_NONE) {
        d->rule = WT_RULE_FIXED;
        d->threshold = o->threshold_value;
    }
    wt_params check = d->params;
    if (check.levels == 0)
        check.levels = wt_denoise_levels(img->height, img->width, check.wavelet);
    return pipeline_name_error(wt_params_resolve(&check), file);
}

/* @p in denoised into @p out (same size, channels and depth); @p info: the
 * levels and the sigma of each channel. */
static wt_status denoise_file(pipeline *p, const char *in, const char *out, wt_denoise_info *info)
{
    wt_image img = {0}, back = {0};
    wt_denoise_options d;
    wt_sample_type want;
    wt_status st = pipeline_load(p, in, &img);
    if (st == WT_OK) /* --depth: an unrounded float32 result unless it is the input's type */
        st = result_check(p, out, &img, &want);
    if (st == WT_OK)
        st = denoise_options_for(p->opt, &img, in, &d);
    if (st == WT_OK)
        st = result_alloc_for(&img, want, in, &back);
    denoise_job job = {&d, &img, &back, info};
    if (st == WT_OK)
        st = pipeline_engine_run(p, denoise_on, &job, in);
    if (st == WT_OK)
        st = result_save(p, out, &back, want);
    wt_image_free(&img);
    wt_image_free(&back);
    return st;
}

/* ---- the command --------------------------------------------------------------- */

typedef struct denoise_ctx {
    pipeline pipe;
    int verbose;
} denoise_ctx;

static char *info_line(const char *file, const wt_denoise_info *info)
{
    strbuf sb = {0};
    sb_printf(&sb, "%s: levels %d, sigma", file, info->levels);
    for (int c = 0; c < info->channels; c++)
        sb_printf(&sb, " %.10g", info->sigma[c]);
    sb_printf(&sb, "\n");
    return sb_finish(&sb);
}

static wt_status denoise_page(void *arg, batch_item *item, const char *shown, char **report)
{
    denoise_ctx *ctx = arg;
    wt_denoise_info info = {0};
    wt_status st = denoise_file(&ctx->pipe, item->input, item->output, &info);
    if (st == WT_OK && ctx->verbose)
        *report = info_line(shown, &info);
    return st;
}

static void denoise_one(void *arg, batch_item *item)
{
    denoise_ctx *ctx = arg;
    pages_run(&ctx->pipe, item, PAGES_OF_IMAGES, denoise_page, ctx);
}

static int check_denoise_options(const cli_options *o)
{
    if (o->levels_given && !o->levels_max && o->params.levels == 0)
        return cli_usage_error("denoise", "-l 0: denoise needs at least 1 level");
    if (o->threshold != THRESHOLD_NONE && o->denoise.rule == WT_RULE_VISU)
        return cli_usage_error("denoise", "--threshold and --rule exclude each other");
    if (o->denoise.ycbcr && o->denoise.noise == WT_NOISE_POISSON)
        return cli_usage_error("denoise", "--ycbcr and --noise poisson exclude each other");
    if (o->norm || o->start_level || o->all_approx)
        return cli_usage_error("denoise", "--norm, --start-level and --all-approx do not "
                                          "apply to denoise");
    if (o->transform == WT_TRANSFORM_SWT &&
        (o->denoise.ycbcr || o->denoise.noise == WT_NOISE_POISSON || o->denoise.cycle_spin))
        return cli_usage_error("denoise", "--transform swt goes without --ycbcr, --noise "
                                          "poisson and --cycle-spin");
    return CLI_CONTINUE;
}

static int run_denoise(const cli_options *o)
{
    denoise_ctx ctx = {0};
    batch_plan plan = {"denoise", 1, NULL, o->outdir, o->suffix, o->ext, CLI_DEFAULT_EXT,
                       WT_HOLDS_IMAGE};
    ctx.verbose = o->verbose;
    int rc = cli_check_output("denoise", o, !o->outdir && o->nargs == 2 ? o->args[1] : NULL,
                              cmd_denoise.writes);
    if (rc == CLI_CONTINUE)
        rc = check_denoise_options(o);
    if (rc == CLI_CONTINUE) /* -v's lines go with the engine notes, on stderr */
        rc = pipeline_run_files(&ctx.pipe, o, &plan, denoise_one, &ctx, stderr, NULL);
    return rc;
}

const cli_command cmd_denoise = {
    .name = "denoise",
    .synopsis = "[options] IN OUT\n       wavetool denoise [options] -O DIR INPUT...",
    .tagline = "IN OUT: wavelet shrinkage = skimage denoise_wavelet (0.19.3)",
    .summary =
        "Remove noise by wavelet shrinkage, as scikit-image 0.19.3's\n"
        "denoise_wavelet(img, channel_axis=-1, rescale_sigma=True) does: each channel\n"
        "decomposed (default db1, symmetric, max(dwt_max_level - 3, 1) levels), its noise\n"
        "sigma estimated from the finest diagonal band (median |c| / 0.6745) unless\n"
        "--sigma is given, detail bands shrunk (BayesShrink per band, or VisuShrink),\n"
        "the approximation kept, then reconstructed at the input's size and depth\n"
        "(clipped, rounded half to even). --threshold T uses one threshold instead.\n"
        "--noise poisson: Anscombe transform, denoise with sigma 1, Makitalo-Foi\n"
        "inverse. --transform swt: the stationary transform (= pywt.swt2) instead,\n"
        "the same rules per band. -v prints the levels and sigma of each file.\n"
        "OUT is {IMAGES}; with\n"
        "-O, each INPUT (a file, or a directory walked for {IMAGES}) gives\n"
        "DIR/STEM[SUFFIX].EXT.",
    .groups = OPTS_VERBOSITY | OPTS_TRANSFORM | OPTS_ENGINE | OPTS_LOAD | OPTS_SAVE | OPTS_BATCH | OPTS_DENOISE | OPTS_RESULT,
    .min_args = 1,
    .max_args = -1,
    .transforms = 1u << WT_TRANSFORM_DWT | 1u << WT_TRANSFORM_SWT,
    .writes = WT_HOLDS_IMAGE,
    .run = run_denoise,
};
