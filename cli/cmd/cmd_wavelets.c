/* wavetool wavelets: the wavelets known, with family, length, kind, lifting. */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "options.h"
#include "report.h"

/* "9/7" for the JPEG 2000 family, else the filter length. */
static void support_text(const wt_wavelet *w, char *buf, size_t size)
{
    if (w->kind == WT_KIND_JPEG2000)
        snprintf(buf, size, "%d/%d", w->support_lo, w->support_hi);
    else
        snprintf(buf, size, "%d", w->filter_len);
}

/* {"name": ..., "lifting": true} as a JSON line. */
static void json_line(strbuf *sb, const wt_wavelet *w, const char *support, const char *type)
{
    wt_json j;
    wt_json_init(&j, 0);
    wt_json_begin_object(&j);
    wt_json_key_string(&j, "name", w->name);
    wt_json_key_string(&j, "family", w->family);
    wt_json_key_int(&j, "filter_length", w->filter_len);
    wt_json_key_string(&j, "support", support);
    wt_json_key_string(&j, "type", type);
    wt_json_key(&j, "lifting");
    wt_json_bool(&j, w->lifting != NULL);
    wt_json_end_object(&j);
    wt_json_newline(&j);
    char *text = wt_json_finish(&j);
    if (text)
        sb_printf(sb, "%s", text);
    else
        sb->failed = 1;
    free(text);
}

static void wavelet_line(strbuf *sb, report_format f, const wt_wavelet *w)
{
    char support[32];
    const char *type = w->orthogonal ? "orthogonal" : "biorthogonal";
    const char *lifting = w->lifting ? "yes" : "no";
    support_text(w, support, sizeof support);
    if (f == REPORT_TEXT) {
        sb_printf(sb, "%-10s %-22s %6d %-7s %-13s %s\n", w->name, w->family, w->filter_len,
                  support, type, lifting);
    } else if (report_is_table(f)) {
        sb_field(sb, f, w->name);
        sb_row_printf(sb, f, "\t");
        sb_field(sb, f, w->family);
        sb_row_printf(sb, f, "\t%d\t%s\t%s\t%s\n", w->filter_len, support, type, lifting);
    } else {
        json_line(sb, w, support, type);
    }
}

static int run_wavelets(const cli_options *o)
{
    strbuf sb = {0};
    if (o->format == REPORT_TEXT)
        sb_printf(&sb, "%-10s %-22s %6s %-7s %-13s %s\n", "name", "family", "length", "support",
                  "type", "lifting");
    else if (report_is_table(o->format))
        sb_row_printf(&sb, o->format, "name\tfamily\tfilter_length\tsupport\ttype\tlifting\n");
    for (size_t i = 0; i < wt_wavelet_count(); i++)
        wavelet_line(&sb, o->format, wt_wavelet_at(i));
    char *text = sb_finish(&sb);
    if (!text) {
        fputs("wavetool: out of memory\n", stderr);
        return EXIT_SOME_FAILED;
    }
    fputs(text, stdout);
    free(text);
    return EXIT_ALL_DONE;
}

const cli_command cmd_wavelets = {
    .name = "wavelets",
    .synopsis = "[--format text|json|tsv]",
    .tagline = "names, families, lengths, lifting yes/no",
    .summary =
        "List the wavelets: name (as -w takes it), family, filter length (PyWavelets'\n"
        "dec_len; JPEG 2000 wavelets also give their true lengths, e.g. 9/7),\n"
        "orthogonal or biorthogonal, and whether a lifting scheme exists\n"
        "(--method lifting).",
    .groups = (const cli_group *const[]){&cli_group_report, NULL},
    .min_args = 0,
    .max_args = 0,
    .run = run_wavelets,
};
