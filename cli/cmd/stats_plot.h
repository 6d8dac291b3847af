/* `wavetool stats --plot FILE.svg`: a bar chart of the energy share of each
 * band (all channels together), as SVG text: one bar per file and band for a
 * few files, else the mean over the files with min-max whiskers. */
#ifndef WT_CLI_STATS_PLOT_H
#define WT_CLI_STATS_PLOT_H

#include <stddef.h>

#include "figures.h"
#include "wavetool.h"

/* Files up to which each gets its own bars. */
#define STATS_PLOT_MAX_GROUPS 6

/* Write the chart of @p files (n >= 1) to @p path (atomically). */
wt_status stats_plot_write(const char *path, const file_figures *files, size_t n);

#endif
