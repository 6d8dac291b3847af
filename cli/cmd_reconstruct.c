/* wavetool reconstruct: the image back from a coefficient file. */
#include "batch.h"
#include "commands.h"
#include "options.h"
#include "pipeline.h"

static const cli_command reconstruct_command = {
    "reconstruct",
    "[options] COEFFS.npz OUT\n       wavetool reconstruct [options] -O DIR COEFFS...",
    "Reconstruct an image from a coefficient file written by 'wavetool decompose'.\n"
    "The image gets the original's size, channels and bit depth (from the file's\n"
    "meta); samples are rounded and clamped. OUT is {IMAGES} ('-': standard\n"
    "output, type from --ext). With -O, each COEFFS (a file, or a directory walked\n"
    "for {COEFFS}) gives DIR/STEM[SUFFIX].EXT.",
    OPTS_ENGINE | OPTS_LOAD | OPTS_SAVE | OPTS_BATCH,
    1,
    -1,
};

static void reconstruct_one(void *ctx, batch_item *item)
{
    batch_item_result(item, pipeline_reconstruct(ctx, item->input, item->output));
}

int cmd_reconstruct(int argc, char **argv)
{
    cli_options o;
    pipeline p = {0};
    int rc = cli_parse(&reconstruct_command, argc, argv, &o);
    batch_plan plan = {"reconstruct", 1, NULL, o.outdir, o.suffix, o.ext, CLI_DEFAULT_EXT,
                       WT_HOLDS_COEFFS};
    if (rc == CLI_CONTINUE && (o.outdir || o.nargs == 2))
        rc = cli_check_output("reconstruct", &o, o.outdir ? NULL : o.args[1], WT_HOLDS_IMAGE);
    if (rc == CLI_CONTINUE)
        rc = pipeline_run_files(&p, &o, &plan, reconstruct_one, &p, stdout, NULL);
    return rc;
}
