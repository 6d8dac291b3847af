/* How inputs are read: --max-pixels --max-memory --lenient --stack. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

#define AT(field) offsetof(cli_options, field)

static int parse_max_pixels(const cli_arg *a)
{
    long long v = 0;
    int rc = cli_parse_int(a, 1, LLONG_MAX, &v);
    if (rc == CLI_CONTINUE)
        *(uint64_t *)a->field = (uint64_t)v;
    return rc;
}

/* Bytes: digits and an optional K, M, G or T (powers of 1024). */
static int parse_bytes(const cli_arg *a)
{
    static const char units[] = "KMGT";
    const char *arg = a->value;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    const char *unit = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    int shift = unit ? 10 * (int)(unit - units + 1) : 0;
    if (!isdigit((unsigned char)*arg) || errno || (*end && (!unit || end[1])) ||
        (shift && v > (ULLONG_MAX >> shift)))
        return cli_usage_error(a->cmd,
                               "invalid argument '%s' for option --%s; should be a size in "
                               "bytes, with K, M, G or T for powers of 1024",
                               arg, a->row->name);
    *(uint64_t *)a->field = (uint64_t)v << shift;
    return CLI_CONTINUE;
}

static const char *const stacks[] = {"auto", "first", "last", NULL}; /* wt_stack_layout's order */

static const cli_opt input_rows[] = {
    {"max-pixels", 0, "N", parse_max_pixels, AT(load.max_pixels),
     "refuse images of more than N pixels", "1073741824", NULL},
    {"max-memory", 0, "SIZE", parse_bytes, AT(load.max_memory),
     "refuse images that need more memory (about 20 bytes a sample),\n"
     "shared by the files at a time; K/M/G suffixes, 0: no\nlimit",
     "half the RAM", NULL},
    {"lenient", 0, NULL, cli_opt_flag, AT(load.lenient),
     "accept images that libpng/libjpeg can recover from corruption", NULL, NULL},
    {"stack", 0, "auto|first|last", cli_opt_choice, AT(load.stack),
     "a 3-D .npy is pages: (N, H, W) first or (H, W, N) last;\n"
     "auto: (H, W, C) with C <= 64 is channels",
     "auto", &(cli_choices){stacks, "auto, first or last"}},
};
const cli_group cli_group_input = CLI_GROUP(input_rows, 0);
