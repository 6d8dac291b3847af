/* Many inputs: file lists, output names, worker threads, ordered messages. */
#include "batch.h"

#include "options.h"
#include "wavetool.h"
#include "wavetool_hooks.h" /* wt_seconds */

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_WALK_DEPTH 64

char *batch_strdupf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return s;
}

void batch_note(batch_item *item, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    char *line = malloc((size_t)n + 1);
    if (!line)
        return;
    va_start(ap, fmt);
    vsnprintf(line, (size_t)n + 1, fmt, ap);
    va_end(ap);
    if (!item) {
        fprintf(stderr, "wavetool: %s\n", line);
    } else {
        const char *old = item->notes ? item->notes : "";
        char *joined = batch_strdupf("%swavetool: %s\n", old, line);
        if (joined) {
            free(item->notes);
            item->notes = joined;
        }
    }
    free(line);
}

void batch_count_pixels(batch_item *item, double pixels)
{
    if (item)
        item->pixels += pixels;
}

static int out_of_memory(void)
{
    fputs("wavetool: out of memory\n", stderr);
    return -1;
}

/* The exit code after running out of memory (message printed). */
static int out_of_memory_exit(void)
{
    out_of_memory();
    return EXIT_SOME_FAILED;
}

/* ---- the list ------------------------------------------------------------- */

static batch_item *append_item(batch *b, const char *input)
{
    if (b->count == b->capacity) {
        size_t cap = b->capacity ? 2 * b->capacity : 16;
        batch_item *grown = realloc(b->items, cap * sizeof *grown);
        if (!grown)
            return NULL;
        b->items = grown;
        b->capacity = cap;
    }
    batch_item *it = &b->items[b->count];
    memset(it, 0, sizeof *it);
    it->input = strdup(input);
    if (!it->input)
        return NULL;
    b->count++;
    return it;
}

int batch_add_single(batch *b, const char *input, const char *output)
{
    batch_item *it = append_item(b, input);
    if (!it)
        return out_of_memory();
    if (output && !(it->output = strdup(output)))
        return out_of_memory();
    return 0;
}

/* 1 when @p name's extension names a format that holds any of @p holds */
static int has_ext(const char *name, unsigned holds)
{
    const wt_format_info *info = wt_format_describe(wt_format_from_path(name));
    return info && (info->holds & holds);
}

/* Paths found under one directory, sorted before they join the batch. */
typedef struct path_list {
    char **paths;
    size_t count, capacity;
    int failed; /* out of memory */
} path_list;

static void list_push(path_list *l, char *path)
{
    if (!path || l->failed) {
        l->failed = 1;
        free(path);
        return;
    }
    if (l->count == l->capacity) {
        size_t cap = l->capacity ? 2 * l->capacity : 64;
        char **grown = realloc(l->paths, cap * sizeof *grown);
        if (!grown) {
            l->failed = 1;
            free(path);
            return;
        }
        l->paths = grown;
        l->capacity = cap;
    }
    l->paths[l->count++] = path;
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files with a wanted extension under @p dir; hidden entries are skipped.
 * A directory that cannot be opened is listed itself (it then fails). */
static void walk(const char *dir, unsigned holds, int depth, path_list *found,
                 path_list *unreadable)
{
    DIR *d = depth < MAX_WALK_DEPTH ? opendir(dir) : NULL;
    if (!d) {
        list_push(unreadable, batch_strdupf("%s: %s", dir,
                                            depth < MAX_WALK_DEPTH ? strerror(errno)
                                                                   : "directories nested too deep"));
        return;
    }
    size_t len = strlen(dir);
    const char *sep = len && dir[len - 1] == '/' ? "" : "/";
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *path = batch_strdupf("%s%s%s", dir, sep, e->d_name);
        struct stat st;
        if (path && lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            walk(path, holds, depth + 1, found, unreadable);
            free(path);
        } else if (path && has_ext(e->d_name, holds) && stat(path, &st) == 0 &&
                   S_ISREG(st.st_mode)) {
            list_push(found, path);
        } else {
            free(path);
        }
    }
    closedir(d);
}

static int add_directory(batch *b, const char *dir, unsigned holds)
{
    path_list found = {0}, unreadable = {0};
    int rc = 0;
    walk(dir, holds, 0, &found, &unreadable);
    if (!found.count && !unreadable.count && !found.failed) {
        char exts[256];
        cli_error("%s: no %s files found", dir,
                  wt_format_list(exts, sizeof exts, holds, ".", "/", "/"));
    }
    if (found.count) /* qsort needs a non-NULL array even for zero elements */
        qsort(found.paths, found.count, sizeof *found.paths, compare_paths);
    size_t dir_len = strlen(dir), root_len = dir_len + (dir_len && dir[dir_len - 1] != '/');
    for (size_t i = 0; i < found.count && rc == 0; i++) {
        batch_item *it = append_item(b, found.paths[i]);
        rc = it ? 0 : -1;
        if (it)
            it->root_len = root_len;
    }
    for (size_t i = 0; i < unreadable.count && rc == 0; i++) {
        /* "dir: reason" becomes an item that has failed already */
        char *colon = strstr(unreadable.paths[i], ": ");
        *colon = '\0';
        batch_item *it = append_item(b, unreadable.paths[i]);
        *colon = ':';
        if (!it || !(it->message = strdup(unreadable.paths[i])))
            rc = -1;
        else
            it->state = ITEM_FAILED;
    }
    for (size_t i = 0; i < found.count; i++)
        free(found.paths[i]);
    for (size_t i = 0; i < unreadable.count; i++)
        free(unreadable.paths[i]);
    free(found.paths);
    free(unreadable.paths);
    return rc || found.failed || unreadable.failed ? out_of_memory() : 0;
}

int batch_add_inputs(batch *b, char **paths, int count, unsigned holds)
{
    int rc = 0;
    for (int i = 0; i < count && rc == 0; i++) {
        struct stat st;
        if (strcmp(paths[i], "-") != 0 && stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            b->is_batch = 1;
            rc = add_directory(b, paths[i], holds);
        } else {
            rc = append_item(b, paths[i]) ? 0 : out_of_memory();
        }
    }
    if (count > 1)
        b->is_batch = 1;
    return rc;
}

/* ---- output names ---------------------------------------------------------- */

/* mkdir -p; a message and -1 when it cannot be made. */
static int make_directory(const char *dir)
{
    char *path = strdup(dir);
    int err = path ? 0 : ENOMEM;
    struct stat st;
    for (char *p = path ? path + 1 : NULL; p && !err; p++) {
        int last = *p == '\0';
        if (*p != '/' && !last)
            continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            err = errno;
        if (last)
            break;
        *p = '/';
    }
    if (!err && stat(dir, &st) != 0)
        err = errno;
    else if (!err && !S_ISDIR(st.st_mode))
        err = ENOTDIR;
    if (err)
        cli_error("%s: %s", dir, strerror(err));
    free(path);
    return err ? -1 : 0;
}

/* The input's file name without directory and last extension. */
static char *stem_of(const char *input)
{
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    char *stem = strdup(base);
    char *dot = stem ? strrchr(stem, '.') : NULL;
    if (dot && dot != stem)
        *dot = '\0';
    return stem;
}

static int compare_outputs(const void *a, const void *b)
{
    const batch_item *x = *(batch_item *const *)a, *y = *(batch_item *const *)b;
    int c = strcmp(x->output, y->output);
    return c ? c : (x < y ? -1 : x > y);
}

/* The items that have an output, sorted by it (ties in input order); NULL
 * when out of memory. */
static batch_item **items_by_output(batch *b, size_t *n)
{
    batch_item **sorted = malloc((b->count ? b->count : 1) * sizeof *sorted);
    *n = 0;
    if (!sorted)
        return NULL;
    for (size_t i = 0; i < b->count; i++)
        if (b->items[i].output)
            sorted[(*n)++] = &b->items[i];
    qsort(sorted, *n, sizeof *sorted, compare_outputs);
    return sorted;
}

/* Two inputs that would write the same file: the batch is refused before
 * anything is written. CLI_CONTINUE, or the exit code (message printed). */
static int refuse_shared_outputs(batch *b, const batch_plan *plan)
{
    size_t n;
    batch_item **sorted = items_by_output(b, &n);
    if (!sorted)
        return out_of_memory_exit();
    size_t i = 1;
    while (i < n && strcmp(sorted[i - 1]->output, sorted[i]->output) != 0)
        i++;
    int rc = CLI_CONTINUE;
    if (i < n)
        rc = cli_usage_error(plan->cmd, "%s and %s would both write %s; nothing written%s",
                             sorted[i - 1]->input, sorted[i]->input, sorted[i]->output,
                             plan->base ? ""
                                        : " (with --base DIR, -O keeps each input's path below DIR)");
    free(sorted);
    return rc;
}

/* A file's identity, to find an output that would replace an input. */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
    size_t item;
} file_id;

/* The file an input names; "-": the file standard input is (a file
 * redirected with '<' can be an output's too). */
static int stat_input(const char *input, struct stat *st)
{
    return strcmp(input, "-") == 0 ? fstat(STDIN_FILENO, st) : stat(input, st);
}

static int compare_ids(const void *a, const void *b)
{
    const file_id *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* An existing output that is one of the inputs: that item fails (its own
 * input is left to preflight(), which says so in its words). */
static int fail_outputs_onto_inputs(batch *b)
{
    file_id *ids = malloc((b->count ? b->count : 1) * sizeof *ids);
    size_t n = 0;
    struct stat st;
    if (!ids)
        return out_of_memory();
    for (size_t i = 0; i < b->count; i++)
        if (stat_input(b->items[i].input, &st) == 0)
            ids[n++] = (file_id){st.st_dev, st.st_ino, i};
    qsort(ids, n, sizeof *ids, compare_ids);
    for (size_t i = 0; i < b->count; i++) {
        batch_item *it = &b->items[i];
        if (!it->output || it->state != ITEM_PENDING || stat(it->output, &st) != 0)
            continue;
        file_id key = {st.st_dev, st.st_ino, 0};
        const file_id *hit = bsearch(&key, ids, n, sizeof *ids, compare_ids);
        if (!hit || hit->item == i)
            continue;
        it->state = ITEM_FAILED;
        it->message = batch_strdupf("%s: output %s is the input %s; not overwritten", it->input,
                                    it->output, b->items[hit->item].input);
    }
    free(ids);
    return 0;
}

/* @p path made absolute (against the current folder) with ".", ".." and
 * repeated '/' taken out, as text (symbolic links are not followed); NULL when
 * out of memory or the current folder is unknown. */
static char *absolute_path(const char *path)
{
    char *cwd = path[0] == '/' ? strdup("") : getcwd(NULL, 0);
    char *joined = cwd ? batch_strdupf("%s/%s", cwd, path) : NULL;
    char *out = joined ? malloc(strlen(joined) + 2) : NULL;
    free(cwd);
    size_t len = 0;
    char *state = NULL;
    for (char *part = out ? strtok_r(joined, "/", &state) : NULL; part;
         part = strtok_r(NULL, "/", &state)) {
        if (strcmp(part, "..") == 0) {
            while (len > 0 && out[--len] != '/')
                ;
        } else if (strcmp(part, ".") != 0) {
            len += (size_t)sprintf(out + len, "/%s", part);
        }
    }
    if (out && len == 0)
        out[len++] = '/';
    if (out)
        out[len] = '\0';
    free(joined);
    return out;
}

/* The part of @p path below folder @p base ("" for base itself), or NULL. */
static const char *below(const char *path, const char *base)
{
    size_t n = strlen(base);
    if (strcmp(base, "/") == 0)
        return path + 1;
    if (strncmp(path, base, n) != 0 || (path[n] != '/' && path[n] != '\0'))
        return NULL;
    return path[n] ? path + n + 1 : path + n;
}

/* "sub/dir/" of "sub/dir/x.png"; "" for "x.png". */
static char *folder_of(const char *rel)
{
    const char *slash = strrchr(rel, '/');
    return slash ? batch_strdupf("%.*s", (int)(slash - rel + 1), rel) : strdup("");
}

/* The folders of @p input below @p base ("" or "sub/dir/"): as written, else
 * with symbolic links resolved (a base reached through a link). NULL with
 * *outside set when the input is not below it; NULL alone when out of memory. */
static char *folder_below(const char *input, const char *base, int *outside)
{
    char *in = absolute_path(input), *root = absolute_path(base), *folder = NULL;
    const char *rel = in && root ? below(in, root) : NULL;
    if (rel) {
        folder = folder_of(rel);
    } else if (in && root) {
        char *dir = folder_of(in); /* "/a/b/" */
        char *real_dir = dir ? realpath(dir, NULL) : NULL, *real_root = realpath(base, NULL);
        rel = real_dir && real_root ? below(real_dir, real_root) : NULL;
        folder = rel ? batch_strdupf("%s%s", rel, *rel ? "/" : "") : NULL;
        *outside = !rel && dir;
        free(dir);
        free(real_dir);
        free(real_root);
    }
    free(in);
    free(root);
    return folder;
}

/* The folder below -O DIR that @p it's output goes in ("" or "sub/dir/"): a
 * file found in a directory argument keeps its path below that directory, any
 * other its path below @p base (the current folder without --base); with
 * --base every input keeps its path below it. NULL with *outside set when the
 * input is not below the base; NULL alone when out of memory. */
static char *mirrored_folder(const batch_item *it, const char *base, int *outside)
{
    if (it->root_len && !base)
        return folder_of(it->input + it->root_len);
    return folder_below(it->input, base ? base : ".", outside);
}

/* DIR/[sub/]STEM[.INEXT]SUFFIX.EXT for one item. */
static char *output_name(const batch_item *it, const char *dir, const char *suffix,
                         const char *ext, int keep_input_ext)
{
    size_t len = strlen(dir);
    const char *sep = len && dir[len - 1] == '/' ? "" : "/";
    const char *base = strrchr(it->input, '/');
    base = base ? base + 1 : it->input;
    char *stem = keep_input_ext ? strdup(base) : stem_of(it->input);
    char *out = stem ? batch_strdupf("%s%s%s%s%s.%s", dir, sep, it->mirror, stem, suffix, ext)
                     : NULL;
    free(stem);
    return out;
}

/* Inputs whose outputs collide while their names differ (x.jpg and x.png in
 * one folder) are named with the input's extension kept. */
static int name_same_stems_apart(batch *b, const char *dir, const char *suffix, const char *ext)
{
    size_t n;
    batch_item **sorted = items_by_output(b, &n);
    if (!sorted)
        return out_of_memory();
    char *rename = calloc(n ? n : 1, 1);
    for (size_t i = 1; rename && i < n; i++) {
        batch_item *x = sorted[i - 1], *y = sorted[i];
        const char *bx = strrchr(x->input, '/'), *by = strrchr(y->input, '/');
        bx = bx ? bx + 1 : x->input;
        by = by ? by + 1 : y->input;
        if (strcmp(x->output, y->output) == 0 && strcmp(bx, by) != 0)
            rename[i - 1] = rename[i] = 1;
    }
    int rc = rename ? 0 : out_of_memory();
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (!rename[i])
            continue;
        char *named = output_name(sorted[i], dir, suffix, ext, 1);
        if (!named) {
            rc = out_of_memory();
            break;
        }
        free(sorted[i]->output);
        sorted[i]->output = named;
    }
    free(rename);
    free(sorted);
    return rc;
}

/* The folders of the mirrored outputs (mkdir -p each, once in a row). */
static int make_output_folders(batch *b)
{
    char *made = NULL;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < b->count; i++) {
        batch_item *it = &b->items[i];
        if (!it->output || !it->mirror[0] || it->state != ITEM_PENDING)
            continue;
        char *folder = batch_strdupf("%.*s", (int)(strrchr(it->output, '/') - it->output),
                                     it->output);
        if (!folder)
            rc = out_of_memory();
        else if (!made || strcmp(made, folder) != 0)
            rc = make_directory(folder);
        free(made);
        made = folder;
    }
    free(made);
    return rc;
}

/* Each item's folder below -O DIR (batch_item.mirror); an input outside the
 * base is a usage error. CLI_CONTINUE, or the exit code (message printed). */
static int mirror_folders(batch *b, const batch_plan *plan)
{
    for (size_t i = 0; i < b->count; i++) {
        batch_item *it = &b->items[i];
        int outside = 0;
        if (it->state != ITEM_PENDING || (it->mirror = mirrored_folder(it, plan->base, &outside)))
            continue;
        if (!outside)
            return out_of_memory_exit();
        if (plan->base)
            return cli_usage_error(plan->cmd, "%s is not below --base %s", it->input,
                                   plan->base);
        return cli_usage_error(plan->cmd, "%s is not below the current folder, whose tree -O "
                                          "mirrors; give --base DIR, a folder above every input",
                               it->input);
    }
    return CLI_CONTINUE;
}

/* Name outputs DIR/[SUB/]STEM SUFFIX.EXT, SUB mirroring the input's folders
 * (mirror_folders); inputs that differ only in extension (x.jpg, x.png) keep
 * it: DIR/x.jpg SUFFIX.EXT. Two inputs with the same output are a usage error;
 * then DIR and SUB are created (mkdir -p). CLI_CONTINUE, or the exit code
 * (message printed). */
static int name_outputs(batch *b, const batch_plan *plan)
{
    const char *dir = plan->outdir, *suffix = plan->suffix ? plan->suffix : "";
    const char *ext = plan->ext ? plan->ext : plan->default_ext;
    int rc = mirror_folders(b, plan);
    b->is_batch = 1;
    for (size_t i = 0; rc == CLI_CONTINUE && i < b->count; i++) {
        batch_item *it = &b->items[i];
        if (it->state == ITEM_PENDING && !(it->output = output_name(it, dir, suffix, ext, 0)))
            rc = out_of_memory_exit();
    }
    if (rc == CLI_CONTINUE && name_same_stems_apart(b, dir, suffix, ext) != 0)
        rc = EXIT_SOME_FAILED;
    if (rc == CLI_CONTINUE)
        rc = refuse_shared_outputs(b, plan);
    if (rc == CLI_CONTINUE && (make_directory(dir) != 0 || make_output_folders(b) != 0 ||
                               fail_outputs_onto_inputs(b) != 0))
        rc = EXIT_SOME_FAILED;
    return rc;
}

void batch_free(batch *b)
{
    for (size_t i = 0; i < b->count; i++) {
        free(b->items[i].input);
        free(b->items[i].output);
        free(b->items[i].mirror);
        free(b->items[i].report);
        free(b->items[i].message);
        free(b->items[i].notes);
    }
    free(b->items);
    memset(b, 0, sizeof *b);
}

/* ---- running ------------------------------------------------------------------ */

typedef struct runner {
    batch *b;
    const batch_run_options *opt;
    batch_work work;
    void *ctx;
    pthread_mutex_t lock;
    size_t next_to_start, next_to_print, finished;
    int workers_started;
    char *finished_flags;
    int progress; /* a progress line on the terminal */
    int header_due; /* opt->header not written yet */
    size_t done, failed, skipped;
    double started, last_drawn, pixels;
} runner;

/* A single output's folder must exist (as for cp); the hint makes it (-O
 * would create a folder too, but name the output after the input). */
static void missing_folder(batch_item *it)
{
    const char *slash = strrchr(it->output, '/');
    struct stat st;
    if (!slash || slash == it->output)
        return;
    char *folder = batch_strdupf("%.*s", (int)(slash - it->output), it->output);
    if (folder && stat(folder, &st) != 0 && errno == ENOENT) {
        it->state = ITEM_FAILED;
        it->message = batch_strdupf("%s: folder %s does not exist (create it first: mkdir -p %s)",
                                    it->output, folder, folder);
    }
    free(folder);
}

/* Checks that need no decoding: the output must not be the input; -n. */
static void preflight(const batch_run_options *opt, batch_item *it)
{
    struct stat in, out;
    if (!it->output || strcmp(it->output, "-") == 0 || it->state != ITEM_PENDING)
        return;
    if (stat(it->output, &out) != 0) {
        missing_folder(it);
        return;
    }
    if (stat_input(it->input, &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
        it->state = ITEM_FAILED;
        it->message = batch_strdupf("%s: output %s is the input file; not overwritten",
                                    strcmp(it->input, "-") == 0 ? "(stdin)" : it->input,
                                    it->output);
    } else if (opt->no_clobber) {
        it->state = ITEM_SKIPPED;
        if (opt->verbose)
            it->message = batch_strdupf("%s: exists, skipped (--no-clobber)", it->output);
    }
}

static void clear_progress(const runner *r)
{
    if (r->progress)
        fputs("\r\033[K", stderr);
}

/* "1:02:03" or "2:03" */
static void format_duration(char *buf, size_t size, double s)
{
    int t = s < 0 ? 0 : (s > 359999 ? 359999 : (int)(s + 0.5));
    if (t >= 3600)
        snprintf(buf, size, "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, size, "%d:%02d", t / 60, t % 60);
}

static int terminal_columns(void)
{
    struct winsize ws;
    return ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

/* One line, redrawn in place at most 10 times a second: a bar, percent,
 * files done of all, files/s, MPixel/s and the time left at this rate. */
static void draw_progress(runner *r)
{
    double t = wt_seconds(), elapsed = t - r->started;
    if (t - r->last_drawn < 0.1 && r->last_drawn > 0)
        return;
    r->last_drawn = t;
    double fraction = (double)r->finished / (double)r->b->count;
    double rate = elapsed > 0 ? (double)r->finished / elapsed : 0;
    char eta[32] = "?", line[160], bar[11];
    if (rate > 0)
        format_duration(eta, sizeof eta, (double)(r->b->count - r->finished) / rate);
    int filled = (int)(fraction * 10);
    for (int i = 0; i < 10; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[10] = '\0';
    int n = snprintf(line, sizeof line, "wavetool: [%s] %3d%% %zu/%zu %.1f files/s "
                                        "%.1f MPixel/s ETA %s",
                     bar, (int)(fraction * 100), r->finished, r->b->count, rate,
                     elapsed > 0 ? r->pixels / elapsed / 1e6 : 0.0, eta);
    int cols = terminal_columns() - 1; /* the last column would wrap on some terminals */
    if (n > cols && cols > 0)
        line[cols] = '\0';
    fprintf(stderr, "\r\033[K%s", line);
}

static int batch_stopped(const runner *r)
{
    return r->opt->stopped && r->opt->stopped(r->opt->stop_arg);
}

/* Once the batch has stopped, an item that failed or did not run says nothing. */
static void silence_if_stopped(const runner *r, batch_item *it)
{
    if ((it->state != ITEM_PENDING && it->state != ITEM_FAILED) || !batch_stopped(r))
        return;
    it->state = ITEM_STOPPED;
    free(it->message);
    free(it->notes);
    free(it->report);
    it->message = it->notes = it->report = NULL;
}

static void write_header(runner *r)
{
    if (!r->header_due)
        return;
    r->header_due = 0;
    r->opt->header(r->ctx, r->opt->report);
}

/* Print what finished items have to say, in input order, and the progress
 * line after item @p just_done. Called locked. */
static void flush_in_order(runner *r, size_t just_done)
{
    while (r->next_to_print < r->b->count && r->finished_flags[r->next_to_print]) {
        batch_item *it = &r->b->items[r->next_to_print++];
        if (it->state != ITEM_STOPPED)
            write_header(r);
        r->done += it->state == ITEM_DONE;
        r->failed += it->state == ITEM_FAILED;
        r->skipped += it->state == ITEM_SKIPPED;
        if (it->notes) {
            clear_progress(r);
            fputs(it->notes, stderr);
        }
        if (it->message) {
            clear_progress(r);
            cli_error("%s", it->message);
        }
        if (it->report) {
            fputs(it->report, r->opt->report);
            fflush(r->opt->report);
        }
    }
    r->pixels += r->b->items[just_done].pixels;
    if (r->progress && r->finished < r->b->count)
        draw_progress(r);
}

static _Thread_local int worker_index = -1;

int batch_worker_index(void)
{
    return worker_index;
}

static void *worker(void *arg)
{
    runner *r = arg;
    int outer = worker_index; /* the caller's (a batch within an item's work) */
    pthread_mutex_lock(&r->lock);
    worker_index = r->workers_started++;
    pthread_mutex_unlock(&r->lock);
    for (;;) {
        pthread_mutex_lock(&r->lock);
        size_t i = r->next_to_start++;
        pthread_mutex_unlock(&r->lock);
        if (i >= r->b->count)
            break;
        batch_item *it = &r->b->items[i];
        preflight(r->opt, it);
        if (it->state == ITEM_PENDING && !batch_stopped(r))
            r->work(r->ctx, it);
        silence_if_stopped(r, it);
        pthread_mutex_lock(&r->lock);
        r->finished_flags[i] = 1;
        r->finished++;
        flush_in_order(r, i);
        pthread_mutex_unlock(&r->lock);
    }
    worker_index = outer;
    return NULL;
}

static void print_summary(const runner *r, int stopped)
{
    clear_progress(r);
    if (!r->b->is_batch || r->opt->quiet || stopped)
        return;
    fprintf(stderr, "wavetool: %zu file%s: %zu done, %zu failed", r->b->count,
            r->b->count == 1 ? "" : "s", r->done, r->failed);
    if (r->skipped)
        fprintf(stderr, ", %zu skipped", r->skipped);
    fputc('\n', stderr);
}

int batch_run(batch *b, const batch_run_options *opt, batch_work work, void *ctx)
{
    runner r = {.b = b, .opt = opt, .work = work, .ctx = ctx};
    pthread_t tids[1024];
    int started = 0, jobs = opt->jobs < 1 ? 1 : (opt->jobs > 1024 ? 1024 : opt->jobs);
    if ((size_t)jobs > b->count)
        jobs = b->count ? (int)b->count : 1;
    r.finished_flags = calloc(b->count ? b->count : 1, 1);
    if (!r.finished_flags) {
        out_of_memory();
        return 1;
    }
    r.progress = b->is_batch && !opt->quiet && isatty(STDERR_FILENO);
    r.header_due = opt->header != NULL;
    r.started = wt_seconds();
    pthread_mutex_init(&r.lock, NULL);
    for (int t = 1; t < jobs; t++)
        if (pthread_create(&tids[started], NULL, worker, &r) == 0)
            started++;
    worker(&r);
    for (int t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
    pthread_mutex_destroy(&r.lock);
    int stopped = batch_stopped(&r);
    if (!stopped)
        write_header(&r); /* no item printed: the report still has its header */
    print_summary(&r, stopped);
    free(r.finished_flags);
    return r.failed || stopped ? EXIT_SOME_FAILED : EXIT_ALL_DONE;
}

/* ---- from arguments --------------------------------------------------------- */

/* --base names an existing folder. */
static int check_base(const batch_plan *plan)
{
    struct stat st;
    int found = stat(plan->base, &st) == 0;
    if (found && S_ISDIR(st.st_mode))
        return CLI_CONTINUE;
    return cli_usage_error(plan->cmd, "--base %s: %s", plan->base,
                           found ? "not a folder" : strerror(errno));
}

static int check_plan(const batch_plan *plan, char **args, int nargs)
{
    struct stat st;
    int stdin_uses = 0;
    for (int i = 0; i < nargs; i++)
        stdin_uses += strcmp(args[i], "-") == 0;
    if (plan->single_output && plan->outdir)
        return cli_usage_error(plan->cmd, "-o and -O exclude each other");
    if (plan->single_output && nargs > 1)
        return cli_usage_error(plan->cmd, "-o takes one input; use -O DIR for many");
    if (plan->base && !plan->outdir)
        return cli_usage_error(plan->cmd, "--base applies with -O only");
    if (plan->base && check_base(plan) != CLI_CONTINUE)
        return EXIT_USAGE;
    if (plan->outdir && stdin_uses)
        return cli_usage_error(plan->cmd, "'-' (standard input) cannot be used with -O");
    if (stdin_uses > 1 && !(plan->in_out_pair && !plan->outdir))
        return cli_usage_error(plan->cmd, "'-' (standard input) can be read only once");
    if (plan->in_out_pair && !plan->outdir && nargs != 2)
        return cli_usage_error(plan->cmd, "expected IN OUT, or -O DIR and inputs");
    const char *out = plan->single_output ? plan->single_output
                      : plan->in_out_pair && !plan->outdir ? args[1]
                                                            : NULL;
    if (out && strcmp(out, "-") == 0 && isatty(STDOUT_FILENO))
        return cli_usage_error(plan->cmd, "not writing binary data to a terminal; redirect "
                                          "standard output");
    int first_is_dir = nargs > 0 && strcmp(args[0], "-") != 0 && stat(args[0], &st) == 0 &&
                       S_ISDIR(st.st_mode);
    if (first_is_dir && plan->in_out_pair && !plan->outdir)
        return cli_usage_error(plan->cmd, "%s is a directory; use -O DIR to process directories",
                               args[0]);
    if (first_is_dir && plan->single_output)
        return cli_usage_error(plan->cmd, "-o takes one input file; use -O DIR for %s",
                               args[0]);
    return CLI_CONTINUE;
}

int batch_plan_files(batch *b, const batch_plan *plan, char **args, int nargs)
{
    int rc = check_plan(plan, args, nargs);
    if (rc != CLI_CONTINUE)
        return rc;
    if (plan->in_out_pair && !plan->outdir)
        return batch_add_single(b, args[0], args[1]) == 0 ? CLI_CONTINUE : EXIT_SOME_FAILED;
    if (batch_add_inputs(b, args, nargs, plan->walk_holds) != 0)
        return EXIT_SOME_FAILED;
    if (plan->single_output && b->count == 1 &&
        !(b->items[0].output = strdup(plan->single_output))) {
        out_of_memory();
        return EXIT_SOME_FAILED;
    }
    return plan->outdir ? name_outputs(b, plan) : CLI_CONTINUE;
}

void batch_item_result(batch_item *it, int status)
{
    if (status == WT_OK) {
        it->state = ITEM_DONE;
        return;
    }
    it->state = ITEM_FAILED;
    const char *msg = wt_error_message();
    it->message = msg[0] ? strdup(msg)
                         : batch_strdupf("%s: %s", it->input, wt_status_name((wt_status)status));
}
