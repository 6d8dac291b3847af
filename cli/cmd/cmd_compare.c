/* wavetool compare: PSNR and MSE of one image against another. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "pages.h"
#include "pipeline.h"
#include "report.h"
#include "volume.h"

/* ---- conversions asked for by option (--gray, --ignore-alpha, --depth) ---- */

/* compare's own options */
typedef struct compare_options {
    int gray, ignore_alpha; /* --gray, --ignore-alpha */
    int depth;              /* --depth 8|16; 0: the images' own */
} compare_options;

/* 8 or 16 */
static int parse_depth(const cli_arg *a)
{
    static const char *const depths[] = {"8", "16", NULL};
    int choice = 0, rc = cli_parse_choice(a, depths, "8 or 16", &choice);
    *(int *)a->field = choice ? 16 : 8;
    return rc;
}

#define AT(field) offsetof(compare_options, field)
static const cli_opt compare_rows[] = {
    {"gray", 0, NULL, cli_opt_flag, AT(gray),
     "compare luma: RGB to gray (BT.601 weights, as PIL's convert('L'))", NULL, NULL},
    {"ignore-alpha", 0, NULL, cli_opt_flag, AT(ignore_alpha), "leave alpha channels out", NULL,
     NULL},
    {"depth", 0, "8|16", parse_depth, AT(depth),
     "compare at 8 or 16 bits: 8 -> 16 is v x 257, 16 -> 8 is\n"
     "round(v x 255 / 65535); peak 2^depth - 1",
     "the images' own", NULL},
};
static const cli_group compare_group = CLI_GROUP(compare_rows, 1);

static uint32_t sample_at(const wt_image *img, size_t i)
{
    return img->bit_depth > 8 ? ((const uint16_t *)img->pixels)[i]
                              : ((const uint8_t *)img->pixels)[i];
}

static void sample_set(wt_image *img, size_t i, uint32_t v)
{
    if (img->bit_depth > 8)
        ((uint16_t *)img->pixels)[i] = (uint16_t)v;
    else
        ((uint8_t *)img->pixels)[i] = (uint8_t)v;
}

static int has_alpha(const wt_image *img)
{
    return img->channels == 2 || img->channels == 4;
}

/* @p img rebuilt with @p channels channels at @p depth bits: pixel by pixel,
 * luma of RGB when going to gray (ITU-R BT.601 weights in 16-bit fixed point,
 * PIL's convert("L")), alpha kept only when both have it, samples rescaled
 * (8 -> 16: v x 257; 16 -> 8: round(v x 255 / 65535)). */
static wt_status convert_image(wt_image *img, int channels, int depth)
{
    wt_image out = {0};
    wt_status st = wt_image_alloc(&out, img->width, img->height, channels, depth);
    if (st != WT_OK)
        return st;
    out.color = (wt_color)channels;
    int cin = img->channels, colour_in = cin >= 3, colour_out = channels >= 3;
    size_t n = (size_t)img->width * img->height;
    for (size_t p = 0; p < n; p++) {
        uint32_t s[4] = {0, 0, 0, 0}, v[4];
        for (int c = 0; c < cin; c++)
            s[c] = sample_at(img, p * (size_t)cin + (size_t)c);
        if (colour_in && !colour_out)
            v[0] = (uint32_t)(((uint64_t)s[0] * 19595 + (uint64_t)s[1] * 38470 +
                               (uint64_t)s[2] * 7471 + 0x8000) >> 16);
        else
            v[0] = s[0];
        v[1] = colour_out ? s[1] : s[cin - 1]; /* gray + alpha: alpha */
        v[2] = s[2];
        v[3] = s[cin - 1];
        for (int c = 0; c < channels; c++) {
            uint32_t x = v[c];
            if (img->bit_depth == 8 && depth == 16)
                x *= 257;
            else if (img->bit_depth == 16 && depth == 8)
                x = (x * 255 + 32767) / 65535;
            sample_set(&out, p * (size_t)channels + (size_t)c, x);
        }
    }
    wt_image_free(img);
    *img = out;
    return WT_OK;
}

/* The channels and depth both images are compared at, or a message that
 * names the option that would make them comparable. */
static wt_status common_layout(const cli_options *o, const wt_image *a, const wt_image *b,
                               int *channels, int *depth)
{
    const compare_options *c = o->own;
    int ca = a->channels, cb = b->channels;
    if (c->ignore_alpha || (c->gray && has_alpha(a) != has_alpha(b))) {
        ca -= has_alpha(a);
        cb -= has_alpha(b);
    }
    if (c->gray) {
        ca = ca == 4 ? 2 : (ca == 3 ? 1 : ca);
        cb = cb == 4 ? 2 : (cb == 3 ? 1 : cb);
    }
    *depth = c->depth ? c->depth : a->bit_depth;
    if (ca != cb) {
        const char *hint = has_alpha(a) != has_alpha(b) && (ca - has_alpha(a) == cb - has_alpha(b))
                               ? "--ignore-alpha"
                               : "--gray";
        return wt_error_set(WT_ERR_INVALID, "images differ in channels (%d vs %d); %s compares "
                                            "them",
                            ca, cb, hint);
    }
    if (a->bit_depth != b->bit_depth && !c->depth)
        return wt_error_set(WT_ERR_INVALID, "images differ in bit depth (%d vs %d); --depth 8 or "
                                            "--depth 16 compares them",
                            a->bit_depth, b->bit_depth);
    *channels = ca;
    return WT_OK;
}

/* @p img as float32 samples (sample units) unless it is held so already. */
static wt_status as_float(wt_image *img)
{
    wt_image f = {0};
    if (img->bit_depth == WT_DEPTH_F32)
        return WT_OK;
    wt_status st = wt_image_convert(img, (wt_sample_type){WT_SAMPLE_FLOAT, 32}, &f);
    if (st == WT_OK) {
        wt_image_free(img);
        *img = f;
    }
    return st;
}

/* Float32-held images and more than 4 channels are compared as they are (both
 * as float32 when their depths differ); the options' conversions are for
 * 8/16-bit images of 1 to 4 channels. */
static wt_status plain_comparable(const cli_options *o, wt_image *a, wt_image *b)
{
    const compare_options *c = o->own;
    if (c->gray || c->ignore_alpha || c->depth)
        return wt_error_set(WT_ERR_UNSUPPORTED, "--gray, --ignore-alpha and --depth convert "
                                                "8/16-bit images of 1 to 4 channels, not float32 "
                                                "samples or more channels");
    if (a->channels != b->channels)
        return wt_error_set(WT_ERR_INVALID, "images differ in channels (%d vs %d)", a->channels,
                            b->channels);
    wt_status st = WT_OK;
    if (a->bit_depth != b->bit_depth)
        st = as_float(a) == WT_OK ? as_float(b) : WT_ERR_NOMEM;
    return st;
}

static wt_status make_comparable(const cli_options *o, wt_image *a, wt_image *b)
{
    int channels = 0, depth = 0;
    if (a->width != b->width || a->height != b->height)
        return WT_OK; /* wt_quality_compare says so */
    if (a->bit_depth == WT_DEPTH_F32 || b->bit_depth == WT_DEPTH_F32 || a->channels > 4 ||
        b->channels > 4)
        return plain_comparable(o, a, b);
    wt_status st = common_layout(o, a, b, &channels, &depth);
    if (st == WT_OK && (a->channels != channels || a->bit_depth != depth))
        st = convert_image(a, channels, depth);
    if (st == WT_OK && (b->channels != channels || b->bit_depth != depth))
        st = convert_image(b, channels, depth);
    return st;
}

static void warn_recovered(const cli_options *o)
{
    if (wt_warning_message()[0] && !o->quiet)
        fprintf(stderr, "wavetool: warning: %s\n", wt_warning_message());
}

/* Quality of page @p k of @p b against that of @p a (stacks of one page:
 * the images); @p layout gets @p a's size and layout. */
static wt_status compare_files(const cli_options *opt, const char *a, const char *b,
                               wt_stack *sa, wt_stack *sb, size_t k, wt_quality *q,
                               wt_image *layout)
{
    wt_image ia = {0}, ib = {0};
    wt_status st = wt_stack_read(sa, k, &ia);
    if (st == WT_OK) {
        warn_recovered(opt);
        st = wt_stack_read(sb, k, &ib);
    }
    if (st == WT_OK) {
        warn_recovered(opt);
        double peak = 0.0;
        st = make_comparable(opt, &ia, &ib);
        if (st == WT_OK)
            st = report_psnr_peak(opt, &ia, 0.0, &peak);
        if (st == WT_OK)
            st = wt_quality_compare_peak(&ia, &ib, peak, q);
        if (st != WT_OK) {
            char both[2 * 4096 + 8];
            snprintf(both, sizeof both, "%s, %s", pipeline_shown(a), pipeline_shown(b));
            wt_error_prefix(st, both);
        }
    }
    *layout = ia;
    layout->pixels = NULL;
    wt_image_free(&ia);
    wt_image_free(&ib);
    return st;
}

/* Both inputs opened as stacks (one page for an ordinary image); stacks must
 * have as many pages. */
static wt_status open_pair(const cli_options *o, wt_stack **sa, wt_stack **sb)
{
    wt_load_options each = o->load; /* two images at once share --max-memory */
    each.max_memory /= 2;
    *sa = *sb = NULL;
    wt_status st = wt_stack_open(o->args[0], &each, sa);
    if (st == WT_OK)
        st = wt_stack_open(o->args[1], &each, sb);
    if (st == WT_OK && wt_stack_pages(*sa) != wt_stack_pages(*sb))
        st = wt_error_set(WT_ERR_INVALID, "%s has %zu pages, %s has %zu",
                          pipeline_shown(o->args[0]), wt_stack_pages(*sa),
                          pipeline_shown(o->args[1]), wt_stack_pages(*sb));
    return st;
}

/* The report of page @p k (of @p pages): a stack's pages named A[K] in text
 * and given a page column in TSV and JSON. */
static char *page_report(const cli_options *o, const report_spec *spec, size_t k, size_t pages,
                         const wt_image *layout, const wt_quality *q)
{
    char *a = pages > 1 && o->format == REPORT_TEXT ? pages_label(o->args[0], k) : NULL;
    char *b = pages > 1 && o->format == REPORT_TEXT ? pages_label(o->args[1], k) : NULL;
    report_page page = {a ? a : o->args[0], k, pages};
    char *line = report_quality(spec, &page, b ? b : o->args[1], layout, q, 1.0);
    char *paged = line ? pages_report_lines(o->format, line, k, pages) : NULL;
    free(a);
    free(b);
    free(line);
    return paged;
}

/* --volume: one report line for the two volumes (cli/volume.c). */
static int compare_volumes(const cli_options *o, const report_spec *spec)
{
    wt_quality q;
    wt_image layout;
    const compare_options *c = o->own;
    wt_status st = c->gray || c->ignore_alpha || c->depth
                       ? wt_error_set(WT_ERR_UNSUPPORTED, "--volume compares volumes of one "
                                                          "layout, without --gray, "
                                                          "--ignore-alpha or --depth")
                       : volume_compare(o, &q, &layout);
    report_page page = {o->args[0], 0, 1};
    char *line = st == WT_OK ? report_quality(spec, &page, o->args[1], &layout, &q, 1.0) : NULL;
    if (line) {
        report_header(spec, stdout);
        fputs(line, stdout);
        free(line);
    } else if (st == WT_OK) {
        st = wt_error_set(WT_ERR_NOMEM, "out of memory");
    }
    if (st == WT_OK)
        return EXIT_ALL_DONE;
    fprintf(stderr, "wavetool: %s\n", wt_error_message());
    return EXIT_SOME_FAILED;
}

static int run_compare(const cli_options *o)
{
    wt_quality q;
    wt_image layout;
    wt_stack *sa, *sb;
    report_spec spec = {o->format, 1, 1, 0, 1, 0.0};
    if (o->volume)
        return compare_volumes(o, &spec);
    wt_status st = open_pair(o, &sa, &sb);
    size_t pages = st == WT_OK ? wt_stack_pages(sa) : 0;
    for (size_t k = 0; st == WT_OK && k < pages; k++) {
        st = compare_files(o, o->args[0], o->args[1], sa, sb, k, &q, &layout);
        char *line = st == WT_OK ? page_report(o, &spec, k, pages, &layout, &q) : NULL;
        if (st == WT_OK && !line)
            st = wt_error_set(WT_ERR_NOMEM, "out of memory");
        if (st == WT_OK && k == 0)
            report_header(&spec, stdout);
        if (line)
            fputs(line, stdout);
        free(line);
    }
    wt_stack_close(sa);
    wt_stack_close(sb);
    if (st != WT_OK) {
        fprintf(stderr, "wavetool: %s\n", wt_error_message());
        return EXIT_SOME_FAILED;
    }
    return EXIT_ALL_DONE;
}

const cli_command cmd_compare = {
    .name = "compare",
    .synopsis = "[options] A B",
    .tagline = "A B: PSNR/MSE of two images",
    .summary =
        "Report PSNR and MSE of B against A: per channel and of the mean MSE over\n"
        "channels (as ffmpeg's psnr filter), peak 2^depth - 1 (--data-range: another,\n"
        "as scikit-image's data_range), MSE in sample units.\n"
        "Identical images give inf. Both must have the same size; images that differ\n"
        "in channels or depth are compared only when an option says how: --gray,\n"
        "--ignore-alpha, --depth 8|16 (the report's peak is then 2^depth - 1).\n"
        "Stacks are compared page by page; with --volume as one volume, one line.",
    .groups = (const cli_group *const[]){&cli_group_input, &cli_group_volume, &compare_group,
                                         &cli_group_report, &cli_group_psnr,
                                         &cli_group_verbosity, NULL},
    .own_size = sizeof(compare_options),
    .min_args = 2,
    .max_args = 2,
    .run = run_compare,
};
