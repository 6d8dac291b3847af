/* test_io: atomic outputs (src/formats/outfile.c). Helpers, main and shared
 * declarations: test_io.c, test_io.h. */
#include "test_io.h"

/* ---- atomic outputs ------------------------------------------------------- */

/* The one temporary file in @p dir (".name.XXXXXX"), or "" */
static const char *temp_in(const char *dir, char *out, size_t cap)
{
    DIR *d = opendir(dir);
    out[0] = '\0';
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            snprintf(out, cap, "%s", e->d_name);
    closedir(d);
    return out;
}

void test_outfile_commit(void **state)
{
    (void)state;
    const char *path = scratch("out.png");
    write_file(path, "old", 3);
    wt_outfile f;
    assert_int_equal(wt_outfile_open(&f, path), WT_OK);
    char tmp[256];
    assert_int_equal(strncmp(temp_in(work_dir, tmp, sizeof tmp), ".out.png.", 9), 0);
    fputs("new contents", f.fp);
    size_t n;
    uint8_t *old = read_file(path, &n); /* untouched until the commit */
    assert_memory_equal(old, "old", 3);
    free(old);
    assert_int_equal(wt_outfile_commit(&f), WT_OK);
    uint8_t *data = read_file(path, &n);
    assert_int_equal(n, 12);
    assert_memory_equal(data, "new contents", 12);
    free(data);
    assert_int_equal(count_entries(work_dir), 1);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    mode_t mask = umask(0);
    umask(mask);
    assert_int_equal(st.st_mode & 0777, 0666 & ~mask);
}

void test_outfile_abort(void **state)
{
    (void)state;
    const char *path = scratch("keep.png");
    write_file(path, "old", 3);
    wt_outfile f;
    assert_int_equal(wt_outfile_open(&f, path), WT_OK);
    fputs("partial", f.fp);
    wt_outfile_abort(&f);
    assert_int_equal(count_entries(work_dir), 1);
    size_t n;
    uint8_t *data = read_file(path, &n);
    assert_memory_equal(data, "old", 3);
    free(data);
    /* a new name: nothing at all */
    assert_int_equal(wt_outfile_open(&f, scratch("new.png")), WT_OK);
    wt_outfile_abort(&f);
    assert_int_equal(count_entries(work_dir), 1);
}

/* The program's hooks see every temporary file made and let go of. */
static int hook_created, hook_forgotten;
static int counting_create(char *tmpl, int *token)
{
    *token = 100 + hook_created++;
    return mkstemp(tmpl);
}
static void counting_forget(const char *tmpl, int token)
{
    (void)tmpl;
    assert_true(token >= 100 && token < 100 + hook_created);
    hook_forgotten++;
}

void test_outfile_temp_hooks(void **state)
{
    (void)state;
    static const wt_temp_hooks counting = {counting_create, counting_forget};
    wt_outfile a, b;
    wt_outfile_set_temp_hooks(&counting);
    assert_int_equal(wt_outfile_open(&a, scratch("a.png")), WT_OK);
    assert_int_equal(wt_outfile_open(&b, scratch("b.png")), WT_OK);
    assert_int_equal(hook_created, 2);
    assert_int_equal(hook_forgotten, 0);
    assert_int_equal(wt_outfile_commit(&a), WT_OK);
    wt_outfile_abort(&b);
    assert_int_equal(hook_forgotten, 2);
    wt_outfile_set_temp_hooks(NULL);
    assert_int_equal(count_entries(work_dir), 1);
    unlink(scratch("a.png"));
}

/* With the standard descriptors closed, a temporary file still gets none of
 * them (messages written to fd 1 or 2 would land in an output). */
void test_outfile_standard_fds(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(0);
        close(1);
        close(2);
        wt_outfile f;
        if (wt_outfile_open(&f, scratch("fd.png")) != WT_OK)
            _exit(1);
        int fd = fileno(f.fp);
        wt_outfile_abort(&f);
        _exit(fd > 2 ? 0 : 2);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(count_entries(work_dir), 0);
}

void test_outfile_errors(void **state)
{
    (void)state;
    wt_outfile f;
    make_dir(scratch("sub"));
    assert_int_equal(wt_outfile_open(&f, scratch("sub")), WT_ERR_IO);
    assert_message_has("sub: is a directory");
    assert_int_equal(wt_outfile_open(&f, scratch("none/x.png")), WT_ERR_IO);
    assert_message_has("none/x.png: No such file or directory");
    if (geteuid() != 0) { /* root writes anywhere */
        const char *ro = scratch("ro");
        make_dir(ro);
        chmod(ro, 0555);
        assert_int_equal(wt_outfile_open(&f, scratch("ro/x.png")), WT_ERR_IO);
        assert_message_has("ro/x.png: Permission denied");
        assert_int_equal(count_entries(ro), 0);
    }
}

/* A write that fails (file size limit: EFBIG) fails the commit, leaves nothing. */
void test_outfile_write_failure(void **state)
{
    (void)state;
    struct rlimit saved, small;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
    small = saved;
    small.rlim_cur = 4096;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    wt_outfile f;
    const char *path = scratch("big.png");
    wt_status open_st = wt_outfile_open(&f, path), commit_st = WT_ERR_INVALID;
    if (open_st == WT_OK) {
        static char block[65536];
        fwrite(block, 1, sizeof block, f.fp);
        commit_st = wt_outfile_commit(&f);
    }
    setrlimit(RLIMIT_FSIZE, &saved);
    signal(SIGXFSZ, old_handler);
    assert_int_equal(open_st, WT_OK);
    assert_int_equal(commit_st, WT_ERR_IO);
    assert_message_has("big.png: File too large");
    assert_int_equal(count_entries(work_dir), 0);
    /* the same through the image writer */
    wt_image img;
    random_image(&img, 300, 300, 3, 8);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    signal(SIGXFSZ, SIG_IGN);
    wt_status st = wt_image_save(path, &img, NULL, WT_FORMAT_UNKNOWN);
    setrlimit(RLIMIT_FSIZE, &saved);
    signal(SIGXFSZ, old_handler);
    assert_int_equal(st, WT_ERR_IO);
    assert_message_has("big.png: File too large");
    assert_int_equal(count_entries(work_dir), 0);
    wt_image_free(&img);
}

void test_same_file(void **state)
{
    (void)state;
    const char *a = scratch("a.png"), *b = scratch("b.png"), *hard = scratch("hard.png");
    write_file(a, "x", 1);
    write_file(b, "x", 1);
    assert_int_equal(link(a, hard), 0);
    assert_true(wt_same_file(a, a));
    assert_true(wt_same_file(a, hard));
    char dotted[600];
    snprintf(dotted, sizeof dotted, "%s/./a.png", work_dir);
    assert_true(wt_same_file(a, dotted));
    assert_false(wt_same_file(a, b));
    assert_false(wt_same_file(a, scratch("missing.png")));
}
