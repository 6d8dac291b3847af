/* `stats --transform packet --plot FILE.svg`: the tree of each file's basis
 * as SVG, one panel (<g class="tree" data-file=...>) per file, the root at
 * the top and each level a row below. Split nodes are small circles
 * (<circle class="node" data-path>); a leaf is a square (<rect class="leaf">)
 * shaded by its energy share on a log scale (1e-4 % to 100 %), labelled with
 * its path and share, and carrying data-path, data-share (percent of the
 * file's energy, all channels) and data-cost (its cost, all channels), so a
 * test can read the figures back. Leaves take equal slots left to right in
 * depth-first a h v d order; a split node sits midway over its children. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats_plot.h"

enum { MARGIN_L = 40, TREE_W = 640, PANEL_TOP = 50, LEVEL_H = 70, BOX = 14, PANEL_B = 50,
       MIN_SLOT = 14 };

/* One panel's geometry and figures. */
typedef struct tree_panel {
    const file_figures *f;
    double total; /* energy of all leaves, all channels */
    double slot;  /* width of a leaf's slot */
    double top;   /* y of the root */
    size_t next;  /* the next leaf (band index of its channel 0) */
} tree_panel;

static int leaves_of(const file_figures *f)
{
    int n = 0;
    for (size_t i = 0; i < f->nbands; i++)
        n += f->bands[i].ref.channel == 0;
    return n;
}

/* Energy and cost of the leaf whose channel 0 is band @p i, over its channels. */
static void leaf_sums(const file_figures *f, size_t i, double *energy, double *cost)
{
    *energy = *cost = 0.0;
    for (size_t j = i; j < f->nbands && (j == i || f->bands[j].ref.channel != 0); j++) {
        *energy += f->bands[j].s.sum_sq;
        *cost += f->bands[j].cost;
    }
}

/* Blue, darker for a larger share (log scale, 1e-4 % white-ish, 100 % dark). */
static void shade(double share, char out[8])
{
    double t = share > 1e-4 ? log10(share / 1e-4) / 6.0 : 0.0;
    t = t < 1.0 ? t : 1.0;
    snprintf(out, 8, "#%02x%02x%02x", (int)(247 - t * 239), (int)(251 - t * 203),
             (int)(255 - t * 148));
}

static void leaf(strbuf *sb, tree_panel *p, double x, double y)
{
    const file_figures *f = p->f;
    const band_figures *b = &f->bands[p->next];
    double energy, cost;
    char name[16], fill[8];
    leaf_sums(f, p->next, &energy, &cost);
    double share = p->total > 0.0 ? 100.0 * energy / p->total : 0.0;
    figures_name_of(f, b, name, sizeof name);
    shade(share, fill);
    sb_printf(sb, "<rect class=\"leaf\" data-path=\"%s\" data-share=\"%.10g\" "
                  "data-cost=\"%.10g\" x=\"%.2f\" y=\"%.2f\" width=\"%d\" height=\"%d\" "
                  "fill=\"%s\" stroke=\"black\"><title>%s: %.4g%% of the energy, cost %.6g"
                  "</title></rect>\n",
              b->path, share, cost, x - BOX / 2.0, y - BOX / 2.0, BOX, BOX, fill, name, share,
              cost);
    sb_printf(sb, "<text class=\"path\" x=\"%.2f\" y=\"%.2f\" font-size=\"9\" "
                  "text-anchor=\"start\" transform=\"rotate(90 %.2f %.2f)\">%s %.3g%%</text>\n",
              x - 3, y + BOX, x - 3, y + BOX, name, share);
    do
        p->next++;
    while (p->next < f->nbands && f->bands[p->next].ref.channel != 0);
}

/* The subtree at @p path (level @p level): its leaves drawn from p->next on;
 * returns the x of its top. */
static double subtree(strbuf *sb, tree_panel *p, const char *path, int level)
{
    double y = p->top + LEVEL_H * (double)level;
    if (level > WT_PACKET_MAX_LEVELS || p->next >= p->f->nbands)
        return MARGIN_L; /* unreachable: the leaves of a basis tile its tree */
    if (strcmp(p->f->bands[p->next].path, path) == 0) {
        double x = MARGIN_L + p->slot * ((double)(p->next / (size_t)p->f->layout.channels) + 0.5);
        leaf(sb, p, x, y);
        return x;
    }
    double xs[4];
    char child[WT_PACKET_MAX_LEVELS + 2]; /* level < levels: path has at most L - 1 letters */
    memcpy(child, path, (size_t)level);
    child[level + 1] = '\0';
    for (int c = 0; c < 4; c++) {
        child[level] = "ahvd"[c];
        xs[c] = subtree(sb, p, child, level + 1);
    }
    double x = (xs[0] + xs[3]) / 2.0;
    for (int c = 0; c < 4; c++)
        sb_printf(sb, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"gray\"/>\n",
                  x, y, xs[c], y + LEVEL_H - BOX / 2.0);
    sb_printf(sb, "<circle class=\"node\" data-path=\"%s\" cx=\"%.2f\" cy=\"%.2f\" r=\"4\" "
                  "fill=\"black\"/>\n",
              path, x, y);
    return x;
}

static double panel_height(const file_figures *f)
{
    return PANEL_TOP + LEVEL_H * (double)f->params.levels + BOX + PANEL_B;
}

static void panel(strbuf *sb, const file_figures *f, double top, double slot)
{
    char basis[32], cost[48];
    wt_packet_rule_name(&f->basis, basis, sizeof basis);
    wt_packet_cost_name(&f->cost, cost, sizeof cost);
    sb_printf(sb, "<g class=\"tree\" data-file=\"");
    stats_svg_escape(sb, f->file);
    sb_printf(sb, "\">\n<text x=\"%d\" y=\"%.2f\" font-size=\"14\">", MARGIN_L, top + 20);
    stats_svg_escape(sb, f->file);
    sb_printf(sb, ": %s %s, %d level%s, basis %s, cost %s (energy share of each leaf, all "
                  "channels)</text>\n",
              f->params.wavelet->name, wt_mode_name(f->params.mode), f->params.levels,
              f->params.levels == 1 ? "" : "s", basis, cost);
    tree_panel p = {f, 0.0, slot, top + PANEL_TOP, 0};
    for (size_t i = 0; i < f->nbands; i++)
        p.total += f->bands[i].s.sum_sq;
    subtree(sb, &p, "", 0);
    sb_printf(sb, "</g>\n");
}

void stats_tree_draw(strbuf *sb, const file_figures *files, size_t n)
{
    int most = 1;
    double height = 0.0;
    for (size_t i = 0; i < n; i++) {
        int leaves = leaves_of(&files[i]);
        most = leaves > most ? leaves : most;
        height += panel_height(&files[i]);
    }
    double slot = (double)TREE_W / most > MIN_SLOT ? (double)TREE_W / most : MIN_SLOT;
    sb_printf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                  "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" "
                  "fill=\"white\"/>\n",
              2 * MARGIN_L + slot * most, height);
    double top = 0.0;
    for (size_t i = 0; i < n; i++) {
        panel(sb, &files[i], top, slot);
        top += panel_height(&files[i]);
    }
    sb_printf(sb, "</svg>\n");
}
