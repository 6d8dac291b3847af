/* The transform's options, shared by the commands that transform images:
 * -w -l -m --method --transform, swt's --norm --start-level --all-approx and
 * starlet's --border. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

#define AT(field) offsetof(cli_options, field)

static int parse_wavelet(const cli_arg *a)
{
    const wt_wavelet *w = wt_wavelet_find(a->value);
    if (!w)
        return cli_usage_error(a->cmd, "unknown wavelet '%s' (did you mean '%s'?)", a->value,
                               wt_wavelet_suggest(a->value));
    *(const wt_wavelet **)a->field = w;
    return CLI_CONTINUE;
}

/* N or max: sets levels_given, levels_max and params.levels. */
int cli_parse_levels(const cli_arg *a)
{
    cli_options *o = a->o;
    o->levels_given = 1;
    o->levels_max = strcmp(a->value, "max") == 0;
    if (o->levels_max)
        return CLI_CONTINUE;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(a->value, &end, 10);
    if (!*a->value || *a->value == ' ' || *a->value == '+' || *end || errno || v < 0 ||
        v > WT_MAX_LEVELS)
        return cli_usage_error(a->cmd,
                               "invalid argument '%s' for option --%s; should be an integer "
                               "between 0 and %d, or max",
                               a->value, a->row->name, WT_MAX_LEVELS);
    o->params.levels = (int)v;
    return CLI_CONTINUE;
}

/* A library parser (mode, method, transform, border) whose message is the usage error. */
static int library_choice(const cli_arg *a, wt_status st)
{
    return st == WT_OK ? CLI_CONTINUE : cli_usage_error(a->cmd, "%s", wt_error_message());
}

static int parse_mode(const cli_arg *a)
{
    return library_choice(a, wt_mode_parse(a->value, a->field));
}

static int parse_method(const cli_arg *a)
{
    return library_choice(a, wt_method_parse(a->value, a->field));
}

int cli_parse_transform(const cli_arg *a)
{
    return library_choice(a, wt_transform_parse(a->value, &a->o->transform));
}

int cli_parse_border(const cli_arg *a)
{
    a->o->border_given = 1;
    return library_choice(a, wt_border_parse(a->value, &a->o->border));
}

#define WAVELET_ROW \
    {"wavelet", 'w', "NAME", parse_wavelet, AT(params.wavelet), \
     "wavelet; see 'wavetool wavelets'", "haar", NULL}
#define MODE_ROW \
    {"mode", 'm', "MODE", parse_mode, AT(params.mode), \
     "signal extension: zero, constant, symmetric, reflect,\nperiodic, smooth, antisymmetric, " \
     "antireflect, periodization", "symmetric", NULL}
#define METHOD_ROW \
    {"method", 0, "M", parse_method, AT(params.method), "auto, conv or lifting", "auto", NULL}
#define TRANSFORM_ROW \
    {"transform", 0, "T", cli_parse_transform, 0, "{TRANSFORMS};\nsee wavetool(1)", "dwt", NULL}

static const cli_opt wavelet_rows[] = {
    WAVELET_ROW,
    {"levels", 'l', "N|max", cli_parse_levels, 0,
     "levels, fewer if the image is small; max: the deepest the\nimage allows", "3", NULL},
    MODE_ROW,
    METHOD_ROW,
    TRANSFORM_ROW,
};
/* the rows without -l, for commands whose -l has its own default (denoise) */
static const cli_opt wavelet_rows_no_levels[] = {WAVELET_ROW, MODE_ROW, METHOD_ROW, TRANSFORM_ROW};
const cli_group cli_group_transform = CLI_GROUP(wavelet_rows, 0);
const cli_group cli_group_wavelet = CLI_GROUP(wavelet_rows_no_levels, 0);

static const cli_opt swt_rows[] = {
    {"norm", 0, NULL, cli_opt_flag, AT(norm), "swt: pywt's norm=True (filters scaled by 1/sqrt 2)",
     NULL, NULL},
    {"start-level", 0, "N", cli_opt_int, AT(start_level), "swt: pywt's start_level", "0",
     &(cli_int_range){0, WT_MAX_LEVELS - 1}},
    {"all-approx", 0, NULL, cli_opt_flag, AT(all_approx),
     "swt: keep cA of every level (.npz cA1..; pywt trim_approx=False)", NULL, NULL},
};
const cli_group cli_group_swt = CLI_GROUP(swt_rows, 0);

static const cli_opt starlet_rows[] = {
    {"border", 0, "B", cli_parse_border, 0, "starlet border: mirror, periodic, nearest", "mirror",
     NULL},
};
const cli_group cli_group_starlet = CLI_GROUP(starlet_rows, 0);
