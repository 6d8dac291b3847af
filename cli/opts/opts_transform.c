/* The transform's options, shared by the commands that transform images:
 * -w -l -m --method --transform, swt's --norm --start-level --all-approx,
 * starlet's --border and packet's --basis --cost; which go with a kind and
 * --transform's choices come from the transform registry (wavetool_hooks.h). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
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

static int parse_basis(const cli_arg *a)
{
    a->o->basis_given = 1;
    return library_choice(a, wt_packet_rule_parse(a->value, &a->o->basis));
}

static int parse_cost(const cli_arg *a)
{
    a->o->cost_given = 1;
    return library_choice(a, wt_packet_cost_parse(a->value, &a->o->cost));
}

/* The first option given that @p c does not take ("--norm"), and its
 * parameter bit; NULL when every one applies. */
static const char *inapplicable_option(const wt_transform_class *c, const cli_options *o,
                                       unsigned *param)
{
    const struct {
        int given;
        unsigned param;
        const char *name;
    } rows[] = {
        {o->norm, WT_TPARAM_NORM, "--norm"},
        {o->start_level != 0, WT_TPARAM_START_LEVEL, "--start-level"},
        {o->all_approx, WT_TPARAM_ALL_APPROX, "--all-approx"},
        {o->border_given, WT_TPARAM_BORDER, "--border"},
        {o->layers, WT_TPARAM_LAYERS, "--layers"},
        {o->basis_given, WT_TPARAM_BASIS, "--basis"},
        {o->cost_given, WT_TPARAM_BASIS, "--cost"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].given && !(c->params & rows[i].param)) {
            *param = rows[i].param;
            return rows[i].name;
        }
    return NULL;
}

/* " (swt is periodic; dwt takes -m)": why the kinds without --border lack it. */
static void border_notes(char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; wt_transform_at(i); i++) {
        const wt_transform_class *c = wt_transform_at(i);
        size_t n = strlen(buf);
        if (c->no_border && n < size)
            snprintf(buf + n, size - n, "%s%s %s", n ? "; " : " (", c->name, c->no_border);
    }
    if (buf[0] && strlen(buf) + 1 < size)
        strcat(buf, ")");
}

/* The options of a transform go with their transform (its class's params). */
int cli_check_transform_options(const cli_command *cmd, const cli_options *o)
{
    const wt_transform_class *c = wt_transform_class_of(o->transform);
    char msg[200], list[96], notes[96] = "";
    if (wt_transform_refusal(c, cmd->name, cmd->needs, msg, sizeof msg))
        return cli_usage_error(cmd->name, "%s", msg);
    unsigned param;
    const char *option = inapplicable_option(c, o, &param);
    if (option) {
        wt_transform_names(param, 0, ", ", " or ", list, sizeof list);
        if (param == WT_TPARAM_BORDER)
            border_notes(notes, sizeof notes);
        return cli_usage_error(cmd->name, "%s applies to --transform %s%s", option, list, notes);
    }
    if (c->filter_banks_only && o->params.wavelet->kind != WT_KIND_FILTER_BANK)
        return cli_usage_error(cmd->name, "--transform %s: %s is a JPEG 2000 wavelet; use a "
                                          "filter-bank one (bior4.4 for cdf97, bior2.2 for "
                                          "legall53)",
                               c->name, o->params.wavelet->name);
    return CLI_CONTINUE;
}

/* --transform's choices for a command needing @p needs (WT_THOOK_*), each with
 * its help line, in the registry's order: "dwt, swt (...) or starlet (...)". */
const char *cli_transform_choices(unsigned needs, char *buf, size_t size)
{
    int count = 0, k = 0;
    for (int i = 0; wt_transform_at(i); i++)
        count += wt_transform_has(wt_transform_at(i), needs);
    buf[0] = '\0';
    for (int i = 0; wt_transform_at(i); i++) {
        const wt_transform_class *c = wt_transform_at(i);
        size_t n = strlen(buf);
        if (!wt_transform_has(c, needs) || n >= size)
            continue;
        snprintf(buf + n, size - n, "%s%s", k == 0 ? "" : k + 1 == count ? " or " : ", ", c->help);
        k++;
    }
    return buf;
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

static const cli_opt packet_rows[] = {
    {"basis", 0, "B", parse_basis, 0,
     "packet basis: full (every node of level L), best\n(MATLAB's besttree on --cost) or level:N",
     "full", NULL},
    {"cost", 0, "C", parse_cost, 0,
     "packet cost: shannon, logenergy, threshold:T or norm:P\n(MATLAB's wentropy)", "shannon",
     NULL},
};
const cli_group cli_group_packet = CLI_GROUP(packet_rows, 0);
