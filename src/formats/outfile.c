/* Atomic output files: write to a hidden temporary file next to the target,
 * rename it into place on success, remove it on failure. Removing them on a
 * signal is the program's business (wt_outfile_set_temp_hooks). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wavetool.h"

/* Temporary files are made by the hooks a program set (cli/process.c keeps
 * them in its fatal-signal cleanup list), or by mkostemp() alone. */
static int create_plain(char *tmpl, int *token)
{
    *token = -1;
    return mkostemp(tmpl, O_CLOEXEC);
}

static void forget_plain(const char *tmpl, int token)
{
    (void)tmpl;
    (void)token;
}

static const wt_temp_hooks plain_hooks = {create_plain, forget_plain};
static _Atomic(const wt_temp_hooks *) temp_hooks = &plain_hooks;

void wt_outfile_set_temp_hooks(const wt_temp_hooks *hooks)
{
    atomic_store(&temp_hooks, hooks ? hooks : &plain_hooks);
}

/* A descriptor above the standard ones: with fd 0, 1 or 2 closed, a new file
 * would get it, and messages or reports written there would land in an output. */
static int above_standard_fds(int fd)
{
    if (fd < 0 || fd > STDERR_FILENO)
        return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    int err = errno;
    close(fd);
    errno = err;
    return moved;
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

/* "dir/.name.XXXXXX" for "dir/name", the name cut so that the temporary
 * name fits in NAME_MAX bytes too (outputs of 248-255 bytes); 0 when it does not fit. */
static int temp_name(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
    size_t baselen = strnlen(base, NAME_MAX), room = NAME_MAX - strlen("..XXXXXX");
    size_t keep = baselen < room ? baselen : room;
    static const char suffix[] = ".XXXXXX";
    if (dirlen + 1 + keep + sizeof suffix > cap)
        return 0;
    memcpy(out, path, dirlen); /* (copies, not "%.*s": GCC 12 saw a NULL there) */
    out[dirlen] = '.';
    memcpy(out + dirlen + 1, base, keep);
    memcpy(out + dirlen + 1 + keep, suffix, sizeof suffix);
    return 1;
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
    f->token = -1;
    if (strcmp(path, "-") == 0)
        return open_stdout(f);
    struct stat st;
    size_t len = strlen(path);
    if (len == 0 || path[len - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
        return wt_error_set(WT_ERR_IO, "%s: is a directory", path);
    if (len >= sizeof f->final_path || !temp_name(path, f->tmp_path, sizeof f->tmp_path))
        return wt_error_set(WT_ERR_IO, "%s: %s", path, strerror(ENAMETOOLONG));
    memcpy(f->final_path, path, len + 1);
    const wt_temp_hooks *hooks = atomic_load(&temp_hooks);
    int created = hooks->create(f->tmp_path, &f->token);
    int err = errno;
    if (created < 0) {
        f->tmp_path[0] = '\0';
        return wt_error_set(WT_ERR_IO, "%s: %s", path, strerror(err));
    }
    int fd = above_standard_fds(created);
    if (fd < 0 || fchmod(fd, new_file_mode()) != 0 || !(f->fp = fdopen(fd, "wb"))) {
        err = errno;
        if (fd >= 0)
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
    atomic_load(&temp_hooks)->forget(f->tmp_path, f->token);
    f->token = -1;
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
        atomic_load(&temp_hooks)->forget(f->tmp_path, f->token);
    }
    f->tmp_path[0] = '\0';
    f->token = -1;
}

int wt_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
