/* wavetool stats: per band and channel statistics of each input's transform,
 * energy shares, noise and rate estimates; optionally an SVG chart. */
#include <math.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "commands.h"
#include "figures.h"
#include "options.h"
#include "packet.h"
#include "pages.h"
#include "pipeline.h"
#include "stats_plot.h"
#include "stats_report.h"
#include "undecimated.h"
#include "volume.h"

typedef struct stats_ctx {
    pipeline pipe;
    const cli_options *opt;
    const char *plot; /* --plot FILE.svg, or NULL */
    pthread_mutex_t lock;
    file_figures *kept; /* for --plot: every file that succeeded */
    size_t nkept, cap;
    int out_of_memory;
} stats_ctx;

typedef struct stats_job {
    const wt_image *img;
    file_figures *f;
} stats_job;

static wt_status figures_on(wt_epyramid *ep, void *f)
{
    return figures_compute(ep, f);
}

/* On an engine: forward transform into an engine pyramid, then the figures. */
static wt_status stats_on(wt_engine *e, void *arg)
{
    stats_job *j = arg;
    free(j->f->bands); /* a retry on the CPU engine starts over */
    j->f->bands = NULL;
    return pipeline_on_epyramid(e, &j->f->params, j->img, figures_on, j->f);
}

/* --transform swt|starlet: the band stack on the engine, the figures on the host. */
/* stats' own options */
typedef struct stats_options {
    double qstep;     /* --qstep Q; 0: figures_default_qstep */
    double eps;       /* --eps E; NAN: the quantiser step */
    const char *plot; /* --plot FILE.svg */
} stats_options;

#define AT(field) offsetof(stats_options, field)
static const cli_opt stats_rows[] = {
    {"qstep", 0, "Q", cli_opt_real, AT(qstep), "dead-zone quantiser step",
     "1 for 8-bit; 16-bit: 2^b/256, b the bits of the largest\nsample (at least 8)",
     &(cli_real_range){1e-9, 1e30}},
    {"eps", 0, "E", cli_opt_real, AT(eps), "near-zero means |c| <= E", "the quantiser step",
     &(cli_real_range){0.0, 1e30}},
    {"plot", 0, "FILE.svg", cli_opt_string, AT(plot),
     "write an SVG bar chart of the energy share per band\n(packets: the basis's tree)", NULL,
     NULL},
};
static const cli_group stats_group = CLI_GROUP(stats_rows, 1);

static void stats_defaults(cli_options *o)
{
    ((stats_options *)o->own)->eps = NAN;
}

static wt_status stack_figures_of(stats_ctx *ctx, const wt_image *img, const char *file,
                                  file_figures *f)
{
    wt_uparams up;
    float *stack = NULL;
    wt_status st = undecimated_forward(&ctx->pipe, img, file, &up, &stack);
    if (st == WT_OK) {
        f->params.levels = up.levels;
        f->border = up.border;
        st = figures_compute_stack(&up, stack, f);
    }
    free(stack);
    return st;
}

/* --transform packet: the tree and its basis (cli/packet.c), the figures of
 * the basis's leaves on the host. */
static wt_status packet_figures_of(stats_ctx *ctx, const wt_image *img, const char *file,
                                   file_figures *f)
{
    wt_packet_tree t = {0};
    unsigned char *basis = NULL;
    wt_status st = packet_tree_of(&ctx->pipe, img, file, &t, &basis);
    if (st == WT_OK) {
        f->params = t.params;
        f->basis = ctx->opt->basis;
        f->cost = ctx->opt->cost;
        st = figures_compute_packets(&t, basis, f);
    }
    wt_packet_free(&t);
    free(basis);
    return st;
}

static wt_status figures_of(stats_ctx *ctx, page_binding *page, const char *file,
                            file_figures *f)
{
    const cli_options *o = ctx->opt;
    const stats_options *own = o->own;
    if (o->volume) /* cli/volume.c */
        return volume_figures(&ctx->pipe, pages_item(page), file, own->qstep, own->eps, f);
    wt_image img = {0};
    wt_status st = pages_load(&ctx->pipe, page, file, &img);
    const wt_tlayout layout = wt_transform_class_of(o->transform)->layout;
    f->transform = o->transform;
    f->params = o->params;
    if (st == WT_OK && layout == WT_LAYOUT_PYRAMID)
        st = pipeline_params_for(o, pages_item(page), &img, file, &f->params);
    if (st == WT_OK) {
        f->layout = img;
        f->layout.pixels = NULL;
        f->qstep = own->qstep > 0.0 ? own->qstep : figures_default_qstep(&img);
        f->eps = isnan(own->eps) ? f->qstep : own->eps;
        f->file = strdup(file);
        stats_job job = {&img, f};
        if (!f->file)
            st = wt_error_set(WT_ERR_NOMEM, "out of memory");
        else if (layout == WT_LAYOUT_STACK)
            st = stack_figures_of(ctx, &img, file, f);
        else if (layout == WT_LAYOUT_PACKET)
            st = packet_figures_of(ctx, &img, file, f);
        else
            st = pipeline_engine_run(&ctx->pipe, stats_on, &job, file);
    }
    wt_image_free(&img);
    return st;
}

/* Keep @p f for the chart (ownership moves), or free it. */
static void keep_for_plot(stats_ctx *ctx, file_figures *f)
{
    pthread_mutex_lock(&ctx->lock);
    if (ctx->nkept == ctx->cap) {
        size_t cap = ctx->cap ? 2 * ctx->cap : 16;
        file_figures *grown = realloc(ctx->kept, cap * sizeof *grown);
        if (grown) {
            ctx->kept = grown;
            ctx->cap = cap;
        }
    }
    if (ctx->nkept < ctx->cap)
        ctx->kept[ctx->nkept++] = *f;
    else {
        ctx->out_of_memory = 1;
        figures_free(f);
    }
    pthread_mutex_unlock(&ctx->lock);
}

static wt_status stats_page(void *arg, batch_item *item, page_binding *page,
                            const report_page *named, char **report)
{
    const char *shown = named->shown;
    stats_ctx *ctx = arg;
    file_figures f = {0};
    wt_status st = figures_of(ctx, page, item->input, &f);
    if (st == WT_OK && strcmp(shown, f.file) != 0) { /* a page: its label */
        char *label = strdup(shown);
        if (label) {
            free(f.file);
            f.file = label;
        }
    }
    if (st == WT_OK)
        *report = stats_report(ctx->opt->format, &f, named);
    char *label = st == WT_OK && page->pages > 1 ? pages_label(item->input, page->page) : NULL;
    if (label) { /* the chart names a page FILE[K] whatever the report's format */
        free(f.file);
        f.file = label;
    }
    if (st == WT_OK && ctx->plot)
        keep_for_plot(ctx, &f);
    else
        figures_free(&f);
    return st;
}

static void stats_one(void *arg, batch_item *item)
{
    stats_ctx *ctx = arg;
    pages_run(&ctx->pipe, item, PAGES_OF_IMAGES, stats_page, ctx);
}

static void stats_header(void *ctx, FILE *report)
{
    stats_report_header(((stats_ctx *)ctx)->opt->format, report);
}

static int compare_file(const void *a, const void *b)
{
    return strcmp(((const file_figures *)a)->file, ((const file_figures *)b)->file);
}

/* The chart of the files that succeeded, in name order. */
static int write_plot(stats_ctx *ctx, int rc)
{
    if (ctx->out_of_memory) {
        fputs("wavetool: out of memory for --plot\n", stderr);
        return EXIT_SOME_FAILED;
    }
    if (ctx->nkept == 0) {
        fprintf(stderr, "wavetool: %s: not written, no input succeeded\n", ctx->plot);
        return EXIT_SOME_FAILED;
    }
    qsort(ctx->kept, ctx->nkept, sizeof *ctx->kept, compare_file);
    if (stats_plot_write(ctx->plot, ctx->kept, ctx->nkept) != WT_OK) {
        fprintf(stderr, "wavetool: %s\n", wt_error_message());
        return EXIT_SOME_FAILED;
    }
    return rc;
}

static int check_plot(const cli_options *o)
{
    const char *plot = ((const stats_options *)o->own)->plot;
    size_t len = plot ? strlen(plot) : 0;
    if (o->all_approx)
        return cli_usage_error("stats", "--all-approx: stats reports the bands of "
                                        "trim_approx=True (cA, cH1..cD1)");
    if (plot && o->volume)
        return cli_usage_error("stats", "--plot charts the bands of images, not of a --volume");
    if (plot && (len < 4 || strcmp(plot + len - 4, ".svg") != 0))
        return cli_usage_error("stats", "--plot %s: the chart is SVG; name it FILE.svg", plot);
    return CLI_CONTINUE;
}

static int run_stats(const cli_options *o)
{
    stats_ctx ctx = {0};
    batch_plan plan = {"stats", 0, NULL, NULL, NULL, NULL, NULL, WT_HOLDS_IMAGE, 1, NULL};
    int rc = check_plot(o);
    if (rc != CLI_CONTINUE)
        return rc;
    ctx.opt = o;
    ctx.plot = ((const stats_options *)o->own)->plot;
    pthread_mutex_init(&ctx.lock, NULL);
    rc = pipeline_run_files(&ctx.pipe, o, &plan, stats_one, &ctx, stdout, stats_header);
    if (ctx.plot && rc != EXIT_USAGE)
        rc = write_plot(&ctx, rc);
    for (size_t i = 0; i < ctx.nkept; i++)
        figures_free(&ctx.kept[i]);
    free(ctx.kept);
    pthread_mutex_destroy(&ctx.lock);
    return rc;
}

const cli_command cmd_stats = {
    .name = "stats",
    .synopsis = "[options] INPUT... [--plot FILE.svg]",
    .tagline = "INPUT...: per-band statistics, energy shares, rate estimate",
    .summary =
        "Per band and channel of each input's transform: shape, mean, std, min, max,\n"
        "max |c|, energy and its share of the channel's total (MATLAB wenergy2), the\n"
        "fractions of zero and near-zero (|c| <= --eps) coefficients, the MAD noise\n"
        "estimate median|c|/0.6745, and the zeroth-order entropy of the dead-zone\n"
        "quantiser indices sign(c) floor(|c|/Q) (--qstep Q, default 2^b/256, b the bits\n"
        "the samples use: 8-bit 8, 16-bit those of the largest sample), with\n"
        "the estimated bits per pixel of the whole image. --plot writes an SVG bar\n"
        "chart of the energy share per band: one bar per file for up to 6 files, else\n"
        "their mean with min-max whiskers. Inputs may be directories (walked for\n"
        "{IMAGES}). --transform swt|starlet: the same figures over the undecimated\n"
        "bands (SWT cA, cH{l}, cV{l}, cD{l}; starlet c, w1..wL), all of the image's\n"
        "size; bpp then counts every band, so it exceeds the decimated one.\n"
        "--transform packet: the leaves of the basis (--basis, --cost), named by\n"
        "their paths, each with its cost per channel and its share of the energy of\n"
        "the channel's leaves; --plot draws the tree of each file's basis.\n"
        "--volume: the bands of the (z, y, x) transform (aad2 ...; bits per voxel).",
    .groups = (const cli_group *const[]){&cli_group_transform, &cli_group_swt, &cli_group_starlet,
                                         &cli_group_packet, &cli_group_volume, &cli_group_device, &cli_group_jobs, &cli_group_input,
                                         &stats_group, &cli_group_report, &cli_group_verbosity,
                                         NULL},
    .own_size = sizeof(stats_options),
    .defaults = stats_defaults,
    .min_args = 1,
    .max_args = -1,
    .run = run_stats,
};
