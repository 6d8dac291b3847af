/* wavetool compare: PSNR and MSE of one image against another. */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "options.h"
#include "pipeline.h"
#include "report.h"

static const cli_command compare_command = {
    "compare",
    "[options] A B",
    "Report PSNR and MSE of B against A: per channel and of the mean MSE over\n"
    "channels (as ffmpeg's psnr filter), peak 2^depth - 1, MSE in sample units.\n"
    "Identical images give inf. Both must have the same size, channels and depth.",
    OPTS_LOAD | OPTS_REPORT,
    2,
    2,
};

int cmd_compare(int argc, char **argv)
{
    cli_options o;
    wt_quality q;
    wt_image layout;
    int rc = cli_parse(&compare_command, argc, argv, &o);
    if (rc != CLI_CONTINUE)
        return rc;
    report_spec spec = {o.format, 1, 1, 0, 1, 0.0};
    if (pipeline_compare(&o, o.args[0], o.args[1], &q, &layout) != WT_OK) {
        fprintf(stderr, "wavetool: %s\n", wt_error_message());
        return EXIT_SOME_FAILED;
    }
    char *line = report_quality(&spec, o.args[0], o.args[1], &layout, &q, 1.0);
    if (!line) {
        fputs("wavetool: out of memory\n", stderr);
        return EXIT_SOME_FAILED;
    }
    report_header(&spec, stdout);
    fputs(line, stdout);
    free(line);
    return EXIT_ALL_DONE;
}
