/* Reports of quality (roundtrip, compare) and tables (wavelets) in the three
 * formats: text for people, JSON lines and TSV for scripts. Infinity (identical
 * images) is written "inf" in text and TSV and the string "inf" in JSON; NaN
 * is null in JSON. JSON lines are built with the JSON writer (wt_json). */
#ifndef WT_CLI_REPORT_H
#define WT_CLI_REPORT_H

#include <stdio.h>

#include "options.h"
#include "wavetool.h"
#include "wavetool_hooks.h"

/* What a report line is about: the name it shows (text: "a.tif[3]" for a
 * page) and, for a page of a stack of @p pages > 1, its number (JSON lines
 * then start with "page": K). */
typedef struct report_page {
    const char *shown;
    size_t page, pages;
} report_page;

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
char *report_quality(const report_spec *s, const report_page *a, const char *b,
                     const wt_image *layout, const wt_quality *q, double kept);
/* The same with the estimated bits per pixel (shown when s->qstep > 0). */
char *report_quality_rate(const report_spec *s, const report_page *a, const char *b,
                          const wt_image *layout, const wt_quality *q, double kept, double bpp);

/* A JSON line's object begun (compact style), "page" first for a stack's page. */
void report_json_begin(wt_json *j, const report_page *page);
/* The object closed and the line ended: its text (NULL: out of memory). */
char *report_json_end(wt_json *j);
/* The object closed and printed as one line on @p out (bench's lines). */
void report_json_print(wt_json *j, FILE *out);
/* "key": v, infinity as the string "inf" or "-inf", NaN as null. */
void report_json_number(wt_json *j, const char *key, double v);
/* "key": name, and for a name that is not UTF-8 also "key_bytes": its bytes
 * percent-encoded. */
void report_json_name(wt_json *j, const char *key, const char *name);

/* The smallest and largest sample of @p img (NaN skipped; 0, 0 when none). */
void report_sample_range(const wt_image *img, double *lo, double *hi);
/* The peak a PSNR against the reference @p ref is reported with: --data-range
 * R, max - min of @p ref (auto), else @p fallback (0: wt_quality_compare's
 * rule). WT_OK, or an error (the caller names the file) when auto meets a
 * flat reference. */
wt_status report_psnr_peak(const cli_options *o, const wt_image *ref, double fallback,
                           double *peak);

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
/* ---- tables: TSV and CSV (RFC 4180) ---- */

/* 1 for the formats that are tables: a header line of column names, a row a line. */
int report_is_table(report_format f);
/* A table's header line: @p columns tab-separated and ending in '\n', written
 * in @p f (CSV: commas, CRLF); nothing for text and JSON. */
void report_table_header(report_format f, const char *columns, FILE *out);
/* sb_printf for a row of table @p f: the format string's tabs separate fields
 * and its '\n' ends the row (CSV: ',' and CRLF). The arguments must hold
 * neither (numbers, the program's own names); file names go through sb_field. */
void sb_row_printf(strbuf *sb, report_format f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A string as one field: TSV escapes tab, newline, CR, backslash and other
 * control characters; CSV quotes a field holding a comma, quote, CR, LF or
 * another control character, quotes doubled. */
void sb_field(strbuf *sb, report_format f, const char *s);
/* The first row of @p rows: its length without the row's end; *next: where the
 * next row starts. A CSV row ends at a line feed outside quotes. */
size_t report_row_length(report_format f, const char *rows, size_t *next);
/* A number, or the format's spelling of infinity. */
void sb_number(strbuf *sb, report_format f, double v);
/* The string built (caller frees), NULL when out of memory. */
char *sb_finish(strbuf *sb);

#endif
