/* The --transform option and the options that go with a kind, from the
 * transform registry (wavetool_hooks.h): the choices of --help, and which
 * options a kind takes. */
#include "transform_options.h"

#include <stdio.h>
#include <string.h>

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
