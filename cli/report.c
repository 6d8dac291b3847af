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

/* Length of the valid UTF-8 sequence at @p p (shortest form, no surrogates,
 * at most U+10FFFF), or 0. */
static int utf8_length(const unsigned char *p)
{
    int n = p[0] < 0x80 ? 1 : p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : (p[0] & 0xf0) == 0xe0 ? 3
            : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((n == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0))) ||
        (n == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))))
        return 0;
    return n;
}

static int is_utf8(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = utf8_length(p);
        if (!n)
            return 0;
        p += n;
    }
    return 1;
}

/* Bytes that are not UTF-8 become U+FFFD: the line stays valid JSON. */
void sb_json_string(strbuf *sb, const char *s)
{
    sb_printf(sb, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = utf8_length(p);
        if (*p == '"' || *p == '\\')
            sb_printf(sb, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            sb_printf(sb, "\\u%04x", *p);
        else if (!n)
            sb_printf(sb, "\\ufffd");
        else
            sb_printf(sb, "%.*s", n, (const char *)p);
        p += n ? n : 1;
    }
    sb_printf(sb, "\"");
}

/* "key":"name", and for a name that is not UTF-8 also "key_bytes": the exact
 * bytes, percent-encoded (%XX for bytes outside printable ASCII, and '%'). */
static void sb_json_name(strbuf *sb, const char *key, const char *name)
{
    sb_printf(sb, "\"%s\":", key);
    sb_json_string(sb, name);
    if (is_utf8(name))
        return;
    sb_printf(sb, ",\"%s_bytes\":\"", key);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p >= 0x7f || *p == '%' || *p == '"' || *p == '\\')
            sb_printf(sb, "%%%02X", *p);
        else
            sb_printf(sb, "%c", *p);
    sb_printf(sb, "\"");
}

/* A file name in a text line: control characters escaped. */
static void sb_text_name(strbuf *sb, const char *name)
{
    char shown[4096 * 4 + 1];
    sb_printf(sb, "%s", wt_escape_controls(shown, sizeof shown, name));
}

void sb_escaped(strbuf *sb, const char *s, const char *chars, const char *const *with)
{
    for (; *s; s++) {
        const char *hit = strchr(chars, *s);
        if (hit)
            sb_printf(sb, "%s", with[hit - chars]);
        else
            sb_printf(sb, "%c", *s);
    }
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
        sb_printf(sb, f == REPORT_JSON ? "\"%sinf\"" : "%sinf", v < 0 ? "-" : "");
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

static void json_array(strbuf *sb, const double *v, int n)
{
    sb_printf(sb, "[");
    for (int i = 0; i < n; i++) {
        sb_printf(sb, "%s", i ? "," : "");
        sb_number(sb, REPORT_JSON, v[i]);
    }
    sb_printf(sb, "]");
}

/* A number field: JSON ',"key":v', TSV a tab and v. */
static void field_number(strbuf *sb, report_format f, const char *key, double v)
{
    if (f == REPORT_JSON)
        sb_printf(sb, ",\"%s\":", key);
    else
        sb_printf(sb, "\t");
    sb_number(sb, f, v);
}

/* A measure's mean and per-channel values: JSON "key" and "key_channels" (an
 * array); TSV the mean and one column per channel (empty where the image has
 * fewer than 4). */
static void field_measure(strbuf *sb, report_format f, const char *key, double mean,
                          const double *per, int channels)
{
    field_number(sb, f, key, mean);
    if (f == REPORT_JSON) {
        sb_printf(sb, ",\"%s_channels\":", key);
        json_array(sb, per, channels);
        return;
    }
    for (int c = 0; c < 4; c++) {
        sb_printf(sb, "\t");
        if (c < channels)
            sb_number(sb, REPORT_TSV, per[c]);
    }
}

/* The file name(s) and the image's layout: a JSON object's first members, or
 * a TSV line's first columns. */
static void line_start(strbuf *sb, report_format f, const report_spec *s, const char *a,
                       const char *b, const wt_image *layout)
{
    if (f == REPORT_JSON) {
        sb_printf(sb, "{");
        sb_json_name(sb, s->pair ? "a" : "file", a);
        if (s->pair) {
            sb_printf(sb, ",");
            sb_json_name(sb, "b", b);
        }
        sb_printf(sb, ",\"width\":%u,\"height\":%u,\"channels\":%d,\"bit_depth\":%d",
                  layout->width, layout->height, layout->channels, layout->bit_depth);
        return;
    }
    sb_tsv_field(sb, a);
    if (s->pair) {
        sb_printf(sb, "\t");
        sb_tsv_field(sb, b);
    }
    sb_printf(sb, "\t%u\t%u\t%d\t%d", layout->width, layout->height, layout->channels,
              layout->bit_depth);
}

/* A JSON or TSV line: the same fields in the same order (report_header's). */
static void data_line(strbuf *sb, const report_spec *s, const char *a, const char *b,
                      double bpp, const wt_quality *q, const wt_image *layout, double kept)
{
    report_format f = s->format;
    line_start(sb, f, s, a, b, layout);
    if (s->psnr)
        field_measure(sb, f, "psnr", q->psnr_mean, q->psnr, q->channels);
    if (s->mse)
        field_measure(sb, f, "mse", q->mse_mean, q->mse, q->channels);
    if (s->kept)
        field_number(sb, f, "kept", kept);
    if (s->qstep > 0.0) {
        field_number(sb, f, "qstep", s->qstep);
        field_number(sb, f, "bpp", bpp);
    }
    sb_printf(sb, f == REPORT_JSON ? "}\n" : "\n");
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

char *report_quality_rate(const report_spec *s, const char *a, const char *b,
                          const wt_image *layout, const wt_quality *q, double kept, double bpp)
{
    strbuf sb = {0};
    switch (s->format) {
    case REPORT_TEXT: text_line(&sb, s, a, b, bpp, q, layout, kept); break;
    case REPORT_JSON:
    case REPORT_TSV: data_line(&sb, s, a, b, bpp, q, layout, kept); break;
    }
    return sb_finish(&sb);
}

char *report_quality(const report_spec *s, const char *a, const char *b, const wt_image *layout,
                     const wt_quality *q, double kept)
{
    return report_quality_rate(s, a, b, layout, q, kept, 0.0);
}
