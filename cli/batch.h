/* Many inputs: the list of files (directories walked), output names, worker
 * threads that each process whole files, progress, messages and a summary. */
#ifndef WT_CLI_BATCH_H
#define WT_CLI_BATCH_H

#include <stddef.h>
#include <stdio.h>

/* ITEM_STOPPED: not run, or failed silently, once the batch stopped
 * (batch_run_options.stopped) */
typedef enum item_state {
    ITEM_PENDING = 0,
    ITEM_DONE,
    ITEM_FAILED,
    ITEM_SKIPPED,
    ITEM_STOPPED
} item_state;

typedef struct batch_item {
    char *input;
    char *output;    /* NULL: this command writes nothing for the item */
    item_state state;
    char *report;    /* text for the report stream, or NULL */
    char *message;   /* one line for stderr (no "wavetool: "), or NULL */
    char *notes;     /* warnings and -v lines for stderr, each ending in '\n', or NULL */
    double pixels;   /* pixels read, for the progress line's MPixel/s */
    size_t root_len; /* found in a directory: length of that directory's prefix of input
                        (the rest is mirrored under -O); 0 for a file given as such */
    char *mirror;    /* -O: the folder below DIR the output goes in ("" or "sub/dir/") */
} batch_item;

typedef struct batch {
    batch_item *items;
    size_t count, capacity;
    int is_batch; /* several inputs, a directory or -O: summary at the end */
} batch;

/* Add inputs: files as given, directories walked (recursively, sorted) for
 * files whose extension names a format that holds any of @p holds (WT_HOLDS_*). A directory that cannot be read is an item that
 * fails. Returns 0, or -1 when out of memory (message printed). */
int batch_add_inputs(batch *b, char **paths, int count, unsigned holds);

/* Single-file form: one input with its output path (may be NULL). */
int batch_add_single(batch *b, const char *input, const char *output);

/* Work on one item: set state to ITEM_DONE or ITEM_FAILED (with message), and
 * optionally a report. Runs on worker threads. */
typedef void (*batch_work)(void *ctx, batch_item *item);

typedef struct batch_run_options {
    int jobs;       /* worker threads (>= 1) */
    int quiet, verbose;
    int no_clobber; /* skip items whose output exists */
    FILE *report;   /* where reports go (stdout, or stderr when an output is stdout) */
    /* written on report before the first item's output, unless the batch
       stopped first (NULL: none) */
    void (*header)(void *ctx, FILE *report);
    /* NULL, or true once the batch must stop, its reason said elsewhere (a
       pool that did not open): no item starts, and those that fail from then
       on say nothing, nor does the summary */
    int (*stopped)(void *arg);
    void *stop_arg;
} batch_run_options;

/* Process every item; reports and messages come out in input order. Returns the
 * exit code: 0 when nothing failed, else 1 (also when the batch stopped). */
int batch_run(batch *b, const batch_run_options *opt, batch_work work, void *ctx);
/* The worker of batch_run that calls: 0 .. jobs - 1, for state a worker keeps
 * from item to item; -1 outside batch_run's workers. */
int batch_worker_index(void);

void batch_free(batch *b);

/* How a file command's arguments become items. */
typedef struct batch_plan {
    const char *cmd;           /* for usage errors */
    int in_out_pair;           /* without -O the arguments are IN OUT */
    const char *single_output; /* roundtrip -o, or NULL */
    const char *outdir, *suffix, *ext; /* -O DIR, --suffix, --ext */
    const char *default_ext;
    unsigned walk_holds;       /* a directory walk picks up files of formats holding this */
    int passes;                /* transforms per input, for --device auto (0: one) */
    const char *base;          /* --base DIR: -O mirrors every input's path below DIR
                                  (NULL: a file's below the current folder, a walked
                                  file's below its directory argument) */
} batch_plan;

/* Items from the positional arguments. Returns CLI_CONTINUE, or the exit code
 * after a usage error or a failure (message printed). */
int batch_plan_files(batch *b, const batch_plan *plan, char **args, int nargs);

/* Record the outcome of work on an item: done, or failed with the library's
 * message (which names the file). */
void batch_item_result(batch_item *it, int status);

/* A line for stderr about @p item (printed with "wavetool: " in input order,
 * before its message); straight to stderr when @p item is NULL. */
void batch_note(batch_item *item, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Count @p pixels read for @p item (NULL: none). */
void batch_count_pixels(batch_item *item, double pixels);

/* Format into a new string (NULL when out of memory). */
char *batch_strdupf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif
