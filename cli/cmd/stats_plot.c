/* The energy-share bar chart as SVG: axes, ticks and labels are SVG text, so
 * no font rendering or plotting library is needed. cA holds 90-99% of the
 * energy of a photo, so the axis is logarithmic, decades from the smallest
 * share's to 100%: the detail bands stay visible. Each bar is a <rect
 * class="bar"> with data-band, data-file and data-value (percent); the plot
 * area <g id="plot"> carries data-ymin, data-ymax and data-height, so a test
 * can check that height = log(value / ymin) / log(ymax / ymin) * data-height. */
#include "stats_plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

enum { PLOT_W = 640, PLOT_H = 300, MARGIN_L = 60, MARGIN_T = 40, MARGIN_B = 60, LEGEND_W = 160 };

/* A band across files: "cH2" is level 2, orientation H. */
typedef struct category {
    wt_band_ref ref;                 /* channel unused */
    double share[STATS_PLOT_MAX_GROUPS]; /* per file (few files) */
    double mean, lo, hi;             /* over the files that have the band */
    size_t files;
} category;

/* Order: cA first, then from the coarsest level H, V, D. */
static long category_key(const wt_band_ref *r)
{
    return r->band == WT_BAND_A ? -1000 + r->level : (long)(WT_MAX_LEVELS - r->level) * 4 + r->band;
}

static int compare_category(const void *a, const void *b)
{
    long x = category_key(&((const category *)a)->ref), y = category_key(&((const category *)b)->ref);
    return (x > y) - (x < y);
}

static size_t find_or_add(category *cats, size_t *n, const wt_band_ref *r)
{
    for (size_t i = 0; i < *n; i++)
        if (cats[i].ref.level == r->level && cats[i].ref.band == r->band)
            return i;
    cats[*n] = (category){.ref = {r->level, r->band, 0}, .lo = INFINITY, .hi = -INFINITY};
    return (*n)++;
}

/* Share of each band of one file over all its channels, into its categories. */
static void add_file(category *cats, size_t *ncat, const file_figures *f, size_t index)
{
    double total = 0.0;
    for (size_t i = 0; i < f->nbands; i++)
        total += f->bands[i].s.sum_sq;
    for (size_t i = 0; i < f->nbands; i++) {
        const band_figures *b = &f->bands[i];
        if (b->ref.channel != 0)
            continue;
        double e = 0.0;
        for (size_t j = 0; j < f->nbands; j++)
            if (f->bands[j].ref.level == b->ref.level && f->bands[j].ref.band == b->ref.band)
                e += f->bands[j].s.sum_sq;
        category *c = &cats[find_or_add(cats, ncat, &b->ref)];
        double share = total > 0.0 ? 100.0 * e / total : 0.0;
        if (index < STATS_PLOT_MAX_GROUPS)
            c->share[index] = share;
        c->mean += share;
        c->lo = share < c->lo ? share : c->lo;
        c->hi = share > c->hi ? share : c->hi;
        c->files++;
    }
}

/* The axis: decades from the one holding the smallest positive share (not
 * below 1e-4 %) to 100 %. */
typedef struct axis {
    double ymin, ymax;
} axis;

static axis log_axis(const category *cats, size_t ncat)
{
    double low = 100.0;
    for (size_t i = 0; i < ncat; i++)
        if (cats[i].lo > 0.0 && cats[i].lo < low)
            low = cats[i].lo;
    double decade = pow(10.0, floor(log10(low)));
    return (axis){decade < 1e-4 ? 1e-4 : (decade < 1.0 ? decade : 1.0), 100.0};
}

/* Length of the well-formed UTF-8 sequence at @p s (1-4), 0 where there is none. */
static int utf8_length(const unsigned char *s)
{
    int n = s[0] < 0x80 ? 1 : s[0] < 0xC2 ? 0 : s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : s[0] < 0xF5 ? 4 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if (n == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0)))
        return 0; /* overlong, or a surrogate */
    if (n == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90)))
        return 0; /* overlong, or past U+10FFFF */
    return n;
}

/* Text in XML: markup characters as entities; control characters (which XML
 * 1.0 forbids even as references) and bytes that are not UTF-8 written as the
 * text output writes them (\n, \x1b, \xff), so the SVG stays well-formed. */
void stats_svg_escape(strbuf *sb, const char *s)
{
    static const char *const with[] = {"&amp;", "&lt;", "&gt;", "&quot;"};
    static const char markup[] = "&<>\"";
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = utf8_length(p);
        const char *hit = strchr(markup, *p);
        char one[2] = {(char)*p, '\0'}, shown[8];
        if (n == 0)
            sb_printf(sb, "\\x%02x", *p);
        else if (hit)
            sb_printf(sb, "%s", with[hit - markup]);
        else if (*p < 0x20 || *p == 0x7f)
            sb_printf(sb, "%s", wt_escape_controls(shown, sizeof shown, one));
        else
            sb_printf(sb, "%.*s", n, (const char *)p);
        p += n ? n : 1;
    }
}

static const char *const palette[STATS_PLOT_MAX_GROUPS] = {"#4477aa", "#ee6677", "#228833",
                                                           "#ccbb44", "#66ccee", "#aa3377"};

static double bar_y(double v, const axis *a)
{
    double f = v > a->ymin ? log10(v / a->ymin) / log10(a->ymax / a->ymin) : 0.0;
    return MARGIN_T + PLOT_H - (f < 1.0 ? f : 1.0) * PLOT_H;
}

static void axes(strbuf *sb, const axis *a, const char *title)
{
    sb_printf(sb, "<text x=\"%d\" y=\"24\" font-size=\"16\">", MARGIN_L);
    stats_svg_escape(sb, title);
    sb_printf(sb, "</text>\n");
    sb_printf(sb, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", MARGIN_L,
              MARGIN_T, MARGIN_L, MARGIN_T + PLOT_H);
    sb_printf(sb, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", MARGIN_L,
              MARGIN_T + PLOT_H, MARGIN_L + PLOT_W, MARGIN_T + PLOT_H);
    for (double v = a->ymin; v <= a->ymax * 1.0001; v *= 10.0) {
        double y = bar_y(v, a);
        sb_printf(sb, "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" stroke=\"black\"/>"
                      "<text class=\"ytick\" x=\"%d\" y=\"%.2f\" font-size=\"11\" "
                      "text-anchor=\"end\">%g</text>\n",
                  MARGIN_L - 5, y, MARGIN_L, y, MARGIN_L - 8, y + 4, v);
    }
    sb_printf(sb, "<text x=\"16\" y=\"%d\" font-size=\"12\" transform=\"rotate(-90 16 %d)\" "
                  "text-anchor=\"middle\">energy share (%%, log scale)</text>\n",
              MARGIN_T + PLOT_H / 2, MARGIN_T + PLOT_H / 2);
    sb_printf(sb, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">band "
                  "(level and orientation; 1 the finest)</text>\n",
              MARGIN_L + PLOT_W / 2, MARGIN_T + PLOT_H + 45);
}

static void bar(strbuf *sb, double x, double w, double v, const axis *a, const char *color,
                const char *band, const char *file)
{
    double y = bar_y(v, a);
    sb_printf(sb, "<rect class=\"bar\" data-band=\"%s\" data-file=\"", band);
    stats_svg_escape(sb, file);
    sb_printf(sb, "\" data-value=\"%.10g\" x=\"%.2f\" y=\"%.4f\" width=\"%.2f\" "
                  "height=\"%.4f\" fill=\"%s\"><title>",
              v, x, y, w, MARGIN_T + PLOT_H - y, color);
    stats_svg_escape(sb, file);
    sb_printf(sb, " %s: %.2f%%</title></rect>\n", band, v);
}

static void whisker(strbuf *sb, double xc, const category *c, const axis *a)
{
    sb_printf(sb, "<line class=\"spread\" x1=\"%.2f\" y1=\"%.4f\" x2=\"%.2f\" y2=\"%.4f\" "
                  "stroke=\"black\"/>\n",
              xc, bar_y(c->lo, a), xc, bar_y(c->hi, a));
}

static void legend(strbuf *sb, const file_figures *files, size_t n, int per_file)
{
    int x = MARGIN_L + PLOT_W + 15;
    for (size_t i = 0; i < (per_file ? n : 1); i++) {
        int y = MARGIN_T + 10 + 18 * (int)i;
        sb_printf(sb, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                      "<text class=\"legend\" x=\"%d\" y=\"%d\" font-size=\"11\">",
                  x, y, palette[i], x + 14, y + 9);
        if (per_file)
            stats_svg_escape(sb, files[i].file);
        else
            sb_printf(sb, "mean of %zu files (bars: min-max)", n);
        sb_printf(sb, "</text>\n");
    }
}

static void draw(strbuf *sb, const category *cats, size_t ncat, const file_figures *files,
                 size_t n)
{
    int per_file = n <= STATS_PLOT_MAX_GROUPS;
    axis a = log_axis(cats, ncat);
    double slot = (double)PLOT_W / (double)ncat;
    size_t groups = per_file ? n : 1;
    double w = slot * 0.8 / (double)groups;
    sb_printf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                  "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" "
                  "fill=\"white\"/>\n",
              MARGIN_L + PLOT_W + LEGEND_W, MARGIN_T + PLOT_H + MARGIN_B);
    axes(sb, &a, "Energy share per band (wenergy2, all channels)");
    sb_printf(sb, "<g id=\"plot\" data-scale=\"log\" data-ymin=\"%g\" data-ymax=\"%g\" "
                  "data-height=\"%d\">\n",
              a.ymin, a.ymax, PLOT_H);
    for (size_t i = 0; i < ncat; i++) {
        char name[16];
        figures_band_name(files[0].transform, &cats[i].ref, name, sizeof name);
        double x0 = MARGIN_L + slot * (double)i + slot * 0.1;
        for (size_t g = 0; g < groups; g++)
            bar(sb, x0 + w * (double)g, w, per_file ? cats[i].share[g] : cats[i].mean, &a,
                palette[g], name, per_file ? files[g].file : "(mean)");
        if (!per_file)
            whisker(sb, x0 + w / 2, &cats[i], &a);
        sb_printf(sb, "<text class=\"xtick\" x=\"%.2f\" y=\"%d\" font-size=\"11\" "
                      "text-anchor=\"middle\">%s</text>\n",
                  x0 + slot * 0.4, MARGIN_T + PLOT_H + 16, name);
    }
    sb_printf(sb, "</g>\n");
    legend(sb, files, n, per_file);
    sb_printf(sb, "</svg>\n");
}

static wt_status save_text(const char *path, const char *text)
{
    wt_outfile out;
    wt_status st = wt_outfile_open(&out, path);
    if (st != WT_OK)
        return st;
    fputs(text, (FILE *)out.fp);
    return wt_outfile_commit(&out);
}

/* The bar chart of @p files into @p sb. */
static wt_status bar_chart(strbuf *sb, const file_figures *files, size_t n)
{
    size_t room = 0;
    for (size_t i = 0; i < n; i++)
        room += files[i].nbands;
    category *cats = calloc(room ? room : 1, sizeof *cats);
    if (!cats)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    size_t ncat = 0;
    for (size_t i = 0; i < n; i++)
        add_file(cats, &ncat, &files[i], i);
    for (size_t i = 0; i < ncat; i++)
        cats[i].mean /= (double)(cats[i].files ? cats[i].files : 1);
    qsort(cats, ncat, sizeof *cats, compare_category);
    draw(sb, cats, ncat, files, n);
    free(cats);
    return WT_OK;
}

wt_status stats_plot_write(const char *path, const file_figures *files, size_t n)
{
    strbuf sb = {0};
    wt_status st = WT_OK;
    if (figures_are_packets(&files[0]))
        stats_tree_draw(&sb, files, n);
    else
        st = bar_chart(&sb, files, n);
    char *text = sb_finish(&sb);
    if (st != WT_OK || !text) {
        free(text);
        return st != WT_OK ? st : wt_error_set(WT_ERR_NOMEM, "out of memory");
    }
    st = save_text(path, text);
    free(text);
    return st;
}
