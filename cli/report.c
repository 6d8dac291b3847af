/* Quality reports in text, JSON lines and TSV. */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void sb_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || sb->failed) {
        sb->failed = 1;
        return;
    }
    if (sb->len + (size_t)n + 1 > sb->cap) {
        size_t cap = (sb->len + (size_t)n + 1) * 2;
        char *grown = realloc(sb->data, cap);
        if (!grown) {
            sb->failed = 1;
            return;
        }
        sb->data = grown;
        sb->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

/* "key":"name", and for a name that is not UTF-8 also "key_bytes": the exact
 * bytes, percent-encoded (%XX for bytes outside printable ASCII, and '%'). */
void report_json_name(wt_json *j, const char *key, const char *name)
{
    wt_json_key_string(j, key, name);
    if (wt_json_utf8_valid(name))
        return;
    strbuf bytes = {0};
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p >= 0x7f || *p == '%' || *p == '"' || *p == '\\')
            sb_printf(&bytes, "%%%02X", *p);
        else
            sb_printf(&bytes, "%c", *p);
    char key_bytes[64];
    snprintf(key_bytes, sizeof key_bytes, "%s_bytes", key);
    char *text = sb_finish(&bytes);
    if (text)
        wt_json_key_string(j, key_bytes, text);
    else
        j->failed = 1;
    free(text);
}

void report_json_begin(wt_json *j, const report_page *page)
{
    wt_json_init(j, 0);
    wt_json_begin_object(j);
    if (page && page->pages > 1)
        wt_json_key_uint(j, "page", page->page);
}

char *report_json_end(wt_json *j)
{
    wt_json_end_object(j);
    wt_json_newline(j);
    return wt_json_finish(j);
}

void report_json_print(wt_json *j, FILE *out)
{
    char *text = report_json_end(j);
    if (text)
        fputs(text, out);
    free(text);
}

static void json_value(wt_json *j, double v)
{
    if (isinf(v))
        wt_json_string(j, v < 0 ? "-inf" : "inf");
    else
        wt_json_number(j, "%.10g", v);
}

void report_json_number(wt_json *j, const char *key, double v)
{
    wt_json_key(j, key);
    json_value(j, v);
}

/* A file name in a text line: control characters escaped. */
static void sb_text_name(strbuf *sb, const char *name)
{
    char shown[4096 * 4 + 1];
    sb_printf(sb, "%s", wt_escape_controls(shown, sizeof shown, name));
}

/* Tabs, line ends, backslashes and every other control character (ESC...)
 * escaped as the text output escapes them: one field on one line. */
void sb_tsv_field(strbuf *sb, const char *s)
{
    char shown[8];
    for (; *s; s++) {
        char one[2] = {*s, '\0'};
        sb_printf(sb, "%s", *s == '\\' ? "\\\\" : wt_escape_controls(shown, sizeof shown, one));
    }
}

void sb_number(strbuf *sb, report_format f, double v)
{
    if (isinf(v))
        sb_printf(sb, "%sinf", v < 0 ? "-" : "");
    else if (f == REPORT_TEXT)
        sb_printf(sb, "%.2f", v);
    else
        sb_printf(sb, "%.10g", v);
}

char *sb_finish(strbuf *sb)
{
    if (sb->failed) {
        free(sb->data);
        return NULL;
    }
    if (!sb->data)
        sb_printf(sb, "%s", "");
    return sb->failed ? NULL : sb->data;
}

/* ---- quality ------------------------------------------------------------- */

static const char *channel_name(const wt_image *layout, int c)
{
    static const char *const names[4][4] = {
        {"Y"}, {"Y", "A"}, {"R", "G", "B"}, {"R", "G", "B", "A"}};
    static const char *const planes[WT_MAX_CHANNELS] = {
        "0",  "1",  "2",  "3",  "4",  "5",  "6",  "7",  "8",  "9",  "10", "11", "12",
        "13", "14", "15", "16", "17", "18", "19", "20", "21", "22", "23", "24", "25",
        "26", "27", "28", "29", "30", "31", "32", "33", "34", "35", "36", "37", "38",
        "39", "40", "41", "42", "43", "44", "45", "46", "47", "48", "49", "50", "51",
        "52", "53", "54", "55", "56", "57", "58", "59", "60", "61", "62", "63"};
    int n = layout->channels;
    if (n > 4 && n <= WT_MAX_CHANNELS && c < n) /* extra channels: by number */
        return planes[c];
    return n >= 1 && n <= 4 && c < n ? names[n - 1][c] : "?";
}

/* PSNR with two decimals (or inf), MSE with six significant digits. */
static void text_value(strbuf *sb, int is_psnr, double v)
{
    if (is_psnr)
        sb_number(sb, REPORT_TEXT, v);
    else
        sb_printf(sb, "%.6g", v);
}

/* "PSNR 40.12 dB (R 41.00, G 39.50, B 40.00)"; one channel: no parentheses. */
static void text_measure(strbuf *sb, int is_psnr, double mean, const double *per,
                         const wt_image *layout, int channels)
{
    sb_printf(sb, "%s ", is_psnr ? "PSNR" : "MSE");
    text_value(sb, is_psnr, mean);
    sb_printf(sb, "%s", is_psnr ? " dB" : "");
    for (int c = 0; channels > 1 && c < channels; c++) {
        sb_printf(sb, "%s%s ", c ? ", " : " (", channel_name(layout, c));
        text_value(sb, is_psnr, per[c]);
    }
    if (channels > 1)
        sb_printf(sb, ")");
}

static void text_line(strbuf *sb, const report_spec *s, const char *a, const char *b, double bpp,
                      const wt_quality *q, const wt_image *layout, double kept)
{
    sb_text_name(sb, a);
    if (s->pair) {
        sb_printf(sb, " vs ");
        sb_text_name(sb, b);
    }
    sb_printf(sb, ": ");
    if (s->psnr)
        text_measure(sb, 1, q->psnr_mean, q->psnr, layout, q->channels);
    if (s->psnr && s->mse)
        sb_printf(sb, ", ");
    if (s->mse)
        text_measure(sb, 0, q->mse_mean, q->mse, layout, q->channels);
    if (s->kept)
        sb_printf(sb, ", kept %.4g%% of detail coefficients", 100.0 * kept);
    if (s->qstep > 0.0)
        sb_printf(sb, ", qstep %g: %.4f bpp", s->qstep, bpp);
    sb_printf(sb, "\n");
}

/* A measure's mean and per-channel values: "key" and "key_channels" (an array). */
static void json_measure(wt_json *j, const char *key, double mean, const double *per,
                         int channels)
{
    char key_channels[32];
    snprintf(key_channels, sizeof key_channels, "%s_channels", key);
    report_json_number(j, key, mean);
    wt_json_key(j, key_channels);
    wt_json_begin_array(j);
    for (int c = 0; c < channels; c++)
        json_value(j, per[c]);
    wt_json_end_array(j);
}

/* A JSON line: report_header's fields, the page first for a stack's page. */
static char *json_line(const report_spec *s, const report_page *a, const char *b, double bpp,
                       const wt_quality *q, const wt_image *layout, double kept)
{
    wt_json j;
    report_json_begin(&j, a);
    report_json_name(&j, s->pair ? "a" : "file", a->shown);
    if (s->pair)
        report_json_name(&j, "b", b);
    wt_json_key_uint(&j, "width", layout->width);
    wt_json_key_uint(&j, "height", layout->height);
    wt_json_key_int(&j, "channels", layout->channels);
    wt_json_key_int(&j, "bit_depth", layout->bit_depth);
    if (s->psnr)
        json_measure(&j, "psnr", q->psnr_mean, q->psnr, q->channels);
    if (s->mse)
        json_measure(&j, "mse", q->mse_mean, q->mse, q->channels);
    if (s->kept)
        report_json_number(&j, "kept", kept);
    if (s->qstep > 0.0) {
        report_json_number(&j, "qstep", s->qstep);
        report_json_number(&j, "bpp", bpp);
    }
    return report_json_end(&j);
}

/* A TSV field: a tab and the number. */
static void tsv_number(strbuf *sb, double v)
{
    sb_printf(sb, "\t");
    sb_number(sb, REPORT_TSV, v);
}

/* A measure's mean and one column per channel (empty where the image has
 * fewer than 4). */
static void tsv_measure(strbuf *sb, double mean, const double *per, int channels)
{
    tsv_number(sb, mean);
    for (int c = 0; c < 4; c++) {
        sb_printf(sb, "\t");
        if (c < channels)
            sb_number(sb, REPORT_TSV, per[c]);
    }
}

/* A TSV line: report_header's columns (the page column comes from cli/pages.c). */
static void tsv_line(strbuf *sb, const report_spec *s, const char *a, const char *b, double bpp,
                     const wt_quality *q, const wt_image *layout, double kept)
{
    sb_tsv_field(sb, a);
    if (s->pair) {
        sb_printf(sb, "\t");
        sb_tsv_field(sb, b);
    }
    sb_printf(sb, "\t%u\t%u\t%d\t%d", layout->width, layout->height, layout->channels,
              layout->bit_depth);
    if (s->psnr)
        tsv_measure(sb, q->psnr_mean, q->psnr, q->channels);
    if (s->mse)
        tsv_measure(sb, q->mse_mean, q->mse, q->channels);
    if (s->kept)
        tsv_number(sb, kept);
    if (s->qstep > 0.0) {
        tsv_number(sb, s->qstep);
        tsv_number(sb, bpp);
    }
    sb_printf(sb, "\n");
}

void report_header(const report_spec *s, FILE *out)
{
    if (s->format != REPORT_TSV)
        return;
    fputs(s->pair ? "a\tb" : "file", out);
    fputs("\twidth\theight\tchannels\tbit_depth", out);
    if (s->psnr)
        fputs("\tpsnr\tpsnr_1\tpsnr_2\tpsnr_3\tpsnr_4", out);
    if (s->mse)
        fputs("\tmse\tmse_1\tmse_2\tmse_3\tmse_4", out);
    if (s->kept)
        fputs("\tkept", out);
    if (s->qstep > 0.0)
        fputs("\tqstep\tbpp", out);
    fputs("\tpage", out); /* a stack's page (cli/pages.c); empty for one image */
    fputc('\n', out);
    fflush(out);
}

char *report_quality_rate(const report_spec *s, const report_page *a, const char *b,
                          const wt_image *layout, const wt_quality *q, double kept, double bpp)
{
    strbuf sb = {0};
    switch (s->format) {
    case REPORT_TEXT: text_line(&sb, s, a->shown, b, bpp, q, layout, kept); break;
    case REPORT_JSON: return json_line(s, a, b, bpp, q, layout, kept);
    case REPORT_TSV: tsv_line(&sb, s, a->shown, b, bpp, q, layout, kept); break;
    }
    return sb_finish(&sb);
}

char *report_quality(const report_spec *s, const report_page *a, const char *b,
                     const wt_image *layout, const wt_quality *q, double kept)
{
    return report_quality_rate(s, a, b, layout, q, kept, 0.0);
}
