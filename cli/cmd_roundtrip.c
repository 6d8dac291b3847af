/* wavetool roundtrip: forward and inverse transform, and how close the result is. */
#include <stdio.h>
#include <string.h>

#include "batch.h"
#include "commands.h"
#include "options.h"
#include "pipeline.h"
#include "report.h"

static const cli_command roundtrip_command = {
    "roundtrip",
    "[options] IN [-o OUT] [--psnr] [--mse] [--keep FRACTION | --threshold T [--soft|--hard]]\n"
    "       wavetool roundtrip [options] INPUT... [-O DIR]",
    "Decompose and reconstruct each input and report PSNR and MSE against it\n"
    "(peak 2^depth - 1; identical: inf). --keep or --threshold first zero or shrink\n"
    "detail coefficients (cA is kept); the report then gives the fraction of detail\n"
    "coefficients left nonzero. --qstep Q instead quantises the details with a\n"
    "dead-zone quantiser of step Q (midpoint reconstruction) and adds the estimated\n"
    "bits per pixel (entropy of every band's indices at step Q). -o writes the reconstruction ('-': standard output,\n"
    "the report then goes to standard error); -O DIR writes one per input.\n"
    "Inputs may be directories (walked for {IMAGES}).",
    OPTS_TRANSFORM | OPTS_ENGINE | OPTS_LOAD | OPTS_SAVE | OPTS_BATCH | OPTS_ROUNDTRIP |
        OPTS_REPORT | OPTS_QUANT,
    1,
    -1,
};

typedef struct roundtrip_ctx {
    pipeline pipe;
    report_spec spec;
} roundtrip_ctx;

static void roundtrip_one(void *arg, batch_item *item)
{
    roundtrip_ctx *ctx = arg;
    roundtrip_result r;
    wt_status st = pipeline_roundtrip(&ctx->pipe, item->input, item->output, &r);
    batch_item_result(item, st);
    if (st == WT_OK)
        item->report = report_quality_rate(&ctx->spec, item->input, NULL, &r.original,
                                           &r.quality, r.kept, r.bpp);
}

static void roundtrip_header(void *ctx, FILE *report)
{
    report_header(&((roundtrip_ctx *)ctx)->spec, report);
}

int cmd_roundtrip(int argc, char **argv)
{
    cli_options o;
    roundtrip_ctx ctx = {0};
    int rc = cli_parse(&roundtrip_command, argc, argv, &o);
    batch_plan plan = {"roundtrip", 0, o.output, o.outdir, o.suffix, o.ext, CLI_DEFAULT_EXT,
                       WT_HOLDS_IMAGE};
    int both = !o.psnr && !o.mse;
    ctx.spec = (report_spec){o.format, o.psnr || both, o.mse || both,
                             o.threshold != THRESHOLD_NONE, 0, o.qstep};
    FILE *report = o.output && strcmp(o.output, "-") == 0 ? stderr : stdout;
    if (rc == CLI_CONTINUE)
        rc = cli_check_output("roundtrip", &o, o.output, WT_HOLDS_IMAGE);
    if (rc == CLI_CONTINUE)
        rc = pipeline_run_files(&ctx.pipe, &o, &plan, roundtrip_one, &ctx, report,
                                roundtrip_header);
    return rc;
}
