/* The generic parsers of option rows (options.h): the whole argument must be
 * the value ("12abc" is refused), the message names the option and what it
 * should be. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

int cli_parse_int(const cli_arg *a, long long min, long long max, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(a->value, &end, 10);
    if (!*a->value || *a->value == ' ' || *a->value == '+' || *end || errno || v < min ||
        v > max)
        return cli_usage_error(a->cmd,
                               "invalid argument '%s' for option --%s; should be an integer "
                               "between %lld and %lld",
                               a->value, a->row->name, min, max);
    *out = v;
    return CLI_CONTINUE;
}

int cli_parse_real(const cli_arg *a, double min, double max, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(a->value, &end);
    if (!*a->value || *a->value == ' ' || *end || errno || !isfinite(v) || v < min || v > max)
        return cli_usage_error(a->cmd,
                               "invalid argument '%s' for option --%s; should be a number "
                               "between %g and %g",
                               a->value, a->row->name, min, max);
    *out = v;
    return CLI_CONTINUE;
}

int cli_parse_choice(const cli_arg *a, const char *const *names, const char *expected, int *out)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(a->value, names[i]) == 0) {
            *out = i;
            return CLI_CONTINUE;
        }
    return cli_usage_error(a->cmd, "invalid argument '%s' for option --%s; should be %s",
                           a->value, a->row->name, expected);
}

int cli_opt_flag(const cli_arg *a)
{
    *(int *)a->field = 1;
    return CLI_CONTINUE;
}

int cli_opt_count(const cli_arg *a)
{
    ++*(int *)a->field;
    return CLI_CONTINUE;
}

int cli_opt_int(const cli_arg *a)
{
    const cli_int_range *r = a->row->spec;
    long long v = 0;
    int rc = cli_parse_int(a, r->min, r->max, &v);
    if (rc == CLI_CONTINUE)
        *(int *)a->field = (int)v;
    return rc;
}

int cli_opt_real(const cli_arg *a)
{
    const cli_real_range *r = a->row->spec;
    return cli_parse_real(a, r->min, r->max, a->field);
}

int cli_opt_choice(const cli_arg *a)
{
    const cli_choices *c = a->row->spec;
    return cli_parse_choice(a, c->names, c->expected, a->field);
}

/* spec: what the argument should be ("a directory") when empty is refused, or NULL */
int cli_opt_string(const cli_arg *a)
{
    *(const char **)a->field = a->value;
    if (!*a->value && a->row->spec) /* spec: what it should be, when empty is refused */
        return cli_usage_error(a->cmd, "invalid argument '' for option --%s; should be %s",
                               a->row->name, (const char *)a->row->spec);
    return CLI_CONTINUE;
}
