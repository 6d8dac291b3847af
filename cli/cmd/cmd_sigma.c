/* wavetool sigma: the noise estimate of scikit-image's estimate_sigma. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "batch.h"
#include "commands.h"
#include "options.h"
#include "pages.h"
#include "pipeline.h"
#include "report.h"
#include "volume.h"

/* ---- one file ---------------------------------------------------------------- */

typedef struct sigma_job {
    const wt_image *img;
    double *sigma;
} sigma_job;

static wt_status sigma_on(wt_engine *e, void *arg)
{
    sigma_job *j = arg;
    return wt_estimate_sigma(e, j->img, j->sigma);
}

/* The noise estimate of each channel of @p in (sample units); @p layout gets
 * its size, channels and depth (no pixels). */
static wt_status sigma_file(pipeline *p, page_binding *page, const char *in, double *sigma,
                            wt_image *layout)
{
    wt_image img = {0};
    wt_status st = pages_load(p, page, in, &img);
    sigma_job job = {&img, sigma};
    if (st == WT_OK)
        st = pipeline_engine_run(p, sigma_on, &job, in);
    *layout = img;
    layout->pixels = NULL;
    wt_image_free(&img);
    return st;
}

/* ---- the command --------------------------------------------------------------- */

typedef struct sigma_ctx {
    pipeline pipe;
    report_format format;
    int average;
} sigma_ctx;

/* A value in text or TSV ("nan" where it is undefined). */
static void number(strbuf *sb, report_format f, double v)
{
    if (isnan(v))
        sb_printf(sb, "nan");
    else
        sb_printf(sb, f == REPORT_TEXT ? "%.4f" : "%.10g", v);
}

/* The values of one file: one per channel, or their mean. */
static int values_of(const sigma_ctx *ctx, const wt_image *layout, double *sigma)
{
    if (!ctx->average)
        return layout->channels;
    double sum = 0.0;
    for (int c = 0; c < layout->channels; c++)
        sum += sigma[c];
    sigma[0] = sum / layout->channels;
    return 1;
}

static void list(strbuf *sb, report_format f, const double *v, int n, double scale)
{
    for (int c = 0; c < n; c++) {
        sb_printf(sb, "%s", c ? " " : "");
        number(sb, f, v[c] * scale);
    }
}

/* "key": [v * scale, ...], NaN as null. */
static void json_list(wt_json *j, const char *key, const double *v, int n, double scale)
{
    wt_json_key(j, key);
    wt_json_begin_array(j);
    for (int c = 0; c < n; c++)
        wt_json_number(j, "%.10g", v[c] * scale);
    wt_json_end_array(j);
}

static char *json_report(const report_page *page, const wt_image *layout, const double *sigma,
                         int n, double peak)
{
    wt_json j;
    report_json_begin(&j, page);
    wt_json_key_string(&j, "file", page->shown);
    wt_json_key_int(&j, "channels", layout->channels);
    wt_json_key_int(&j, "bit_depth", layout->bit_depth);
    json_list(&j, "sigma", sigma, n, 1.0);
    json_list(&j, "sigma_fraction", sigma, n, 1.0 / peak);
    return report_json_end(&j);
}

static char *sigma_report(const sigma_ctx *ctx, const report_page *page, const wt_image *layout,
                          double *sigma)
{
    strbuf sb = {0};
    report_format f = ctx->format;
    const char *file = page->shown;
    int n = values_of(ctx, layout, sigma);
    double peak = layout->bit_depth == WT_DEPTH_F32 ? 1.0 /* float32: own units */
                  : layout->bit_depth > 8           ? 65535.0
                                                    : 255.0;
    if (f == REPORT_JSON) {
        return json_report(page, layout, sigma, n, peak);
    } else if (report_is_table(f)) {
        for (int c = 0; c < n; c++) {
            sb_field(&sb, f, file);
            if (ctx->average)
                sb_row_printf(&sb, f, "\tmean\t");
            else
                sb_row_printf(&sb, f, "\t%d\t", c);
            number(&sb, f, sigma[c]);
            sb_row_printf(&sb, f, "\t");
            number(&sb, f, sigma[c] / peak);
            sb_row_printf(&sb, f, "\n");
        }
    } else {
        sb_printf(&sb, "%s: sigma ", file);
        list(&sb, f, sigma, n, 1.0);
        sb_printf(&sb, " (of full scale: ");
        list(&sb, f, sigma, n, 1.0 / peak);
        sb_printf(&sb, ")\n");
    }
    return sb_finish(&sb);
}

static wt_status sigma_page(void *arg, batch_item *item, page_binding *page,
                            const report_page *shown, char **report)
{
    sigma_ctx *ctx = arg;
    double sigma[WT_MAX_CHANNELS];
    wt_image layout;
    wt_status st = ctx->pipe.opt->volume /* cli/volume.c */
                       ? volume_sigma(&ctx->pipe, item->input, sigma, &layout)
                       : sigma_file(&ctx->pipe, page, item->input, sigma, &layout);
    if (st == WT_OK)
        *report = sigma_report(ctx, shown, &layout, sigma);
    return st;
}

static void sigma_one(void *arg, batch_item *item)
{
    sigma_ctx *ctx = arg;
    pages_run(&ctx->pipe, item, PAGES_OF_IMAGES, sigma_page, ctx);
}

static void sigma_header(void *arg, FILE *report)
{
    report_table_header(((sigma_ctx *)arg)->format, "file\tchannel\tsigma\tsigma_fraction\tpage\n",
                        report);
}

/* sigma's own options */
typedef struct sigma_options {
    int average; /* --average */
} sigma_options;

static const cli_opt sigma_rows[] = {
    {"average", 0, NULL, cli_opt_flag, offsetof(sigma_options, average),
     "one sigma per image: the mean over channels", NULL, NULL},
};
static const cli_group sigma_group = CLI_GROUP(sigma_rows, 1);

static int run_sigma(const cli_options *o)
{
    const sigma_options *own = o->own;
    sigma_ctx ctx = {0};
    batch_plan plan = {"sigma", 0, NULL, NULL, NULL, NULL, NULL, WT_HOLDS_IMAGE, 1, NULL};
    ctx.format = o->format;
    ctx.average = own->average;
    return pipeline_run_files(&ctx.pipe, o, &plan, sigma_one, &ctx, stdout, sigma_header);
}

const cli_command cmd_sigma = {
    .name = "sigma",
    .synopsis = "[options] INPUT...",
    .tagline = "INPUT...: noise estimate = skimage estimate_sigma",
    .summary =
        "Estimate the Gaussian noise sigma of each channel as scikit-image 0.19.3's\n"
        "estimate_sigma(img, channel_axis=-1) does: one-level db2 transform, median of\n"
        "the nonzero |c| of the diagonal band / 0.6745. Each value in sample units\n"
        "(0-255 for 8-bit) and as a fraction of full scale (what scikit-image reports\n"
        "for img_as_float images). nan: the band has no nonzero coefficient.\n"
        "--volume: a stack as one (z, y, x) array (the 3-D transform's ddd band).\n"
        "Inputs may be directories (walked for {IMAGES}).",
    .groups = (const cli_group *const[]){&cli_group_volume, &cli_group_device, &cli_group_jobs,
                                         &cli_group_input,
                                         &sigma_group, &cli_group_report, &cli_group_verbosity,
                                         NULL},
    .own_size = sizeof(sigma_options),
    .min_args = 1,
    .max_args = -1,
    .run = run_sigma,
};
