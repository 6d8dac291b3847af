/* wavetool: dispatch to the subcommands; --help, --version. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "options.h"
#include "process.h"
#include "wavetool_hooks.h" /* wt_keep_freed_buffers, wt_env */
#include "wavetool.h"

const cli_command *const cli_commands[] = {
    &cmd_decompose, &cmd_reconstruct, &cmd_roundtrip, &cmd_compare, &cmd_wavelets,
    &cmd_denoise, &cmd_sigma, &cmd_stats,
#ifdef WT_HAVE_BENCH
    &cmd_bench,
#endif
    NULL,
};
#define COMMAND_COUNT (sizeof cli_commands / sizeof cli_commands[0] - 1)

static void print_help(FILE *out)
{
    fputs("Usage: wavetool COMMAND [options] ARGS...\n"
          "       wavetool COMMAND --help\n"
          "       wavetool --help | --version\n\n"
          "Multi-level 2D discrete wavelet transforms of images.\n\n"
          "Commands:\n",
          out);
    for (size_t i = 0; i < COMMAND_COUNT; i++) {
        char tagline[256];
        fprintf(out, "  %-12s %s\n", cli_commands[i]->name,
                cli_expand_formats(cli_commands[i]->tagline, tagline, sizeof tagline));
    }
    fputs("\nCommon options: -w/--wavelet NAME (haar), -l/--levels N|max (3),\n"
          "-m/--mode MODE (symmetric), --method auto|conv|lifting, --device\n"
          "auto|cpu|cuda[:N], -j/--jobs N, -q/--quiet, -v/--verbose, --format text|json|tsv.\n"
          "Many inputs: wavetool decompose -l 3 -O outdir/ a.png b.jpg dir/\n"
          "'wavetool COMMAND --help' lists a command's options.\n\n"
          "Exit status: 0 all done; 1 some input failed (the others were processed);\n"
          "2 usage error.\n\n"
          "See wavetool(1).\n",
          out);
}

/* The GPU is opened (about 0.35 s) only for --version -v. */
static void print_version(int verbose)
{
    printf("wavetool %s\nlibrary %s\nbackends: %s\n", WT_VERSION, WT_VERSION_STRING,
           wt_backends());
    printf("jpeg: libjpeg-turbo%s\n",
           wt_gpu_jpeg_built() ? ", nvJPEG (--gpu-decode, --gpu-encode)" : "");
    if (!strstr(wt_backends(), "cuda") || !verbose)
        return;
    wt_engine *gpu = NULL;
    if (wt_engine_open(&gpu, "cuda") == WT_OK)
        printf("gpu: %s\n", wt_engine_name(gpu));
    else
        printf("gpu: none (%s)\n", wt_error_message());
    wt_engine_close(gpu);
}

/* The command whose name is a typo of @p name (at most a third of its
 * letters off, and 1 for short names), or NULL. */
static const char *closest_command(const char *name)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < COMMAND_COUNT; i++) {
        size_t d = wt_edit_distance(name, cli_commands[i]->name);
        if (d < best_d) {
            best_d = d;
            best = cli_commands[i]->name;
        }
    }
    size_t allowed = strlen(name) / 3 > 1 ? strlen(name) / 3 : 1;
    return best_d <= allowed ? best : NULL;
}

static int run_command(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error(NULL, "no command given");
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        print_help(stdout);
        return EXIT_ALL_DONE;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        int verbose = argc > 2 && (strcmp(argv[2], "-v") == 0 || strcmp(argv[2], "--verbose") == 0);
        print_version(verbose);
        return EXIT_ALL_DONE;
    }
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(name, cli_commands[i]->name) == 0)
            return cli_run(cli_commands[i], argc - 1, argv + 1);
    const char *near = closest_command(name);
    if (near)
        return cli_usage_error(NULL, "unknown command '%s' (did you mean '%s'?)", name, near);
    return cli_usage_error(NULL, "unknown command '%s'", name);
}

int main(int argc, char **argv)
{
    process_init(); /* first: standard descriptors, signals, temporary outputs */
    wt_keep_freed_buffers(); /* a batch reuses its large buffers */
    wt_env(); /* the environment's knobs, read once here (src/env.c lists them) */
    int rc = run_command(argc, argv);
    /* Reports, lists and help on a full disk: an error, not exit 0 with a cut
     * file. (An image written to "-" that failed was reported and cleared.) */
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "wavetool: (stdout): %s\n", errno ? strerror(errno) : "write error");
        if (rc == EXIT_ALL_DONE)
            rc = EXIT_SOME_FAILED;
    }
    return rc;
}
