/* The work on one file of each subcommand (load, transform, write, measure),
 * kept apart from argument parsing. Every failure leaves one message in
 * wt_error_message() that names the file. */
#ifndef WT_CLI_PIPELINE_H
#define WT_CLI_PIPELINE_H

#include <pthread.h>
#include <stdio.h>

#include "batch.h"
#include "options.h"
#include "wavetool.h"

/* Where the time of a pipeline's files went: seconds summed over workers. */
typedef struct pipeline_stats {
    double decode, upload, transform, download, encode;
    unsigned long images;
    double pixels;
} pipeline_stats;

/* What a command's files share: options, a pool of engines (one CPU engine
 * per worker; or the GPU engines, one per device, that workers take in turn
 * while they decode and encode) and the time split. */
typedef struct pipeline {
    const cli_options *opt;
    wt_engine **engines;
    char *busy;
    int nengines;
    int is_gpu;
    int transcode_only; /* decompose writes the decoded image: the codecs' time alone */
    pthread_mutex_t lock;
    pthread_cond_t freed;
    pipeline_stats stats;
} pipeline;

/* Open the engines named by --device; -v says which run. Returns an exit
 * code, or CLI_CONTINUE. @p workers: files processed at a time. */
int pipeline_open(pipeline *p, const cli_options *opt, int workers);
void pipeline_close(pipeline *p);

/* decompose: mosaic (.png/.jpg) or coefficients (.npz) of @p in into @p out. */
wt_status pipeline_decompose(pipeline *p, const char *in, const char *out);

/* reconstruct: image of the original size, channels and depth from a .npz. */
wt_status pipeline_reconstruct(pipeline *p, const char *in, const char *out);

typedef struct roundtrip_result {
    wt_image original; /* size and layout for the report (pixels freed) */
    wt_quality quality;
    double kept; /* fraction of detail coefficients left nonzero; 1 without thresholding */
    double bpp;  /* --qstep: estimated bits per pixel of the quantised pyramid */
} roundtrip_result;

/* roundtrip: forward, optional thresholding, inverse; quality against the
 * input; the reconstruction written to @p out unless NULL. */
wt_status pipeline_roundtrip(pipeline *p, const char *in, const char *out, roundtrip_result *r);

/* A command's own work on one file: the image decoded and its transform
 * chosen (-l, -w, ...) as the other commands do; then call(engine, ctx) on an
 * engine of the pool (the CPU engine after a GPU failure under --device auto:
 * @p call must start from scratch each time). Messages name @p file. */
wt_status pipeline_load(pipeline *p, const char *file, wt_image *img, wt_params *params);
wt_status pipeline_on_engine(pipeline *p, const char *file,
                             wt_status (*call)(wt_engine *e, void *ctx), void *ctx);

/* compare: quality of @p b against @p a. */
wt_status pipeline_compare(const cli_options *opt, const char *a, const char *b, wt_quality *q,
                           wt_image *layout);

/* Number of worker threads for @p files files with -j @p jobs (0 = cores). */
int pipeline_workers(int jobs, size_t files);

/* What the file commands share once their options are checked: the files
 * of @p plan, the pipeline @p p opened for as many workers as they need (at
 * most -j), work(ctx, file) on each, reports and the summary on @p report;
 * @p header (or NULL) writes to @p report before the first file's report.
 * Closes @p p. Returns the exit code. */
int pipeline_run_files(pipeline *p, const cli_options *o, const batch_plan *plan,
                       batch_work work, void *ctx, FILE *report,
                       void (*header)(void *ctx, FILE *report));

#endif
