/* wavetool decompose: a subband mosaic or a coefficient file of each input. */
#include "batch.h"
#include "commands.h"
#include "options.h"
#include "pipeline.h"

static const cli_command decompose_command = {
    "decompose",
    "[options] IN OUT\n       wavetool decompose [options] -O DIR INPUT...",
    "Decompose an image into a multi-level 2D discrete wavelet transform.\n"
    "OUT ending in {IMAGES} gets a mosaic of all subbands, laid out as\n"
    "pywt.coeffs_to_array does (cA top-left; per level cV top-right, cH bottom-left,\n"
    "cD bottom-right), each band scaled for display; {COEFFS} gets the coefficients\n"
    "(float32, int32 for legall53), readable with numpy.load. '-' is standard\n"
    "input or output (its type from --ext, default png). With -O, each INPUT (a file,\n"
    "or a directory walked for {IMAGES}) gives DIR/STEM[SUFFIX].EXT.",
    OPTS_TRANSFORM | OPTS_ENGINE | OPTS_LOAD | OPTS_SAVE | OPTS_MOSAIC | OPTS_BATCH,
    1,
    -1,
};

static void decompose_one(void *ctx, batch_item *item)
{
    batch_item_result(item, pipeline_decompose(ctx, item->input, item->output));
}

int cmd_decompose(int argc, char **argv)
{
    cli_options o;
    pipeline p = {0};
    int rc = cli_parse(&decompose_command, argc, argv, &o);
    batch_plan plan = {"decompose", 1, NULL, o.outdir, o.suffix, o.ext, CLI_DEFAULT_EXT,
                       WT_HOLDS_IMAGE};
    if (rc == CLI_CONTINUE)
        rc = cli_check_output("decompose", &o, !o.outdir && o.nargs == 2 ? o.args[1] : NULL,
                              WT_HOLDS_IMAGE | WT_HOLDS_COEFFS);
    if (rc == CLI_CONTINUE)
        rc = pipeline_run_files(&p, &o, &plan, decompose_one, &p, stdout, NULL);
    return rc;
}
