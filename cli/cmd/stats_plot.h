/* `wavetool stats --plot FILE.svg`: a bar chart of the energy share of each
 * band (all channels together), as SVG text: one bar per file and band for a
 * few files, else the mean over the files with min-max whiskers; packets:
 * the tree of each file's basis (stats_tree.c). */
#ifndef WT_CLI_STATS_PLOT_H
#define WT_CLI_STATS_PLOT_H

#include <stddef.h>

#include "figures.h"
#include "report.h" /* strbuf */
#include "wavetool.h"

/* Files up to which each gets its own bars. */
#define STATS_PLOT_MAX_GROUPS 6

/* Write the chart of @p files (n >= 1) to @p path (atomically). */
wt_status stats_plot_write(const char *path, const file_figures *files, size_t n);

/* The trees of packet bases: one panel per file, its leaves' energy shares
 * and costs (all channels together) (stats_tree.c). */
void stats_tree_draw(strbuf *sb, const file_figures *files, size_t n);

/* Text in XML, escaped so the SVG stays well-formed whatever the bytes. */
void stats_svg_escape(strbuf *sb, const char *s);

#endif
