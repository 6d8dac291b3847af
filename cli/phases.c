/* Per-phase CPU time and page faults of a pipeline's files (phases.h). */
#include "phases.h"

#include <stdio.h>
#include <sys/resource.h>

typedef struct phase_clock {
    file_phase phase;
    struct rusage since;
} phase_clock;

static _Thread_local phase_clock clock_of_thread = {.phase = PHASE_NONE};

static double seconds_of(struct timeval tv)
{
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

file_phase phase_enter(phase_totals *t, pthread_mutex_t *lock, file_phase phase)
{
    phase_clock *c = &clock_of_thread;
    file_phase left = c->phase;
    struct rusage now;
    if (getrusage(RUSAGE_THREAD, &now) != 0)
        return left;
    if (left != PHASE_NONE) {
        pthread_mutex_lock(lock);
        t->user[left] += seconds_of(now.ru_utime) - seconds_of(c->since.ru_utime);
        t->sys[left] += seconds_of(now.ru_stime) - seconds_of(c->since.ru_stime);
        t->faults[left] += (double)(now.ru_minflt - c->since.ru_minflt);
        pthread_mutex_unlock(lock);
    }
    c->phase = phase;
    c->since = now;
    return left;
}

double phase_process_seconds(void)
{
    struct rusage self;
    if (getrusage(RUSAGE_SELF, &self) != 0)
        return 0;
    return seconds_of(self.ru_utime) + seconds_of(self.ru_stime);
}

void phase_text(const phase_totals *t, double files, char *buf, size_t size)
{
    static const char *const names[PHASE_COUNT] = {"decode", "before the engine", "engine",
                                                   "after", "encode and write"};
    size_t at = 0;
    double n = files > 0 ? files : 1.0;
    for (int i = 0; i < PHASE_COUNT && at < size; i++) {
        int w = snprintf(buf + at, size - at, "%s%s %.2f+%.2f ms (%.0f faults)", i ? ", " : "",
                         names[i], 1e3 * t->user[i] / n, 1e3 * t->sys[i] / n, t->faults[i] / n);
        at += w > 0 ? (size_t)w : 0;
    }
}
