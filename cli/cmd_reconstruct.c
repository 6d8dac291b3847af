/* wavetool reconstruct: the image back from a coefficient file. */
#include <strings.h>

#include "batch.h"
#include "commands.h"
#include "options.h"
#include "pipeline.h"

static const cli_command reconstruct_command = {
    "reconstruct",
    "[options] COEFFS.npz OUT\n       wavetool reconstruct [options] -O DIR COEFFS...",
    "Reconstruct an image from a coefficient file written by 'wavetool decompose'.\n"
    "The image gets the original's size, channels and bit depth (from the file's\n"
    "meta); samples are rounded and clamped. OUT is .png or .jpg ('-': standard\n"
    "output, type from --ext). With -O, each COEFFS (a file, or a directory walked\n"
    "for .npz) gives DIR/STEM[SUFFIX].EXT.",
    OPTS_ENGINE | OPTS_SAVE | OPTS_BATCH,
    1,
    -1,
};

static void reconstruct_one(void *ctx, batch_item *item)
{
    batch_item_result(item, pipeline_reconstruct(ctx, item->input, item->output));
}

/* reconstruct writes images: .png or .jpg. */
static int check_output(const cli_options *o)
{
    const char *out = o->outdir ? NULL : o->args[1];
    wt_file_format f = out ? cli_output_format(o, out) : WT_FORMAT_PNG;
    if (o->ext && strcasecmp(o->ext, "npz") == 0)
        return cli_usage_error("reconstruct", "--ext npz: reconstruct writes images (png, jpg)");
    if (f == WT_FORMAT_PNG || f == WT_FORMAT_JPEG)
        return CLI_CONTINUE;
    return cli_usage_error("reconstruct", "%s: unknown output type; use .png, .jpg or .jpeg",
                           out);
}

int cmd_reconstruct(int argc, char **argv)
{
    cli_options o;
    pipeline p = {0};
    int rc = cli_parse(&reconstruct_command, argc, argv, &o);
    batch_plan plan = {"reconstruct", 1, NULL, o.outdir, o.suffix, o.ext, "png", batch_npz_exts};
    if (rc == CLI_CONTINUE && (o.outdir || o.nargs == 2))
        rc = check_output(&o);
    if (rc == CLI_CONTINUE)
        rc = pipeline_run_files(&p, &o, &plan, reconstruct_one, &p, stdout, NULL);
    return rc;
}
