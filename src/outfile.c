/* Atomic output files: write to a hidden temporary file next to the target,
 * rename it into place on success, remove it on failure or on a signal. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wavetool.h"

#define OUTFILE_SLOTS 256
#define PATH_CAP sizeof(((wt_outfile *)0)->tmp_path)

/* Temp files alive now, for wt_outfile_abort_all() in a signal handler: a slot
 * is FREE, CLAIMED (path being written) or LIVE (path complete, may be unlinked).
 * Lock-free atomics are async-signal-safe and visible across threads. */
enum { SLOT_FREE = 0, SLOT_CLAIMED = 1, SLOT_LIVE = 2 };
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "slot states must be lock-free atomics");
static atomic_int slot_state[OUTFILE_SLOTS];
static char slot_path[OUTFILE_SLOTS][PATH_CAP];

/* wt_outfile_shutdown() has run (the process is about to die of a signal):
 * no new temporary file may appear. @c creating counts threads between
 * "check closing" and "slot registered", with signals blocked there, so a
 * handler (on another thread) waits for them (Dekker: seq_cst atomics). */
static atomic_int closing;
static atomic_int creating;

/* A free slot holding a copy of @p path, or -1 when all are taken (the file
 * then simply is not removed by a signal). */
static int slot_register(const char *path)
{
    for (int i = 0; i < OUTFILE_SLOTS; i++) {
        int expected = SLOT_FREE;
        if (atomic_compare_exchange_strong(&slot_state[i], &expected, SLOT_CLAIMED)) {
            snprintf(slot_path[i], PATH_CAP, "%s", path);
            atomic_store(&slot_state[i], SLOT_LIVE);
            return i;
        }
    }
    return -1;
}

static void slot_release(int slot)
{
    if (slot >= 0 && slot < OUTFILE_SLOTS)
        atomic_store(&slot_state[slot], SLOT_FREE);
}

void wt_outfile_abort_all(void)
{
    /* a thread creating a temp file registers it soon; at most about 2 s */
    for (int spins = 0; atomic_load(&creating) > 0 && spins < 2000; spins++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    for (int i = 0; i < OUTFILE_SLOTS; i++)
        if (atomic_load(&slot_state[i]) == SLOT_LIVE)
            unlink(slot_path[i]);
}

void wt_outfile_shutdown(void)
{
    atomic_store(&closing, 1);
    wt_outfile_abort_all();
}

/* Creation mode of new files: 0666 minus the umask, read without changing it
 * (umask() would race with other threads creating files). */
static mode_t new_file_mode(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    unsigned mask = 022;
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Umask: %o", &mask) == 1)
            break;
    if (f)
        fclose(f);
    return (mode_t)(0666 & ~mask);
}

/* "dir/.name.XXXXXX" for "dir/name"; 0 when it does not fit. */
static int temp_name(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    int n = snprintf(out, cap, "%.*s.%s.XXXXXX", dirlen, path, base);
    return n > 0 && (size_t)n < cap;
}

static wt_status open_stdout(wt_outfile *f)
{
    f->fp = stdout;
    f->is_stdout = 1;
    snprintf(f->final_path, sizeof f->final_path, "(stdout)");
    return WT_OK;
}

wt_status wt_outfile_open(wt_outfile *f, const char *path)
{
    memset(f, 0, sizeof *f);
    f->slot = -1;
    if (strcmp(path, "-") == 0)
        return open_stdout(f);
    struct stat st;
    size_t len = strlen(path);
    if (len == 0 || path[len - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
        return wt_error_set(WT_ERR_IO, "%s: is a directory", path);
    if (len >= sizeof f->final_path || !temp_name(path, f->tmp_path, sizeof f->tmp_path))
        return wt_error_set(WT_ERR_IO, "%s: %s", path, strerror(ENAMETOOLONG));
    memcpy(f->final_path, path, len + 1);
    /* create and register with signals blocked: a fatal signal then runs
     * wt_outfile_abort_all() on another thread, which waits for us */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    atomic_fetch_add(&creating, 1);
    int fd = atomic_load(&closing) ? (errno = EINTR, -1) : mkstemp(f->tmp_path);
    int err = errno;
    if (fd >= 0)
        f->slot = slot_register(f->tmp_path);
    atomic_fetch_sub(&creating, 1);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) {
        f->tmp_path[0] = '\0';
        return wt_error_set(WT_ERR_IO, "%s: %s", path, strerror(err));
    }
    if (fchmod(fd, new_file_mode()) != 0 || !(f->fp = fdopen(fd, "wb"))) {
        err = errno;
        close(fd);
        wt_outfile_abort(f);
        return wt_error_set(WT_ERR_IO, "%s: %s", path, strerror(err));
    }
    return WT_OK;
}

static wt_status commit_stdout(wt_outfile *f)
{
    FILE *fp = f->fp;
    f->fp = NULL;
    errno = 0;
    if (fflush(fp) != 0 || ferror(fp)) {
        int err = errno ? errno : EIO;
        clearerr(fp); /* reported here, not again at exit */
        return wt_error_set(WT_ERR_IO, "(stdout): %s", strerror(err));
    }
    return WT_OK;
}

wt_status wt_outfile_commit(wt_outfile *f)
{
    if (f->is_stdout)
        return commit_stdout(f);
    if (!f->fp)
        return wt_error_set(WT_ERR_INVALID, "%s: output is not open", f->final_path);
    FILE *fp = f->fp;
    f->fp = NULL;
    /* a write that failed earlier left its errno, if nothing failed since */
    int err = ferror(fp) ? errno : 0, failed = ferror(fp);
    errno = 0;
    if (fflush(fp) != 0 || (ferror(fp) && !failed)) {
        failed = 1;
        err = errno;
    }
    if (fclose(fp) != 0 && !failed) {
        failed = 1;
        err = errno;
    }
    if (!failed && rename(f->tmp_path, f->final_path) != 0) {
        failed = 1;
        err = errno;
    }
    if (failed) {
        wt_outfile_abort(f);
        return wt_error_set(WT_ERR_IO, "%s: %s", f->final_path, strerror(err ? err : EIO));
    }
    slot_release(f->slot);
    f->slot = -1;
    f->tmp_path[0] = '\0';
    return WT_OK;
}

void wt_outfile_abort(wt_outfile *f)
{
    if (f->is_stdout) {
        if (f->fp) /* the failure that led here was reported */
            clearerr(f->fp);
        f->fp = NULL;
        return;
    }
    if (f->fp) {
        fclose(f->fp);
        f->fp = NULL;
    }
    if (f->tmp_path[0]) {
        unlink(f->tmp_path);
        /* only a slot this file registered (a zeroed struct has slot 0) */
        if (f->slot >= 0 && f->slot < OUTFILE_SLOTS && strcmp(slot_path[f->slot], f->tmp_path) == 0)
            slot_release(f->slot);
    }
    f->tmp_path[0] = '\0';
    f->slot = -1;
}

int wt_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
