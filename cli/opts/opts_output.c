/* What outputs are: how they are saved (--png-level --quality --compress; the
 * codecs' save options), where batches write them (-O --suffix --ext -n) and
 * the sample type of result images (--depth). */
#include <stddef.h>
#include <string.h>

#include "options.h"

#define AT(field) offsetof(cli_options, field)

static const cli_opt save_rows[] = {
    {"png-level", 0, "N", cli_opt_int, AT(save.png_level), "PNG compression level 0-9", "1: fast",
     &(cli_int_range){0, 9}},
    {"quality", 0, "Q", cli_opt_int, AT(save.jpeg_quality), "JPEG quality 1-100", "90",
     &(cli_int_range){1, 100}},
    {"compress", 0, NULL, cli_opt_flag, AT(compress),
     ".npz output: deflated members (numpy.savez_compressed)", NULL, NULL},
};
const cli_group cli_group_save = CLI_GROUP(save_rows, 0);

static int parse_suffix(const cli_arg *a)
{
    *(const char **)a->field = a->value;
    if (strchr(a->value, '/'))
        return cli_usage_error(a->cmd, "invalid argument '%s' for option --suffix; should not "
                                       "contain '/'",
                               a->value);
    return CLI_CONTINUE;
}

/* Any extension of the format registry (src/format.c). */
static int parse_ext(const cli_arg *a)
{
    char exts[256];
    if (wt_format_from_ext(a->value) != WT_FORMAT_UNKNOWN) {
        *(const char **)a->field = a->value[0] == '.' ? a->value + 1 : a->value;
        return CLI_CONTINUE;
    }
    wt_format_list(exts, sizeof exts, WT_HOLDS_IMAGE | WT_HOLDS_COEFFS, "", ", ", " or ");
    return cli_usage_error(a->cmd, "invalid argument '%s' for option --%s; should be %s",
                           a->value, a->row->name, exts);
}

static const cli_opt batch_rows[] = {
    {"outdir", 'O', "DIR", cli_opt_string, AT(outdir),
     "write outputs into DIR (created if missing), named from the input", NULL, "a directory"},
    {"suffix", 0, "S", parse_suffix, AT(suffix), "added to the input's stem in output names",
     "none", NULL},
    {"base", 0, "DIR", cli_opt_string, AT(base),
     "with -O: outputs keep each input's path below DIR", "the current folder; a\n"
     "directory argument's files: below it", "a directory"},
    {"ext", 0, "EXT", parse_ext, AT(ext), "output type with -O or '-': {EXTS}", NULL, NULL},
    {"no-clobber", 'n', NULL, cli_opt_flag, AT(no_clobber),
     "skip outputs that exist already (resume a batch)", NULL, NULL},
};
const cli_group cli_group_batch = CLI_GROUP(batch_rows, 0);

/* 8, 16 or f32 (WT_DEPTH_F32) */
int cli_parse_depth(const cli_arg *a)
{
    static const char *const depths[] = {"8", "16", "f32", NULL};
    int choice = 0, rc = cli_parse_choice(a, depths, "8, 16 or f32", &choice);
    *(int *)a->field = choice == 2 ? WT_DEPTH_F32 : choice ? 16 : 8;
    return rc;
}

static const cli_opt result_rows[] = {
    {"depth", 0, "8|16|f32", cli_parse_depth, AT(depth),
     "result samples: 8 or 16-bit unsigned, or float32 (.tif,\n"
     ".npy); sample units kept, integers rounded and clamped",
     "the input's type", NULL},
};
const cli_group cli_group_result = CLI_GROUP(result_rows, 0);

static const cli_opt metadata_rows[] = {
    {"strip", 0, NULL, cli_opt_flag, AT(save.strip),
     "write no metadata: by default results (and coefficient\n"
     "files) keep the input's resolution, ICC profile and Exif\n"
     "where the output holds them", NULL, NULL},
};
const cli_group cli_group_metadata = CLI_GROUP(metadata_rows, 0);
