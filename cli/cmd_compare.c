/* wavetool compare: PSNR and MSE of one image against another. */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "options.h"
#include "pipeline.h"
#include "report.h"

/* Quality of @p b against @p a; @p layout gets @p a's size and layout. */
static wt_status compare_files(const cli_options *opt, const char *a, const char *b,
                               wt_quality *q, wt_image *layout)
{
    wt_image ia = {0}, ib = {0};
    wt_load_options each = opt->load; /* two images at once share --max-memory */
    each.max_memory /= 2;
    wt_status st = wt_image_load(a, &each, &ia);
    if (st == WT_OK)
        st = wt_image_load(b, &each, &ib);
    if (st == WT_OK && (st = wt_quality_compare(&ia, &ib, q)) != WT_OK) {
        char both[2 * 4096 + 8];
        snprintf(both, sizeof both, "%s, %s", pipeline_shown(a), pipeline_shown(b));
        wt_error_prefix(st, both);
    }
    *layout = ia;
    layout->pixels = NULL;
    wt_image_free(&ia);
    wt_image_free(&ib);
    return st;
}

static int run_compare(const cli_options *o)
{
    wt_quality q;
    wt_image layout;
    report_spec spec = {o->format, 1, 1, 0, 1, 0.0};
    if (compare_files(o, o->args[0], o->args[1], &q, &layout) != WT_OK) {
        fprintf(stderr, "wavetool: %s\n", wt_error_message());
        return EXIT_SOME_FAILED;
    }
    char *line = report_quality(&spec, o->args[0], o->args[1], &layout, &q, 1.0);
    if (!line) {
        fputs("wavetool: out of memory\n", stderr);
        return EXIT_SOME_FAILED;
    }
    report_header(&spec, stdout);
    fputs(line, stdout);
    free(line);
    return EXIT_ALL_DONE;
}

const cli_command cmd_compare = {
    .name = "compare",
    .synopsis = "[options] A B",
    .tagline = "A B: PSNR/MSE of two images",
    .summary =
        "Report PSNR and MSE of B against A: per channel and of the mean MSE over\n"
        "channels (as ffmpeg's psnr filter), peak 2^depth - 1, MSE in sample units.\n"
        "Identical images give inf. Both must have the same size, channels and depth.",
    .groups = OPTS_LOAD | OPTS_REPORT,
    .min_args = 2,
    .max_args = 2,
    .run = run_compare,
};
