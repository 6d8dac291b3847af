/* The subcommands: each cli/cmd_NAME.c defines one `const cli_command
 * cmd_NAME` (options.h) with its name, help, option groups, argument bounds
 * and run function; cli/main.c lists them for help and dispatch. */
#ifndef WT_CLI_COMMANDS_H
#define WT_CLI_COMMANDS_H

#include "options.h"
#include "pages.h"
#include "pipeline.h"

extern const cli_command cmd_decompose;
extern const cli_command cmd_reconstruct;
extern const cli_command cmd_roundtrip;
extern const cli_command cmd_compare;
extern const cli_command cmd_wavelets;
extern const cli_command cmd_denoise; /* cli/cmd_denoise.c */
extern const cli_command cmd_sigma;   /* cli/cmd_sigma.c */
extern const cli_command cmd_stats;   /* cli/cmd_stats.c */
#ifdef WT_HAVE_BENCH
extern const cli_command cmd_bench;          /* cli/cmd_bench.c */
extern const cli_command cmd_bench_pipeline; /* bench --pipeline: cli/bench_pipeline.c */
#endif

/* decompose's work on one file, which bench --pipeline times: the mosaic
 * (.png/.jpg) or the coefficients (.npz) of @p in into @p out. */
wt_status decompose_file(pipeline *p, page_binding *page, const char *in, const char *out);

/* The codecs alone on one file (bench --pipeline's reference pass): @p in
 * decoded, checked as decompose checks it, and encoded into @p out. */
wt_status decompose_transcode_file(pipeline *p, page_binding *page, const char *in,
                                   const char *out);

#endif
