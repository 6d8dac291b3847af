/* wavetool denoise: wavelet shrinkage equal to scikit-image's denoise_wavelet. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "batch.h"
#include "commands.h"
#include "options.h"
#include "pipeline.h"
#include "report.h"

static const cli_command denoise_command = {
    "denoise",
    "[options] IN OUT\n       wavetool denoise [options] -O DIR INPUT...",
    "Remove noise by wavelet shrinkage, as scikit-image 0.19.3's\n"
    "denoise_wavelet(img, channel_axis=-1, rescale_sigma=True) does: each channel\n"
    "decomposed (default db1, symmetric, max(dwt_max_level - 3, 1) levels), its noise\n"
    "sigma estimated from the finest diagonal band (median |c| / 0.6745) unless\n"
    "--sigma is given, detail bands shrunk (BayesShrink per band, or VisuShrink),\n"
    "the approximation kept, then reconstructed at the input's size and depth\n"
    "(clipped, rounded half to even). --threshold T uses one threshold instead.\n"
    "--noise poisson: Anscombe transform, denoise with sigma 1, Makitalo-Foi\n"
    "inverse. -v prints the levels and sigma of each file. OUT is {IMAGES}; with\n"
    "-O, each INPUT (a file, or a directory walked for {IMAGES}) gives\n"
    "DIR/STEM[SUFFIX].EXT.",
    OPTS_TRANSFORM | OPTS_ENGINE | OPTS_LOAD | OPTS_SAVE | OPTS_BATCH | OPTS_DENOISE,
    1,
    -1,
};

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

static void denoise_one(void *arg, batch_item *item)
{
    denoise_ctx *ctx = arg;
    wt_denoise_info info = {0};
    wt_status st = pipeline_denoise(&ctx->pipe, item->input, item->output, &info);
    batch_item_result(item, st);
    if (st == WT_OK && ctx->verbose)
        item->report = info_line(item->input, &info);
}

static int check_denoise_options(const cli_options *o)
{
    if (o->threshold == THRESHOLD_SOFT || o->threshold == THRESHOLD_HARD) {
        if (o->denoise.rule == WT_RULE_VISU)
            return cli_usage_error("denoise", "--threshold and --rule exclude each other");
    }
    if (o->denoise.ycbcr && o->denoise.noise == WT_NOISE_POISSON)
        return cli_usage_error("denoise", "--ycbcr and --noise poisson exclude each other");
    return CLI_CONTINUE;
}

int cmd_denoise(int argc, char **argv)
{
    cli_options o;
    denoise_ctx ctx = {0};
    int rc = cli_parse(&denoise_command, argc, argv, &o);
    batch_plan plan = {"denoise", 1, NULL, o.outdir, o.suffix, o.ext, CLI_DEFAULT_EXT,
                       WT_HOLDS_IMAGE};
    ctx.verbose = o.verbose;
    if (rc == CLI_CONTINUE)
        rc = cli_check_output("denoise", &o, !o.outdir && o.nargs == 2 ? o.args[1] : NULL,
                              WT_HOLDS_IMAGE);
    if (rc == CLI_CONTINUE)
        rc = check_denoise_options(&o);
    if (rc == CLI_CONTINUE)
        rc = pipeline_run_files(&ctx.pipe, &o, &plan, denoise_one, &ctx, stderr, NULL);
    return rc;
}
