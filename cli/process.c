/* Standard descriptors, fatal signals and the temporary outputs they remove:
 * the program's, set up once by process_init(). */
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wavetool.h"

/* ---- standard descriptors ------------------------------------------------- */

/* A closed standard descriptor gets /dev/null opened for the other direction:
 * nothing can take its number, and using it fails as before (EBADF). */
static void occupy_closed_standard_fds(void)
{
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int got = open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
        if (got >= 0 && got != fd) { /* a lower one was closed too: filled in order */
            dup2(got, fd);
            close(got);
        }
    }
}

/* ---- the list of temporary outputs --------------------------------------------
 * Chunks of slots, linked as they are needed (any -j): a slot is FREE, CLAIMED
 * (path being written) or LIVE (path complete, may be unlinked). Chunks are
 * only ever added, so a handler walks them with atomic loads. */
enum { SLOT_FREE = 0, SLOT_CLAIMED = 1, SLOT_LIVE = 2 };
enum { CHUNK_SLOTS = 64 };
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "slot states must be lock-free atomics");
_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2, "chunk links must be lock-free atomics");
#define PATH_CAP sizeof(((wt_outfile *)0)->tmp_path)

typedef struct slot_chunk {
    atomic_int state[CHUNK_SLOTS];
    char path[CHUNK_SLOTS][PATH_CAP];
    _Atomic(struct slot_chunk *) next;
} slot_chunk;

static slot_chunk first_chunk;

/* A fatal signal arrived: no new temporary file may appear. @c creating
 * counts threads between "check closing" and "slot registered", with signals
 * blocked there, so the handler (on another thread) waits for them. */
static atomic_int closing;
static atomic_int creating;

/* The chunk after @p c, added when there is none (NULL: out of memory). */
static slot_chunk *next_chunk(slot_chunk *c)
{
    slot_chunk *next = atomic_load(&c->next);
    if (next)
        return next;
    slot_chunk *fresh = calloc(1, sizeof *fresh);
    if (!fresh)
        return NULL;
    if (atomic_compare_exchange_strong(&c->next, &next, fresh))
        return fresh;
    free(fresh); /* another thread linked one first: @c next holds it */
    return next;
}

/* A slot holding a copy of @p path; its number, or -1 when out of memory. */
static int slot_register(const char *path)
{
    int base = 0;
    for (slot_chunk *c = &first_chunk; c; c = next_chunk(c), base += CHUNK_SLOTS)
        for (int i = 0; i < CHUNK_SLOTS; i++) {
            int expected = SLOT_FREE;
            if (atomic_compare_exchange_strong(&c->state[i], &expected, SLOT_CLAIMED)) {
                snprintf(c->path[i], PATH_CAP, "%s", path);
                atomic_store(&c->state[i], SLOT_LIVE);
                return base + i;
            }
        }
    return -1;
}

static void slot_release(int slot)
{
    slot_chunk *c = &first_chunk;
    for (; c && slot >= CHUNK_SLOTS; slot -= CHUNK_SLOTS)
        c = atomic_load(&c->next);
    if (c && slot >= 0)
        atomic_store(&c->state[slot], SLOT_FREE);
}

/* The library's create hook: mkostemp() and registration with every signal
 * blocked, so a handler never misses a file that exists. */
static int create_listed(char *tmpl, int *token)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    atomic_fetch_add(&creating, 1);
    int fd = atomic_load(&closing) ? (errno = EINTR, -1) : mkostemp(tmpl, O_CLOEXEC);
    int err = errno;
    *token = fd >= 0 ? slot_register(tmpl) : -1;
    if (fd >= 0 && *token < 0) { /* not listed: not kept */
        close(fd);
        unlink(tmpl);
        fd = -1;
        err = ENOMEM;
    }
    atomic_fetch_sub(&creating, 1);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = err;
    return fd;
}

static void forget_listed(const char *tmpl, int token)
{
    (void)tmpl;
    slot_release(token);
}

void process_remove_temp_files(void)
{
    atomic_store(&closing, 1);
    /* a thread creating a temp file registers it soon; at most about 2 s */
    for (int spins = 0; atomic_load(&creating) > 0 && spins < 2000; spins++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    for (slot_chunk *c = &first_chunk; c; c = atomic_load(&c->next))
        for (int i = 0; i < CHUNK_SLOTS; i++)
            if (atomic_load(&c->state[i]) == SLOT_LIVE)
                unlink(c->path[i]);
}

/* ---- fatal signals ------------------------------------------------------------ */

/* Every signal whose default action ends the process and that arrives from
 * outside (faults such as SIGSEGV are not caught: the state is unknown then).
 * SIGXFSZ is ignored instead: a file over ulimit -f fails that write (EFBIG),
 * a per-file error. */
static const int fatal_signals[] = {
    SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGXCPU,
    SIGVTALRM, SIGPROF,
#ifdef SIGIO
    SIGIO,
#endif
#ifdef SIGPWR
    SIGPWR,
#endif
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
};
#define FATAL_COUNT (sizeof fatal_signals / sizeof fatal_signals[0])

/* Remove the temporary outputs, then die of the signal (the exit status says which). */
static void on_fatal_signal(int sig)
{
    struct sigaction dfl;
    process_remove_temp_files();
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig); /* blocked until the handler returns, then the default action */
}

/* @p sig gets the handler unless it was ignored at start (nohup, trap ''). */
static void catch_unless_ignored(int sig, const struct sigaction *sa)
{
    struct sigaction old;
    if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        return;
    sigaction(sig, sa, NULL);
}

static void install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigfillset(&sa.sa_mask); /* one handler at a time, whatever the signals */
    for (size_t i = 0; i < FATAL_COUNT; i++)
        catch_unless_ignored(fatal_signals[i], &sa);
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
        catch_unless_ignored(sig, &sa);
    signal(SIGXFSZ, SIG_IGN);
}

void process_init(void)
{
    static const wt_temp_hooks listed = {create_listed, forget_listed};
    occupy_closed_standard_fds();
    wt_outfile_set_temp_hooks(&listed);
    install_signal_handlers();
}
