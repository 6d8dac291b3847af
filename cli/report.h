/* Reports of quality (roundtrip, compare) and tables (wavelets) in the three
 * formats: text for people, JSON lines and TSV for scripts. Infinity (identical
 * images) is written "inf" in text and TSV and the string "inf" in JSON. */
#ifndef WT_CLI_REPORT_H
#define WT_CLI_REPORT_H

#include <stdio.h>

#include "options.h"
#include "wavetool.h"

typedef struct report_spec {
    report_format format;
    int psnr, mse; /* fields shown */
    int kept;      /* the fraction of detail coefficients kept */
    int pair;      /* two files (compare): columns a and b instead of file */
    double qstep;  /* roundtrip --qstep: > 0 adds qstep and the estimated bpp */
} report_spec;

/* The TSV header line (nothing for other formats). */
void report_header(const report_spec *s, FILE *out);

/* One line (with its newline) about @p a (and @p b for pairs): a new string,
 * NULL when out of memory. @p layout gives size, channels and depth. */
char *report_quality(const report_spec *s, const char *a, const char *b, const wt_image *layout,
                     const wt_quality *q, double kept);
/* The same with the estimated bits per pixel (shown when s->qstep > 0). */
char *report_quality_rate(const report_spec *s, const char *a, const char *b,
                          const wt_image *layout, const wt_quality *q, double kept, double bpp);

/* A growing string. */
typedef struct strbuf {
    char *data;
    size_t len, cap;
    int failed;
} strbuf;

void sb_printf(strbuf *sb, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A string as a JSON string literal (quotes included). */
void sb_json_string(strbuf *sb, const char *s);
/* @p s with each character found in @p chars replaced by the string of the
 * same index in @p with. */
void sb_escaped(strbuf *sb, const char *s, const char *chars, const char *const *with);
/* A string as one TSV field (tab, newline, CR and backslash escaped). */
void sb_tsv_field(strbuf *sb, const char *s);
/* A number, or the format's spelling of infinity. */
void sb_number(strbuf *sb, report_format f, double v);
/* The string built (caller frees), NULL when out of memory. */
char *sb_finish(strbuf *sb);

#endif
