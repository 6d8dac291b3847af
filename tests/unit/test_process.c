/* Unit tests of the program's process-wide state (cli/process.c): the list of
 * temporary outputs holds any number of them (-j up to 1024 and beyond), a
 * fatal signal removes them all and ends the process by that signal, and
 * closed standard descriptors are occupied. Each case runs in a child process
 * (process_init() changes signal dispositions for good). */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "process.h"
#include "wavetool.h"

static char work_dir[64];

/* Entries of the scratch directory, removing them. */
static int count_and_clear(void)
{
    DIR *d = opendir(work_dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        char p[512];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", work_dir, e->d_name);
        unlink(p);
        n++;
    }
    if (d)
        closedir(d);
    return n;
}

/* Run @p child in a child process; its wait status. */
static int in_child(int (*child)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(child());
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

/* Run @p child in a child process, which must exit with status 0. */
static void assert_child_succeeds(int (*child)(void))
{
    int status = in_child(child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* As many outputs open at once as descriptors allow, up to @p want. */
static int open_many(wt_outfile *f, int want)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < (rlim_t)want + 32) {
        lim.rlim_cur = lim.rlim_max < (rlim_t)want + 32 ? lim.rlim_max : (rlim_t)want + 32;
        setrlimit(RLIMIT_NOFILE, &lim);
        getrlimit(RLIMIT_NOFILE, &lim);
        want = lim.rlim_cur > 32 + (rlim_t)want ? want : (int)lim.rlim_cur - 32;
    }
    for (int i = 0; i < want; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/o%d.png", work_dir, i);
        if (wt_outfile_open(&f[i], path) != WT_OK)
            return i;
    }
    return want;
}

enum { MANY = 1100 };
static wt_outfile outs[MANY];

static int child_many(void)
{
    process_init();
    int opened = open_many(outs, MANY);
    if (opened < 300) /* the old table held 256 */
        return 10;
    process_remove_temp_files();
    return 0;
}

static void test_list_holds_any_number(void **state)
{
    (void)state;
    assert_child_succeeds(child_many);
    assert_int_equal(count_and_clear(), 0);
}

/* Temporary files made and let go of by many threads' worth of slots are
 * reused: open and commit more than one chunk's worth repeatedly. */
static int child_reuse(void)
{
    process_init();
    for (int round = 0; round < 3; round++) {
        int opened = open_many(outs, 200);
        for (int i = 0; i < opened; i++)
            if (wt_outfile_commit(&outs[i]) != WT_OK)
                return 11;
    }
    raise(SIGTERM); /* nothing temporary left to remove; the outputs stay */
    return 12;
}

static void test_committed_outputs_stay(void **state)
{
    (void)state;
    int status = in_child(child_reuse);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGTERM);
    assert_int_equal(count_and_clear(), 200);
}

static int signal_under_test;

static int child_signal(void)
{
    /* the default action, whatever this test inherited (nohup, or a
     * background job of a shell without job control, ignores HUP/INT/QUIT) */
    signal(signal_under_test, SIG_DFL);
    process_init();
    int opened = open_many(outs, 70); /* more than one chunk */
    fputs("partial", outs[0].fp);
    fflush(outs[0].fp);
    raise(signal_under_test);
    return opened; /* not reached */
}

static void test_every_fatal_signal(void **state)
{
    (void)state;
    const int sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1,
                        SIGUSR2, SIGXCPU, SIGVTALRM, SIGPROF, SIGRTMIN, SIGRTMAX};
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        signal_under_test = sigs[i];
        int status = in_child(child_signal);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != sigs[i] || count_and_clear() != 0)
            fail_msg("signal %d (%s): status %#x", sigs[i], strsignal(sigs[i]), status);
    }
}

/* A signal ignored at start (nohup) stays ignored. */
static int child_ignored(void)
{
    signal(SIGHUP, SIG_IGN);
    process_init();
    raise(SIGHUP);
    return 0;
}

static void test_ignored_signal_stays_ignored(void **state)
{
    (void)state;
    assert_child_succeeds(child_ignored);
}

/* Closed stdout and stderr: occupied, and writing to them still fails. */
static int child_closed_fds(void)
{
    close(1);
    close(2);
    process_init();
    wt_outfile f;
    char path[512];
    snprintf(path, sizeof path, "%s/fd.png", work_dir);
    if (wt_outfile_open(&f, path) != WT_OK || fileno(f.fp) <= 2)
        return 20;
    int lost = write(1, "x", 1) < 0 && errno == EBADF && write(2, "x", 1) < 0;
    wt_outfile_abort(&f);
    return lost ? 0 : 21;
}

static void test_closed_standard_fds(void **state)
{
    (void)state;
    assert_child_succeeds(child_closed_fds);
    assert_int_equal(count_and_clear(), 0);
}

int main(void)
{
    snprintf(work_dir, sizeof work_dir, "/tmp/wt-process.XXXXXX");
    if (!mkdtemp(work_dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_holds_any_number),
        cmocka_unit_test(test_committed_outputs_stay),
        cmocka_unit_test(test_every_fatal_signal),
        cmocka_unit_test(test_ignored_signal_stays_ignored),
        cmocka_unit_test(test_closed_standard_fds),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    count_and_clear();
    rmdir(work_dir);
    return rc;
}
