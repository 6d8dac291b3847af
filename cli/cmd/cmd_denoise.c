/* wavetool denoise: wavelet shrinkage equal to scikit-image's denoise_wavelet. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "commands.h"
#include "options.h"
#include "pages.h"
#include "pipeline.h"
#include "report.h"
#include "result.h"
#include "volume.h"

/* ---- its own options ------------------------------------------------------------ */

typedef struct denoise_cli_options {
    wt_denoise_options denoise; /* rule, shrink, sigma, ... (params from -w -l -m);
                                   rule and soft -1 until given */
    double threshold;           /* --threshold T; NAN: the rule's */
    double k;                   /* --k K; NAN: not given (3) */
} denoise_cli_options;

static int parse_shrink(const cli_arg *a)
{
    static const char *const shrinks[] = {"soft", "hard", NULL};
    int choice = 0, rc = cli_parse_choice(a, shrinks, "soft or hard", &choice);
    *(int *)a->field = choice == 0;
    return rc;
}

/* F1,F2,...: factors >= 0, at most one per level. */
static int parse_level_scale(const cli_arg *a)
{
    wt_denoise_options *d = a->field;
    const char *p = a->value;
    d->nlevel_scale = 0;
    while (*p) {
        char *end = NULL;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno || !isfinite(v) || v < 0.0 || d->nlevel_scale == WT_MAX_LEVELS ||
            (*end && *end != ','))
            return cli_usage_error(a->cmd,
                                   "invalid argument '%s' for option --%s; should be up to %d "
                                   "numbers >= 0 separated by commas",
                                   a->value, a->row->name, WT_MAX_LEVELS);
        d->level_scale[d->nlevel_scale++] = v;
        p = *end ? end + 1 : end;
        if (*end && !*p)
            return cli_usage_error(a->cmd,
                                   "invalid argument '%s' for option --%s; ends with a comma",
                                   a->value, a->row->name);
    }
    return d->nlevel_scale ? CLI_CONTINUE
                           : cli_usage_error(a->cmd, "option --%s needs at least one factor",
                                             a->row->name);
}

static const char *const rules[] = {"bayes", "visu", NULL}; /* WT_RULE_BAYES, WT_RULE_VISU */
static const char *const noises[] = {"gaussian", "poisson", NULL}; /* wt_noise_model's order */

#define AT(field) offsetof(denoise_cli_options, field)
static const cli_opt denoise_rows[] = {
    {"levels", 'l', "N|max", cli_parse_levels, 0,
     "levels (scikit-image's default); max: the deepest the\nimage allows",
     "max(dwt_max_level - 3, 1);\nswt: max(swt_max_level - 3, 1); starlet: 3", NULL},
    {"rule", 0, "R", cli_opt_choice, AT(denoise.rule),
     "threshold rule: bayes (BayesShrink per band) or visu\n"
     "(VisuShrink: sigma sqrt(2 ln N))",
     "bayes", &(cli_choices){rules, "bayes or visu"}},
    {"shrink", 0, "S", parse_shrink, AT(denoise.soft), "soft or hard shrinkage",
     "soft; starlet: hard", NULL},
    {"sigma", 0, "S", cli_opt_real, AT(denoise.sigma),
     "noise sigma in sample units (0-255 for 8-bit)",
     "estimated per channel from the finest diagonal band", &(cli_real_range){0.0, 1e30}},
    {"ycbcr", 0, NULL, cli_opt_flag, AT(denoise.ycbcr),
     "RGB: denoise in YCbCr (scikit-image's BT.601), back to RGB", NULL, NULL},
    {"cycle-spin", 0, "N", cli_opt_int, AT(denoise.cycle_spin),
     "average over the circular shifts 0..N on both axes ((N+1)^2 denoises)", "0",
     &(cli_int_range){0, 64}},
    {"noise", 0, "M", cli_opt_choice, AT(denoise.noise),
     "gaussian or poisson (Anscombe transform, sigma 1,\nMakitalo-Foi inverse)", "gaussian",
     &(cli_choices){noises, "gaussian or poisson"}},
    {"level-scale", 0, "F1,F2,..", parse_level_scale, AT(denoise),
     "multiply the thresholds of level 1 (finest), 2, ... by F1, F2, ...", NULL, NULL},
    {"threshold", 0, "T", cli_opt_real, AT(threshold),
     "one threshold in sample units for every detail band\n(--shrink applies)", NULL,
     &(cli_real_range){0.0, 1e30}},
    {"k", 0, "K", cli_opt_real, AT(k),
     "starlet: threshold scale j at K sigma_j, sigma_j = sigma\n"
     "||psi_j|| (Sparse2D mr_filter's k-sigma)", "3", &(cli_real_range){1e-9, 1e30}},
};
static const cli_group denoise_group = CLI_GROUP(denoise_rows, 1);

static void denoise_defaults(cli_options *o)
{
    denoise_cli_options *own = o->own;
    wt_denoise_defaults(&own->denoise);
    own->denoise.rule = -1; /* given or not: the transform's default */
    own->denoise.soft = -1;
    own->threshold = NAN;
    own->k = NAN;
}

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

/* Levels of a packet tree: @p levels given, or the DWT's default or -l max
 * (@p chosen) at most WT_PACKET_MAX_LEVELS. */
static int packet_levels(int levels, int chosen, const wt_image *img, const wt_wavelet *w)
{
    int l = levels ? levels : wt_denoise_levels(img->height, img->width, w);
    return chosen && l > WT_PACKET_MAX_LEVELS ? WT_PACKET_MAX_LEVELS : l;
}

/* denoise's options whatever the input: -w -m --method from the command
 * line, the levels scikit-image's default (0) unless -l was given,
 * --threshold a fixed rule. */
static void denoise_options_of(const cli_options *o, wt_denoise_options *d)
{
    const denoise_cli_options *own = o->own;
    const wt_transform_class *c = wt_transform_class_of(o->transform);
    *d = own->denoise;
    d->params = o->params;
    wt_denoise_set_transform(d, c);
    if (!o->levels_given)
        d->params.levels = 0;
    d->basis = o->basis;
    d->cost = o->cost;
    if ((int)d->rule < 0)
        d->rule = WT_RULE_BAYES;
    if (d->soft < 0) /* k-sigma thresholding is hard, as mr_filter's default */
        d->soft = !(c->params & WT_TPARAM_DENOISE_KSIGMA);
    if (!isnan(own->k))
        d->k = own->k;
    if (!isnan(own->threshold)) {
        d->rule = WT_RULE_FIXED;
        d->threshold = own->threshold;
    }
}

/* denoise's options for one image: -l max its deepest, packet trees at most
 * WT_PACKET_MAX_LEVELS. */
static wt_status denoise_options_for(const cli_options *o, const wt_image *img, const char *file,
                                     wt_denoise_options *d)
{
    denoise_options_of(o, d);
    const wt_transform_class *c = wt_transform_class_of(o->transform);
    wt_uparams u = {o->transform, o->params.wavelet, 1, 0, 0, 0, WT_BORDER_MIRROR};
    if (o->levels_max)
        d->params.levels = c->layout == WT_LAYOUT_STACK
                               ? wt_umax_level(&u, img->height, img->width)
                               : wt_max_level(img->height, img->width, o->params.wavelet);
    if (c->layout == WT_LAYOUT_PACKET)
        d->params.levels = packet_levels(d->params.levels, !o->levels_given || o->levels_max,
                                         img, o->params.wavelet);
    wt_params check = d->params;
    if (check.levels == 0)
        check.levels = wt_denoise_levels(img->height, img->width, check.wavelet);
    return pipeline_name_error(wt_params_resolve(&check), file);
}

/* The host's noise estimate of @p img for @p d, into @p d->estimates (on
 * about @p threads threads). */
static wt_status estimate_noise(wt_denoise_options *d, const wt_image *img, const char *file,
                                int threads, double **estimates)
{
    *estimates = malloc(wt_denoise_estimate_count(d) * sizeof **estimates);
    if (!*estimates)
        return pipeline_name_error(wt_error_set(WT_ERR_NOMEM, "out of memory"), file);
    wt_status st = wt_denoise_estimate(d, img, threads, *estimates);
    d->estimates = *estimates;
    return pipeline_name_error(st, file);
}

/* Whether the pool's engines make the noise estimate of @p img themselves. */
static int pool_estimates(pipeline *p, const wt_denoise_options *d, const wt_image *img)
{
    const wt_engine *e = pipeline_engine_kind(p);
    return e && wt_denoise_estimates_on_engine(e, d, img);
}

/* @p in denoised into @p out (same size, channels and depth); @p info: the
 * levels and the sigma of each channel. With pixel rooms (a GPU pool) the
 * input decodes into the worker's input room and the engine writes the
 * result into its output room: a GPU copies both directly. */
static wt_status denoise_file(pipeline *p, page_binding *page, const char *in, const char *out,
                              wt_denoise_info *info)
{
    wt_image img = {0}, back = {0};
    wt_denoise_options d;
    wt_sample_type want;
    wt_status st = pages_load_borrowing(p, page, in, &img); /* gone by the end */
    if (st == WT_OK) /* --depth: an unrounded float32 result unless it is the input's type */
        st = result_check(p, out, &img, &want);
    if (st == WT_OK)
        st = denoise_options_for(p->opt, &img, in, &d);
    /* (waits for a pool that opens in the background: the rooms come with it) */
    int on_engine = st == WT_OK && pool_estimates(p, &d, &img);
    if (st == WT_OK) { /* every denoise writes every sample of its result */
        pipeline_input_to_room(p, &img);
        st = result_alloc_for(&img, want, in, pipeline_output_room(p), &back);
    }
    double *estimates = NULL; /* made here, not on the engine's time (a GPU is shared), */
    if (st == WT_OK && !on_engine) /* unless the engine makes it */
        st = estimate_noise(&d, &img, in, p->threads, &estimates);
    denoise_job job = {&d, &img, &back, info};
    if (st == WT_OK)
        st = pipeline_engine_run(p, denoise_on, &job, in);
    free(estimates);
    if (st == WT_OK)
        st = result_save(p, page, out, &back, want);
    wt_image_free(&img);
    wt_image_free(&back);
    return st;
}

/* ---- the command --------------------------------------------------------------- */

typedef struct denoise_ctx {
    pipeline pipe;
    int verbose;
    int ksigma; /* -v reports the multiresolution support */
} denoise_ctx;

/* "FILE: levels L, sigma S..." and, for k-sigma thresholding, the share of
 * each scale in the multiresolution support. */
static char *info_line(const char *file, const wt_denoise_info *info, int ksigma)
{
    strbuf sb = {0};
    sb_printf(&sb, "%s: levels %d, sigma", file, info->levels);
    for (int c = 0; c < info->channels; c++)
        sb_printf(&sb, " %.10g", info->sigma[c]);
    if (ksigma) {
        sb_printf(&sb, ", support");
        for (int l = 0; l < info->levels; l++)
            sb_printf(&sb, " %.4f", info->support[l]);
    }
    sb_printf(&sb, "\n");
    return sb_finish(&sb);
}

static wt_status denoise_page(void *arg, batch_item *item, page_binding *page,
                              const report_page *shown, char **report)
{
    denoise_ctx *ctx = arg;
    wt_denoise_info info = {0};
    wt_denoise_options d;
    denoise_options_of(ctx->pipe.opt, &d);
    wt_status st = ctx->pipe.opt->volume /* cli/volume.c */
                       ? volume_denoise(&ctx->pipe, &d, item->input, item->output, &info)
                       : denoise_file(&ctx->pipe, page, item->input, item->output, &info);
    if (st == WT_OK && ctx->verbose)
        *report = info_line(shown->shown, &info, ctx->ksigma);
    return st;
}

static void denoise_one(void *arg, batch_item *item)
{
    denoise_ctx *ctx = arg;
    pages_run(&ctx->pipe, item, PAGES_OF_IMAGES, denoise_page, ctx);
}

/* --k goes with k-sigma thresholding (the starlet), --rule without it. */
static int check_ksigma_options(const cli_options *o, const wt_transform_class *c)
{
    const denoise_cli_options *own = o->own;
    int ksigma = (c->params & WT_TPARAM_DENOISE_KSIGMA) != 0;
    if (!isnan(own->k) && !ksigma)
        return cli_usage_error("denoise", "--k goes with --transform starlet (k-sigma "
                                          "thresholding); --transform %s takes --rule",
                               c->name);
    if ((int)own->denoise.rule >= 0 && ksigma)
        return cli_usage_error("denoise", "--transform %s thresholds at K sigma_j: it takes --k "
                                          "or --threshold, not --rule",
                               c->name);
    return CLI_CONTINUE;
}

static int check_denoise_options(const cli_options *o)
{
    const wt_denoise_options *d = &((const denoise_cli_options *)o->own)->denoise;
    double threshold = ((const denoise_cli_options *)o->own)->threshold;
    if (o->levels_given && !o->levels_max && o->params.levels == 0)
        return cli_usage_error("denoise", "-l 0: denoise needs at least 1 level");
    if (!isnan(threshold) && d->rule == WT_RULE_VISU)
        return cli_usage_error("denoise", "--threshold and --rule exclude each other");
    if (o->volume && (d->ycbcr || d->cycle_spin))
        return cli_usage_error("denoise", "--volume goes without --ycbcr and --cycle-spin");
    if (d->ycbcr && d->noise == WT_NOISE_POISSON)
        return cli_usage_error("denoise", "--ycbcr and --noise poisson exclude each other");
    const wt_transform_class *c = wt_transform_class_of(o->transform);
    if (!(c->params & WT_TPARAM_DENOISE_EXTRAS) && (d->ycbcr || d->cycle_spin))
        return cli_usage_error("denoise", "--transform %s goes without --ycbcr and --cycle-spin",
                               c->name);
    if (!(c->params & WT_TPARAM_DENOISE_POISSON) && d->noise == WT_NOISE_POISSON)
        return cli_usage_error("denoise", "--transform %s goes without --noise poisson", c->name);
    return check_ksigma_options(o, c);
}

static int run_denoise(const cli_options *o)
{
    denoise_ctx ctx = {0};
    /* forward, estimate and inverse, for each cycle-spin shift */
    int spin = ((const denoise_cli_options *)o->own)->denoise.cycle_spin;
    int shifts = (spin + 1) * (spin + 1);
    batch_plan plan = {"denoise", 1, NULL, o->outdir, o->suffix, o->ext, CLI_DEFAULT_EXT,
                       WT_HOLDS_IMAGE, 3 * shifts, o->base};
    ctx.verbose = o->verbose;
    ctx.ksigma = (wt_transform_class_of(o->transform)->params & WT_TPARAM_DENOISE_KSIGMA) != 0;
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
        "the same rules per band; --transform packet: the leaves of a packet basis\n"
        "(--basis, --cost), the same rules per leaf. --transform starlet: Sparse2D\n"
        "mr_filter's default, 3 scales (mirror border) hard-thresholded at K sigma_j\n"
        "(--k), the noise of scale j of unit white noise times sigma (median |w1| /\n"
        "0.6745 / ||psi_1||), c_L kept: the multiresolution support's coefficients.\n"
        "-v prints the levels and sigma of each file (starlet: and each scale's share\n"
        "of the support).\n"
        "--volume: a stack as one (z, y, x) array (denoise_wavelet of the 3-D array).\n"
        "OUT is {IMAGES}; with\n"
        "-O, each INPUT (a file, or a directory walked for {IMAGES}) gives\n"
        "DIR/STEM[SUFFIX].EXT.",
    .groups = (const cli_group *const[]){&cli_group_wavelet, &cli_group_packet, &denoise_group, &cli_group_volume,
                                         &cli_group_device, &cli_group_gpu_codec,
                                         &cli_group_jobs, &cli_group_input, &cli_group_save,
                                         &cli_group_batch, &cli_group_result, &cli_group_metadata,
                                         &cli_group_verbosity, NULL},
    .own_size = sizeof(denoise_cli_options),
    .defaults = denoise_defaults,
    .min_args = 1,
    .max_args = -1,
    .needs = WT_THOOK_DENOISE,
    .writes = WT_HOLDS_IMAGE,
    .run = run_denoise,
};
