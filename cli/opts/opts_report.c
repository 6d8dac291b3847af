/* Reports and talk: --format, -q, -v, and -h that every command takes. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

#define AT(field) offsetof(cli_options, field)

static const char *const formats[] = {"text", "json", "tsv", "csv", NULL};

static const cli_opt report_rows[] = {
    {"format", 0, "F", cli_opt_choice, AT(format),
     "report format: text, json (one object a line), tsv,\n"
     "csv (RFC 4180); infinity is inf (JSON: the string \"inf\")",
     "text", &(cli_choices){formats, "text, json, tsv or csv"}},
};
const cli_group cli_group_report = CLI_GROUP(report_rows, 0);

/* R > 0, or auto (CLI_DATA_RANGE_AUTO) */
static int parse_data_range(const cli_arg *a)
{
    double *range = a->field;
    char *end = NULL;
    if (strcmp(a->value, "auto") == 0) {
        *range = CLI_DATA_RANGE_AUTO;
        return CLI_CONTINUE;
    }
    *range = strtod(a->value, &end);
    if (*a->value && *a->value != ' ' && !*end && isfinite(*range) && *range > 0.0)
        return CLI_CONTINUE;
    return cli_usage_error(a->cmd, "invalid argument '%s' for option --data-range; should be a "
                                   "positive number or auto",
                           a->value);
}

static const cli_opt psnr_rows[] = {
    {"data-range", 0, "R|auto", parse_data_range, AT(data_range),
     "PSNR's peak, as scikit-image's data_range: R, or auto\n"
     "(max - min of the reference: A, roundtrip's input)",
     "2^depth - 1; float32 samples: auto", NULL},
};
const cli_group cli_group_psnr = CLI_GROUP(psnr_rows, 0);

static const cli_opt verbosity_rows[] = {
    {"quiet", 'q', NULL, cli_opt_flag, AT(quiet),
     "no progress, summary or notes (reports and errors still show)", NULL, NULL},
    {"verbose", 'v', NULL, cli_opt_count, AT(verbose), "say which engine ran, and skipped files",
     NULL, NULL},
};
const cli_group cli_group_verbosity = CLI_GROUP(verbosity_rows, 0);

/* -h is answered by cli_parse (the help of the command whose rows it has). */
static const cli_opt help_rows[] = {
    {"help", 'h', NULL, NULL, 0, "show this help", NULL, NULL},
};
const cli_group cli_group_help = CLI_GROUP(help_rows, 0);
