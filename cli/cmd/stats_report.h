/* Reports of `wavetool stats`: text for people, JSON (one object per file)
 * and TSV (one row per band and channel) for scripts. */
#ifndef WT_CLI_STATS_REPORT_H
#define WT_CLI_STATS_REPORT_H

#include <stdio.h>

#include "figures.h"
#include "options.h"
#include "report.h"

/* The TSV header line (nothing for other formats). */
void stats_report_header(report_format format, FILE *out);

/* The report of one file (a page of a stack: @p page): a new string, NULL
 * when out of memory. */
char *stats_report(report_format format, const file_figures *f, const report_page *page);

#endif
