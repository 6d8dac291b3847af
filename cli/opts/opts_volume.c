/* Volumes: --volume makes a stack or a 3-D array one (z, y, x) array,
 * --axes chooses the axes it is transformed along, --slice what its mosaic
 * shows. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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

/* z=N (or N): that slice; mip: the projection. */
static int parse_slice(const cli_arg *a)
{
    const char *v = strncmp(a->value, "z=", 2) == 0 ? a->value + 2 : a->value;
    char *end = NULL;
    errno = 0;
    long long n = strcmp(a->value, "mip") == 0 ? -1 : strtoll(v, &end, 10);
    if (n == -1 && strcmp(a->value, "mip") == 0) {
        a->o->slice = -1;
        return CLI_CONTINUE;
    }
    if (!*v || *v == '-' || *v == '+' || *v == ' ' || *end || errno || n > (1ll << 30))
        return cli_usage_error(a->cmd, "invalid argument '%s' for option --slice; should be "
                                       "z=N (a page, from 0) or mip",
                               a->value);
    a->o->slice = (long)n;
    return CLI_CONTINUE;
}

static const cli_opt view_rows[] = {
    {"slice", 0, "z=N|mip", parse_slice, AT(slice),
     "a --volume's mosaic: every band at page N (scaled to the\n"
     "band's depth), or its maximum-intensity projection along z",
     "the middle page", NULL},
};
const cli_group cli_group_volume_view = CLI_GROUP(view_rows, 0);
