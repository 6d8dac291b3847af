/* Volumes: --volume makes a stack or a 3-D array one (z, y, x) array,
 * --axes chooses the axes it is transformed along. */
#include <stddef.h>

#include "options.h"

#define AT(field) offsetof(cli_options, field)

static int parse_axes(const cli_arg *a)
{
    cli_options *o = a->o;
    if (wt_volume_parse_axes(a->value, o->axes, &o->naxes) != WT_OK)
        return cli_usage_error(a->cmd, "%s", wt_error_message());
    return CLI_CONTINUE;
}

static const cli_opt volume_rows[] = {
    {"volume", 0, NULL, cli_opt_flag, AT(volume),
     "a multi-page TIFF or 3-D .npy is one (z, y, x) volume,\n"
     "transformed along all its axes (pywt.wavedecn, swtn)", NULL, NULL},
    {"axes", 0, "LIST", parse_axes, AT(axes),
     "the volume's axes to transform, in order: 0 (z), 1 (y),\n"
     "2 (x); 1,2 is each page's 2-D transform", "all three", NULL},
};
const cli_group cli_group_volume = CLI_GROUP(volume_rows, 0);
