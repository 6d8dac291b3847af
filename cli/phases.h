/* Where a file's CPU goes: each worker thread is in one phase of its file at
 * a time (decoding, host work before the engine, the engine, host work
 * after it, encoding and writing), and what the thread used in a phase
 * (getrusage RUSAGE_THREAD: user and system time, minor page faults) is
 * added to that phase's totals when it leaves it. -v prints them a file
 * (pipeline_run_files), so the host's share of a GPU pipeline is measured
 * without a profiler. */
#ifndef WT_CLI_PHASES_H
#define WT_CLI_PHASES_H

#include <pthread.h>
#include <stddef.h>

typedef enum file_phase {
    PHASE_NONE = -1, /* not in a file: not counted */
    PHASE_DECODE,    /* decoding (also ahead, for another worker's file) */
    PHASE_BEFORE,    /* the file's host work before its engine call */
    PHASE_ENGINE,    /* waiting for an engine and holding it */
    PHASE_AFTER,     /* host work after the engine call, but encoding */
    PHASE_ENCODE,    /* encoding and writing the output (system time: mostly the writes) */
    PHASE_COUNT
} file_phase;

typedef struct phase_totals {
    double user[PHASE_COUNT], sys[PHASE_COUNT]; /* seconds */
    double faults[PHASE_COUNT];                 /* minor page faults */
} phase_totals;

/* The calling thread leaves its phase for @p phase: what it used since it
 * entered the one it leaves is added to @p t (under @p lock). Returns the
 * phase left, for a nested phase to go back to. */
file_phase phase_enter(phase_totals *t, pthread_mutex_t *lock, file_phase phase);

/* The whole process's CPU so far (user + system seconds, every thread). */
double phase_process_seconds(void);

/* "decode U+S ms (F faults), ..." a file of @p files, into @p buf. */
void phase_text(const phase_totals *t, double files, char *buf, size_t size);

#endif
