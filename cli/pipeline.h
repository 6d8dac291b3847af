/* What every file command shares: the engine pool with GPU fallback, timed
 * decoding and encoding, the transform for an image and running the files.
 * A command's own work on a file lives in its cli/cmd_NAME.c. Every failure
 * leaves one message in wt_error_message() that names the file. */
#ifndef WT_CLI_PIPELINE_H
#define WT_CLI_PIPELINE_H

#include <pthread.h>
#include <stdio.h>

#include "batch.h"
#include "options.h"
#include "phases.h"
#include "wavetool.h"
#include "wavetool_hooks.h" /* wt_seconds */

/* Where the time of a pipeline's files went: seconds summed over workers. */
typedef struct pipeline_stats {
    double decode, upload, transform, download, encode;
    double held, waited; /* an engine held by a file, a file waiting for one */
    double longest;      /* the longest that one file held an engine */
    unsigned long images;
    double pixels;
    phase_totals cpu; /* the workers' CPU by phase of their files (phases.h) */
} pipeline_stats;

/* A worker's page-locked pixel buffers (pipeline.c, "rooms"): the decoded
 * input and the drawn output, kept from file to file. */
typedef struct pipeline_rooms {
    wt_pixel_room input, output;
    int ready; /* made (the pool's opener makes them; p->lock) */
} pipeline_rooms;

/* A file decoded ahead while a GPU opened (pipeline.c, "decoding ahead"). */
typedef struct pipeline_ahead pipeline_ahead;

/* What a command's files share: options, a pool of engines (one CPU engine
 * per worker; or the GPU engines, one per device, that workers take in turn
 * while they decode and encode) and the time split. */
typedef struct pipeline {
    const cli_options *opt;
    wt_load_options load; /* opt->load, --max-memory shared by the files at a time */
    wt_engine **engines;
    char *busy;
    int nengines;
    int is_gpu;
    int lanes; /* GPU pools: engines per GPU (pipeline.c); nengines / lanes GPUs */
    int usable;      /* engines [0, usable) are taken; fewer once lanes are dropped */
    int lanes_left;  /* dropped lanes still open (closed when given back) */
    int workers, threads; /* files at a time; threads per CPU engine */
    pthread_mutex_t lock;
    pthread_cond_t freed; /* an engine given back, or the pool opened */
    pipeline_stats stats;
    /* GPU pools (WT_PIXEL_ROOMS): one per worker (batch_worker_index) */
    pipeline_rooms *rooms;
    int rooms_on;
    size_t room_hint; /* bytes each room is made as the pool opens (0: none) */
    int rooms_once;   /* no more files than workers: a room would serve one file */
    int rooms_behind; /* WT_ROOMS_BEHIND=1: made after the pool is open (pipeline.c) */
    double rooms_took, rooms_ready_at; /* seconds making them; since the opening began */
    /* a GPU opens on a thread of its own while the first files decode (pipeline.c) */
    const char *device;    /* --device, or "cpu" for volumes the GPU does not run */
    pthread_t opener;
    int has_opener, opening, opened_behind; /* opened_behind: on that thread */
    int cpu_chosen;        /* the auto model chose the CPU engine */
    wt_status open_status; /* the pool could not be opened: why (the batch stops) */
    char open_error[512];
    double opened_in;      /* seconds the background opening took (-v) */
    /* while a GPU opens, the waiting workers decode the next files (pipeline.c) */
    const batch *files;
    pipeline_ahead *ahead; /* one per file; NULL: no decoding ahead */
    size_t ahead_next;     /* the first file not looked at yet */
    int ahead_held, ahead_most, ahead_done; /* being decoded or waiting; at most; in all */
    uint64_t ahead_bytes, ahead_budget;     /* pixels waiting; at most */
    /* --gpu-decode, --gpu-encode: the GPU JPEG codec runs; what (for bench) */
    int gpu_codec;
    char gpu_codec_text[96];
} pipeline;

/* Open the engines named by --device; -v says which run. Returns an exit
 * code, or CLI_CONTINUE. @p workers: files processed at a time; @p job:
 * what --device auto weighs (NULL: try the GPU first); @p room_hint: bytes
 * of pixels a file is likely to have (its first's samples; 0: unknown), for
 * the pixel rooms the pool's opening makes; @p files: the folder's (0:
 * unknown), no more than @p workers: no rooms (each would serve one file). */
int pipeline_open(pipeline *p, const cli_options *opt, int workers, const wt_auto_job *job,
                  size_t room_hint, size_t files);
/* Wait until the engines are open (a GPU's open while the first files
 * decode); pipeline_close waits too. */
void pipeline_wait_open(pipeline *p);
/* Whether the pool of pipeline @p pipe failed to open in the background (its
 * one line said why): the files stop, those waiting for it silently (the
 * batch_run_options.stopped of the pipeline's files). */
int pipeline_stopped(void *pipe);
void pipeline_close(pipeline *p);

/* Work for an engine: called with an engine of the pool, and again with a
 * CPU engine of its own when a GPU fails under --device auto. */
typedef wt_status (*pipeline_job)(wt_engine *e, void *arg);

/* An engine of the pool, once it is open, as all of them are (the GPU's or
 * the CPU's), for what a job would run on; NULL when none opened. */
const wt_engine *pipeline_engine_kind(pipeline *p);

/* Run @p job(engine, @p arg) on an engine of the pool (the CPU engine after a
 * GPU failure under --device auto; -v says so); messages name @p file. */
wt_status pipeline_engine_run(pipeline *p, pipeline_job job, void *arg, const char *file);

/* Work on an engine pyramid that holds an image's transform. */
typedef wt_status (*pipeline_epyramid_work)(wt_epyramid *ep, void *arg);

/* The forward transform of @p img into an engine pyramid made on @p e, then
 * @p work(pyramid, @p arg) unless that failed; the pyramid destroyed after. */
wt_status pipeline_on_epyramid(wt_engine *e, const wt_params *params, const wt_image *img,
                               pipeline_epyramid_work work, void *arg);

/* Decode @p file (--max-pixels, --lenient), or page @p page of @p stack when
 * it is not NULL (@p file then names it in messages); the time and pixels
 * counted, a warning noted for @p item (batch_note; NULL: none). Commands read their inputs through pages_load (pages.h). */
wt_status pipeline_decode(pipeline *p, batch_item *item, const char *file, wt_stack *stack,
                          size_t page, wt_image *img);
/* pipeline_decode of a file (read through @p stack, its one page, when it
 * is not NULL), its pixels borrowed from the calling worker's input room
 * when the pool has rooms (else owned): the image must be gone before the
 * worker's next file. */
wt_status pipeline_decode_borrowing(pipeline *p, batch_item *item, const char *file,
                                    wt_stack *stack, wt_image *img);
/* The calling worker's room for an image drawn for its file (a mosaic), or
 * NULL when the pool has none: at most one such image at a time. */
wt_pixel_room *pipeline_output_room(pipeline *p);
/* @p img's pixels, when it owns them, copied into the calling worker's input
 * room when the pool has rooms (an input decoded while a GPU opened, before
 * the rooms were there): the image must be the worker's only one that
 * borrows that room, and gone before its next file. */
void pipeline_input_to_room(pipeline *p, wt_image *img);

/* The engine section of @p s into @p buf: how long files held an engine (a
 * GPU pool's serial part) and its parts (upload, transform, download; a GPU
 * engine's on the device's clock), how long they waited for one, in all and
 * a file; and whether pixel rooms were used. */
void pipeline_engine_section(const pipeline *p, const pipeline_stats *s, char *buf,
                             size_t size);

/* Encode @p img into @p out (type from the name or --ext), the time counted. */
wt_status pipeline_save(pipeline *p, const char *out, const wt_image *img);

/* Coefficients into @p out (.npz): a DWT pyramid or an undecimated band
 * stack (a stack's page: pages_save_pyramid, pages_save_bands). */
wt_status pipeline_save_pyramid(pipeline *p, const char *out, const wt_pyramid *pyr,
                                const wt_npz_meta *meta);
wt_status pipeline_save_bands(pipeline *p, const char *out, const wt_uparams *up,
                              const float *bands, const wt_npz_meta *meta);
/* The meta of @p img's coefficients as far as the image says: zeroed, then
 * its size, channels, depth, stored type and colour (the caller adds the
 * transform's). */
void pipeline_meta_of_image(const wt_image *img, wt_npz_meta *meta);
/* -v: the parts of @p img's metadata the format of @p out cannot hold. */
void pipeline_say_meta_left_out(const pipeline *p, const char *out, const wt_image *img);
/* The input's metadata @p img's coefficient file stores: NULL with --strip. */
wt_image_meta *pipeline_kept_meta(const pipeline *p, const wt_image *img);
/* A coefficient file (wt_npz_load_any; a stack's page: pages_load_coefficients),
 * with the input's metadata it stores in meta->image (none with --strip; the
 * caller releases it); the time counted as decoding. */
wt_status pipeline_load_coefficients(pipeline *p, const char *in, wt_pyramid *pyr, float **bands,
                                     wt_uparams *up, wt_npz_meta *meta);

/* The calling worker enters @p phase of its file (phases.h); returns the one
 * it left. */
file_phase pipeline_phase(pipeline *p, file_phase phase);

/* A timed span of a file's work: its wall-clock start and the phase it left. */
typedef struct pipeline_span {
    double start;
    file_phase was;
} pipeline_span;
/* The calling worker starts a span of @p phase (decoding, encoding, ...). */
pipeline_span pipeline_span_start(pipeline *p, file_phase phase);
/* Its seconds added to @p slot of p->stats, the phase before it resumed. */
void pipeline_span_end(pipeline *p, double *slot, pipeline_span span);

/* Add the seconds since @p since (wt_seconds()) to @p slot of p->stats. */
void pipeline_add_time(pipeline *p, double *slot, double since);

/* The transform for this image: -l max, the levels asked for if they fit, or
 * the default (3) made smaller for small images (said in a note for @p item,
 * NULL: on stderr). */
wt_status pipeline_params_for(const cli_options *o, batch_item *item, const wt_image *img,
                              const char *file, wt_params *p);

/* How a path appears in messages ("-": "(stdin)"). */
const char *pipeline_shown(const char *file);

/* Put the file's name in front of the message of a function that does not
 * know it (engine, pyramid, mosaic); returns @p st. */
wt_status pipeline_name_error(wt_status st, const char *file);

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
