/* Quality reports in text, JSON lines, TSV and CSV. */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
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

/* ---- tables ----------------------------------------------------------------- */

int report_is_table(report_format f)
{
    return f == REPORT_TSV || f == REPORT_CSV;
}

/* The tabs and line feeds appended since @p start as CSV's commas and CRLF. */
static void csv_separators(strbuf *sb, size_t start)
{
    char *tsv = sb->failed ? NULL : strndup(sb->data + start, sb->len - start);
    if (!tsv) {
        sb->failed = 1;
        return;
    }
    sb->len = start;
    for (const char *c = tsv; *c; c++)
        sb_printf(sb, "%s", *c == '\t' ? "," : *c == '\n' ? "\r\n" : (char[]){*c, '\0'});
    free(tsv);
}

void report_table_header(report_format f, const char *columns, FILE *out)
{
    if (!report_is_table(f))
        return;
    strbuf sb = {0};
    sb_row_printf(&sb, f, "%s", columns);
    char *line = sb_finish(&sb);
    if (line)
        fputs(line, out);
    free(line);
    fflush(out);
}

void sb_row_printf(strbuf *sb, report_format f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    size_t start = sb->len;
    if (vasprintf(&text, fmt, ap) < 0)
        sb->failed = 1;
    else
        sb_printf(sb, "%s", text);
    va_end(ap);
    free(text);
    if (f == REPORT_CSV)
        csv_separators(sb, start);
}

/* RFC 4180: quoted when it holds a separator, a quote or a line end (and
 * other control characters, so that no reader splits on them), quotes doubled. */
static void csv_field(strbuf *sb, const char *s)
{
    int quoted = 0;
    for (const unsigned char *c = (const unsigned char *)s; *c && !quoted; c++)
        quoted = *c == ',' || *c == '"' || *c < 0x20 || *c == 0x7f;
    if (!quoted) {
        sb_printf(sb, "%s", s);
        return;
    }
    sb_printf(sb, "\"");
    for (const char *c = s; *c; c++)
        sb_printf(sb, "%s", *c == '"' ? "\"\"" : (char[]){*c, '\0'});
    sb_printf(sb, "\"");
}

/* Tabs, line ends, backslashes and every other control character (ESC...)
 * escaped as the text output escapes them: one field on one line. */
static void tsv_field(strbuf *sb, const char *s)
{
    char shown[8];
    for (; *s; s++) {
        char one[2] = {*s, '\0'};
        sb_printf(sb, "%s", *s == '\\' ? "\\\\" : wt_escape_controls(shown, sizeof shown, one));
    }
}

void sb_field(strbuf *sb, report_format f, const char *s)
{
    if (f == REPORT_CSV)
        csv_field(sb, s);
    else
        tsv_field(sb, s);
}

size_t report_row_length(report_format f, const char *rows, size_t *next)
{
    int quoted = 0;
    size_t n = 0;
    for (; rows[n] && (rows[n] != '\n' || quoted); n++)
        quoted ^= f == REPORT_CSV && rows[n] == '"';
    *next = n + (rows[n] == '\n');
    return n > 0 && f == REPORT_CSV && rows[n] == '\n' && rows[n - 1] == '\r' ? n - 1 : n;
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

void report_sample_range(const wt_image *img, double *lo, double *hi)
{
    size_t n = (size_t)img->width * img->height * (size_t)img->channels;
    double min = INFINITY, max = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double v = img->bit_depth == 8    ? ((const uint8_t *)img->pixels)[i]
                   : img->bit_depth == 16 ? ((const uint16_t *)img->pixels)[i]
                                          : ((const float *)img->pixels)[i];
        min = v < min ? v : min;
        max = v > max ? v : max;
    }
    *lo = min <= max ? min : 0.0;
    *hi = min <= max ? max : 0.0;
}

wt_status report_psnr_peak(const cli_options *o, const wt_image *ref, double fallback,
                           double *peak)
{
    double lo, hi;
    *peak = o->data_range > 0.0 ? o->data_range : fallback;
    if (o->data_range != CLI_DATA_RANGE_AUTO)
        return WT_OK;
    report_sample_range(ref, &lo, &hi);
    *peak = hi - lo;
    if (hi > lo && isfinite(*peak))
        return WT_OK;
    return wt_error_set(WT_ERR_INVALID, "--data-range auto: the reference has no range "
                                        "(every sample is %g); give --data-range R",
                        lo);
}

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

/* A table's field: a separator and the number. */
static void table_number(strbuf *sb, report_format f, double v)
{
    sb_row_printf(sb, f, "\t");
    sb_number(sb, f, v);
}

/* A measure's mean and one column per channel (empty where the image has
 * fewer than 4). */
static void table_measure(strbuf *sb, report_format f, double mean, const double *per,
                          int channels)
{
    table_number(sb, f, mean);
    for (int c = 0; c < 4; c++) {
        sb_row_printf(sb, f, "\t");
        if (c < channels)
            sb_number(sb, f, per[c]);
    }
}

/* A TSV or CSV row: report_header's columns (the page column comes from
 * cli/pages.c). */
static void table_line(strbuf *sb, const report_spec *s, const char *a, const char *b,
                       double bpp, const wt_quality *q, const wt_image *layout, double kept)
{
    report_format f = s->format;
    sb_field(sb, f, a);
    if (s->pair) {
        sb_row_printf(sb, f, "\t");
        sb_field(sb, f, b);
    }
    sb_row_printf(sb, f, "\t%u\t%u\t%d\t%d", layout->width, layout->height, layout->channels,
                  layout->bit_depth);
    if (s->psnr)
        table_measure(sb, f, q->psnr_mean, q->psnr, q->channels);
    if (s->mse)
        table_measure(sb, f, q->mse_mean, q->mse, q->channels);
    if (s->kept)
        table_number(sb, f, kept);
    if (s->qstep > 0.0) {
        table_number(sb, f, s->qstep);
        table_number(sb, f, bpp);
    }
    sb_row_printf(sb, f, "\n");
}

void report_header(const report_spec *s, FILE *out)
{
    strbuf columns = {0};
    sb_printf(&columns, "%s\twidth\theight\tchannels\tbit_depth", s->pair ? "a\tb" : "file");
    if (s->psnr)
        sb_printf(&columns, "\tpsnr\tpsnr_1\tpsnr_2\tpsnr_3\tpsnr_4");
    if (s->mse)
        sb_printf(&columns, "\tmse\tmse_1\tmse_2\tmse_3\tmse_4");
    if (s->kept)
        sb_printf(&columns, "\tkept");
    if (s->qstep > 0.0)
        sb_printf(&columns, "\tqstep\tbpp");
    sb_printf(&columns, "\tpage\n"); /* a stack's page (cli/pages.c); empty for one image */
    char *text = sb_finish(&columns);
    if (text)
        report_table_header(s->format, text, out);
    free(text);
}

char *report_quality_rate(const report_spec *s, const report_page *a, const char *b,
                          const wt_image *layout, const wt_quality *q, double kept, double bpp)
{
    strbuf sb = {0};
    switch (s->format) {
    case REPORT_TEXT: text_line(&sb, s, a->shown, b, bpp, q, layout, kept); break;
    case REPORT_JSON: return json_line(s, a, b, bpp, q, layout, kept);
    case REPORT_TSV:
    case REPORT_CSV: table_line(&sb, s, a->shown, b, bpp, q, layout, kept); break;
    }
    return sb_finish(&sb);
}

char *report_quality(const report_spec *s, const report_page *a, const char *b,
                     const wt_image *layout, const wt_quality *q, double kept)
{
    return report_quality_rate(s, a, b, layout, q, kept, 0.0);
}
