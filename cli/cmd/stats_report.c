/* stats reports in text, JSON lines and TSV. */
#include "stats_report.h"

#include <math.h>
#include <string.h>

#include "report.h"

static const char *channel_name(int channels, int c)
{
    static const char *const names[4][4] = {
        {"Y"}, {"Y", "A"}, {"R", "G", "B"}, {"R", "G", "B", "A"}};
    return channels >= 1 && channels <= 4 && c < channels ? names[channels - 1][c] : "?";
}

/* ---- text ----------------------------------------------------------------- */

/* "haar, symmetric" (dwt), "swt haar", "starlet, border mirror" or "packet
 * haar, symmetric, basis best, cost shannon". */
static void transform_text(const file_figures *f, char *buf, size_t size)
{
    wt_transform_class_of(f->transform)->describe(&f->params, f->border, buf, size);
    size_t n = strlen(buf);
    if (!figures_are_packets(f) || n >= size)
        return;
    char basis[32], cost[48];
    wt_packet_rule_name(&f->basis, basis, sizeof basis);
    wt_packet_cost_name(&f->cost, cost, sizeof cost);
    snprintf(buf + n, size - n, ", basis %s, cost %s", basis, cost);
}

/* A volume's "xZ" after WxH, and its axes after the transform. */
static void volume_text(const file_figures *f, char *size, size_t cap, char *axes, size_t acap)
{
    size[0] = axes[0] = '\0';
    if (!f->depth)
        return;
    snprintf(size, cap, "x%zu", f->depth);
    int n = snprintf(axes, acap, ", axes ");
    for (int k = 0; k < f->naxes && n > 0 && (size_t)n < acap; k++)
        n += snprintf(axes + n, acap - (size_t)n, k ? ",%d" : "%d", f->axes[k]);
}

static void text_head(strbuf *sb, const file_figures *f)
{
    char transform[160], depth[32], axes[32];
    transform_text(f, transform, sizeof transform);
    volume_text(f, depth, sizeof depth, axes, sizeof axes);
    sb_printf(sb, "%s: %ux%u%s, %d channel%s, %d-bit; %s, %d level%s%s; qstep %g, eps %g: "
                  "%.4f bpp\n",
              f->file, f->layout.width, f->layout.height, depth, f->layout.channels,
              f->layout.channels > 1 ? "s" : "", f->layout.bit_depth, transform,
              f->params.levels, f->params.levels == 1 ? "" : "s", axes, f->qstep, f->eps,
              f->bpp);
    sb_printf(sb, "  %-5s %-2s %11s %10s %10s %10s %10s %10s %8s %7s %7s %10s %7s%s\n", "band",
              "ch", "shape", "mean", "std", "min", "max", "max|c|", "energy%", "zero%", "near0%",
              "mad_sigma", "H_bits", figures_are_packets(f) ? "       cost" : "");
}

static void text_band(strbuf *sb, const file_figures *f, const band_figures *b)
{
    char name[16], shape[48];
    figures_name_of(f, b, name, sizeof name);
    if (b->key[0])
        snprintf(shape, sizeof shape, "%zux%zux%zu", b->depth, b->rows, b->cols);
    else
        snprintf(shape, sizeof shape, "%zux%zu", b->rows, b->cols);
    sb_printf(sb, "  %-5s %-2s %11s %10.4g %10.4g %10.4g %10.4g %10.4g %8.4f %7.3f %7.3f %10.4g "
                  "%7.4f",
              name, channel_name(f->layout.channels, b->ref.channel), shape, b->mean, b->std,
              b->s.min, b->s.max, b->s.max_abs, b->energy_share, 100.0 * b->zero_fraction,
              100.0 * b->near_zero_fraction, b->mad_sigma, b->entropy);
    if (figures_are_packets(f))
        sb_printf(sb, " %10.4g", b->cost);
    sb_printf(sb, "\n");
}

/* ---- json ----------------------------------------------------------------- */

/* A band's orientation: A, H, V, D (starlet A or W); a volume's pywt key. */
static const char *orientation_of(const file_figures *f, const band_figures *b, char buf[8])
{
    if (b->key[0])
        return b->key;
    buf[0] = figures_orientation(f->transform, &b->ref);
    buf[1] = '\0';
    return buf;
}

static void json_band(wt_json *j, const file_figures *f, const band_figures *b)
{
    char name[16], orientation[8];
    figures_name_of(f, b, name, sizeof name);
    wt_json_begin_object(j);
    wt_json_key_string(j, "band", name);
    if (figures_are_packets(f))
        wt_json_key_string(j, "path", b->path);
    wt_json_key_int(j, "level", b->ref.level);
    wt_json_key_string(j, "orientation", orientation_of(f, b, orientation));
    wt_json_key_int(j, "channel", b->ref.channel);
    if (b->key[0])
        wt_json_key_uint(j, "depth", b->depth);
    wt_json_key_uint(j, "rows", b->rows);
    wt_json_key_uint(j, "cols", b->cols);
    report_json_number(j, "mean", b->mean);
    report_json_number(j, "std", b->std);
    report_json_number(j, "min", b->s.min);
    report_json_number(j, "max", b->s.max);
    report_json_number(j, "max_abs", b->s.max_abs);
    report_json_number(j, "energy", b->s.sum_sq);
    report_json_number(j, "energy_share", b->energy_share);
    report_json_number(j, "zero_fraction", b->zero_fraction);
    report_json_number(j, "near_zero_fraction", b->near_zero_fraction);
    report_json_number(j, "mad_sigma", b->mad_sigma);
    report_json_number(j, "entropy", b->entropy);
    if (figures_are_packets(f))
        report_json_number(j, "cost", b->cost);
    wt_json_end_object(j);
}

/* The wavelet and extension a file's figures were made with, as the kind
 * has them: starlet's kernel (b3spline) and border (mirror), not the -w and
 * -m it does not take. */
static const char *figures_wavelet(const file_figures *f)
{
    const wt_transform_class *c = wt_transform_class_of(f->transform);
    return (c->params & WT_TPARAM_WAVELET) ? f->params.wavelet->name : c->wavelet_name;
}

static const char *figures_extension(const file_figures *f)
{
    const wt_transform_class *c = wt_transform_class_of(f->transform);
    if (c->params & WT_TPARAM_BORDER)
        return wt_border_name(f->border);
    return wt_mode_name((c->params & WT_TPARAM_MODE) ? f->params.mode : c->meta_mode);
}

/* A packet file's basis and cost, as --basis and --cost take them. */
static void packet_json(wt_json *j, const file_figures *f)
{
    char basis[32], cost[48];
    wt_packet_rule_name(&f->basis, basis, sizeof basis);
    wt_packet_cost_name(&f->cost, cost, sizeof cost);
    wt_json_key_string(j, "basis", basis);
    wt_json_key_string(j, "cost", cost);
}

static char *json_file(const file_figures *f, const report_page *page)
{
    wt_json j;
    report_json_begin(&j, page);
    wt_json_key_string(&j, "file", f->file);
    wt_json_key_uint(&j, "width", f->layout.width);
    wt_json_key_uint(&j, "height", f->layout.height);
    if (f->depth) {
        char axes[8] = {0};
        for (int k = 0; k < f->naxes; k++)
            axes[2 * k] = (char)('0' + f->axes[k]), axes[2 * k + 1] = k + 1 < f->naxes ? ',' : 0;
        wt_json_key_uint(&j, "depth", f->depth);
        wt_json_key_string(&j, "axes", axes);
    }
    wt_json_key_int(&j, "channels", f->layout.channels);
    wt_json_key_int(&j, "bit_depth", f->layout.bit_depth);
    wt_json_key_string(&j, "wavelet", figures_wavelet(f));
    wt_json_key_string(&j, "mode", figures_extension(f));
    wt_json_key_int(&j, "levels", f->params.levels);
    wt_json_key_string(&j, "transform", wt_transform_name(f->transform));
    if (wt_transform_class_of(f->transform)->params & WT_TPARAM_BORDER)
        wt_json_key_string(&j, "border", wt_border_name(f->border));
    if (figures_are_packets(f))
        packet_json(&j, f);
    report_json_number(&j, "qstep", f->qstep);
    report_json_number(&j, "eps", f->eps);
    report_json_number(&j, "bpp", f->bpp);
    wt_json_key(&j, "bands");
    wt_json_begin_array(&j);
    for (size_t i = 0; i < f->nbands; i++)
        json_band(&j, f, &f->bands[i]);
    wt_json_end_array(&j);
    return report_json_end(&j);
}

/* ---- tsv and csv ----------------------------------------------------------- */

static const char table_columns[] =
    "file\twidth\theight\tchannels\tbit_depth\twavelet\tmode\tlevels\tqstep\teps\tbpp\tband\t"
    "level\torientation\tchannel\trows\tcols\tmean\tstd\tmin\tmax\tmax_abs\tenergy\t"
    "energy_share\tzero_fraction\tnear_zero_fraction\tmad_sigma\tentropy\ttransform\tdepth\t"
    "band_depth\tpath\tcost\tpage\n";

static void table_values(strbuf *sb, report_format format, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sb_row_printf(sb, format, "\t");
        if (isnan(v[i]))
            sb_printf(sb, "nan");
        else
            sb_number(sb, format, v[i]);
    }
}

/* A band's row of TSV or CSV. */
static void table_band(strbuf *sb, report_format format, const file_figures *f,
                       const band_figures *b)
{
    char name[16], orientation[8];
    figures_name_of(f, b, name, sizeof name);
    sb_field(sb, format, f->file);
    sb_row_printf(sb, format, "\t%u\t%u\t%d\t%d\t%s\t%s\t%d", f->layout.width,
                  f->layout.height, f->layout.channels, f->layout.bit_depth, figures_wavelet(f),
                  figures_extension(f), f->params.levels);
    table_values(sb, format, (const double[]){f->qstep, f->eps, f->bpp}, 3);
    sb_row_printf(sb, format, "\t%s\t%d\t%s\t%d\t%zu\t%zu", name, b->ref.level,
                  orientation_of(f, b, orientation), b->ref.channel, b->rows, b->cols);
    const double v[] = {b->mean,       b->std,           b->s.min,           b->s.max,
                        b->s.max_abs,  b->s.sum_sq,      b->energy_share,    b->zero_fraction,
                        b->near_zero_fraction, b->mad_sigma, b->entropy};
    table_values(sb, format, v, sizeof v / sizeof *v);
    /* an image: one page deep */
    sb_row_printf(sb, format, "\t%s\t%zu\t%zu\t", wt_transform_name(f->transform),
                  f->depth ? f->depth : 1, b->key[0] ? b->depth : 1);
    /* a packet leaf's path and cost; empty and nan for other bands */
    sb_field(sb, format, b->path);
    table_values(sb, format, (const double[]){figures_are_packets(f) ? b->cost : NAN}, 1);
    sb_row_printf(sb, format, "\n");
}

void stats_report_header(report_format format, FILE *out)
{
    report_table_header(format, table_columns, out);
}

char *stats_report(report_format format, const file_figures *f, const report_page *page)
{
    strbuf sb = {0};
    if (format == REPORT_JSON)
        return json_file(f, page);
    if (format == REPORT_TEXT)
        text_head(&sb, f);
    for (size_t i = 0; i < f->nbands; i++) {
        if (format == REPORT_TEXT)
            text_band(&sb, f, &f->bands[i]);
        else
            table_band(&sb, format, f, &f->bands[i]);
    }
    return sb_finish(&sb);
}
