/* libFuzzer harness: the whole command-line path, argument vector and file
 * contents together. The first bytes pick a command, options (from a table,
 * so that paths stay in a scratch directory) and the input's and output's
 * names; the rest is the input file. The program's main() is compiled in as
 * wavetool_main (tests/fuzz/meson.build). Limits are small (--max-pixels) and
 * one file runs at a time, so the fuzzer explores parsing, not allocation.
 * Run with -close_fd_mask=3 (tests/fuzz/run.sh): the program's messages are
 * not the fuzzer's. libFuzzer's signal handlers are put back after each run
 * (restore_fuzzer_actions), and its SIGALRM (timeouts, -max_total_time) is
 * held during a run (alarm_mask). Files live in a scratch directory on tmpfs
 * where there is one. */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int wavetool_main(int argc, char **argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const commands[] = {"decompose", "reconstruct", "roundtrip", "compare",
                                       "wavelets"};
/* Options, each one argv entry or two ("-w db2"). */
static const char *const options[][2] = {
    {"-w", "db2"}, {"-w", "legall53"}, {"-w", "cdf97"}, {"-w", "bior4.4"}, {"-w", "dd137"},
    {"-w", "sym5"}, {"-w", "nonesuch"}, {"-l", "1"}, {"-l", "max"}, {"-l", "0"}, {"-l", "9"},
    {"-l", "x"}, {"-m", "periodization"}, {"-m", "zero"}, {"-m", "smooth"},
    {"-m", "antireflect"}, {"--method", "lifting"}, {"--method", "conv"}, {"--lenient", NULL},
    {"--scale", "abs"}, {"--scale", "offset"}, {"--depth", "16"}, {"--depth", "8"},
    {"--png-level", "0"}, {"--png-level", "9"}, {"--quality", "5"}, {"--psnr", NULL},
    {"--mse", NULL}, {"--keep", "0.1"}, {"--keep", "0"}, {"--threshold", "3"}, {"--soft", NULL},
    {"--hard", NULL}, {"--format", "json"}, {"--format", "tsv"}, {"-q", NULL}, {"-v", NULL},
    {"-n", NULL}, {"--ext", "npz"}, {"--ext", "jpg"}, {"--ext", "tif"}, {"--ext", "npy"},
    {"--suffix", "_s"}, {"-j", "2"}, {"--depth", "f32"}, {"--stack", "first"},
    {"--stack", "last"}, {"--transform", "swt"}, {"--transform", "starlet"}, {"--layers", NULL},
    {"--help", NULL}, {"--help=x", NULL}, {"-O", ""}, {"-o", ""}, {"--bogus", NULL},
    /* tests/fuzz/run.sh's --volume seeds pick option 55 */
    {"--volume", NULL}, {"--axes", "2,0"}, {"--slice", "mip"}, {"--slice", "z=1"},
};
static const char *const inputs[] = {"in.png", "in.jpg", "in.npz", "in.bin",
                                     "in.tif", "in.npy", "in_layers.txt"};
static const char *const outputs[][2] = {
    {"out.png", NULL}, {"out.npz", NULL}, {"out.jpg", NULL}, {"-O", "outdir"},
    {"-o", "out.png"}, {"-o", "out.npz"}, {"out.txt", NULL}, {"in.png", NULL},
    {"out.tif", NULL}, {"out.npy", NULL},
};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static char scratch[64];

static void clear_dir(const char *dir)
{
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        char p[512];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            clear_dir(p);
            rmdir(p);
        } else {
            unlink(p);
        }
    }
    if (d)
        closedir(d);
}

static void remove_scratch(void)
{
    if (chdir(scratch) == 0)
        clear_dir(".");
    rmdir(scratch);
}

/* The scratch directory: on tmpfs (/dev/shm) where there is one, since every
 * run creates, renames and removes files; removed at exit. */
static int enter_scratch(void)
{
    if (!scratch[0]) {
        struct stat st;
        const char *base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
                                   access("/dev/shm", W_OK) == 0
                               ? "/dev/shm"
                               : "/tmp";
        snprintf(scratch, sizeof scratch, "%s/wt-fuzz-cli.XXXXXX", base);
        if (!mkdtemp(scratch)) {
            scratch[0] = 0;
            return -1;
        }
        atexit(remove_scratch);
    }
    return chdir(scratch);
}

/* SIGALRM, libFuzzer's timer, is blocked in every thread (those libFuzzer
 * starts later, such as its RSS monitor, inherit that) except for a moment
 * after each run, when libFuzzer's own handler is in place again. */
static void alarm_mask(int how)
{
    sigset_t timer;
    sigemptyset(&timer);
    sigaddset(&timer, SIGALRM);
    pthread_sigmask(how, &timer, NULL);
}

static void alarm_window(void)
{
    alarm_mask(SIG_UNBLOCK);
    alarm_mask(SIG_BLOCK);
}

/* libFuzzer's signal actions, read once (at the first run: its handlers are in
 * place by then). The program installs its own (cli/process.c: every signal
 * that ends the process, SIGXFSZ ignored); after a run, the signals that
 * libFuzzer handles and SIGXFSZ get libFuzzer's actions back. The others keep
 * the program's handler, which removes its temporary files and dies of the
 * signal as the default action would, and which the next run installs alike
 * (it skips only signals ignored at start). Reading and setting all 64
 * signals at each run was a fifth of the harness's time. */
static int restored[65], nrestored = -1;
static struct sigaction fuzzer_actions[65];

static void save_fuzzer_actions(void)
{
    if (nrestored >= 0)
        return;
    nrestored = 0;
    int nsig = SIGRTMAX < 64 ? SIGRTMAX : 64;
    for (int sig = 1; sig <= nsig; sig++)
        if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, NULL, &fuzzer_actions[sig]) == 0 &&
            (fuzzer_actions[sig].sa_handler != SIG_DFL || sig == SIGXFSZ))
            restored[nrestored++] = sig;
}

static void restore_fuzzer_actions(void)
{
    for (int i = 0; i < nrestored; i++)
        sigaction(restored[i], &fuzzer_actions[restored[i]], NULL);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    alarm_mask(SIG_BLOCK);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4 || enter_scratch() != 0)
        return 0;
    char *argv[64];
    int argc = 0;
    argv[argc++] = "wavetool";
    argv[argc++] = (char *)commands[data[0] % COUNT(commands)];
    argv[argc++] = "--device";
    argv[argc++] = "cpu";
    argv[argc++] = "-j";
    argv[argc++] = "1";
    argv[argc++] = "--max-pixels";
    argv[argc++] = "4096";
    int nopts = data[1] % 6;
    if (size < (size_t)(4 + nopts))
        return 0;
    for (int i = 0; i < nopts; i++) {
        const char *const *o = options[data[4 + i] % COUNT(options)];
        argv[argc++] = (char *)o[0];
        if (o[1])
            argv[argc++] = (char *)o[1];
    }
    const char *input = inputs[data[2] % COUNT(inputs)];
    const char *const *output = outputs[data[3] % COUNT(outputs)];
    argv[argc++] = (char *)input;
    if (data[0] % COUNT(commands) == 3) /* compare: the input against itself */
        argv[argc++] = (char *)input;
    argv[argc++] = (char *)output[0];
    if (output[1])
        argv[argc++] = (char *)output[1];
    argv[argc] = NULL;

    FILE *f = fopen(input, "wb");
    if (!f)
        return 0;
    fwrite(data + 4 + nopts, 1, size - 4 - (size_t)nopts, f);
    fclose(f);
    save_fuzzer_actions();
    wavetool_main(argc, argv);
    restore_fuzzer_actions();
    alarm_window();
    fflush(stdout);
    clear_dir(".");
    return 0;
}
