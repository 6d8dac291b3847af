/* Command-line options shared by the subcommands: one table, typed parsers,
 * help generated from the table. */
#ifndef WT_CLI_OPTIONS_H
#define WT_CLI_OPTIONS_H

#include <stdio.h>

#include "wavetool.h"
#include "wavetool_hooks.h" /* the transform registry */

/* Exit codes (DESIGN: Errors and data safety). */
enum { EXIT_ALL_DONE = 0, EXIT_SOME_FAILED = 1, EXIT_USAGE = 2 };
/* cli_parse(): go on with the command. */
#define CLI_CONTINUE (-1)

typedef enum report_format { REPORT_TEXT = 0, REPORT_JSON, REPORT_TSV } report_format;
typedef enum alpha_choice {
    ALPHA_OPAQUE = 0, /* mosaics of images with alpha: the colour channels only */
    ALPHA_KEEP,       /* every channel, alpha's bands as a mosaic's alpha */
    ALPHA_ONLY,       /* alpha's bands alone, as a gray mosaic */
} alpha_choice;
typedef enum threshold_kind {
    THRESHOLD_NONE = 0,
    THRESHOLD_KEEP, /* --keep FRACTION */
    THRESHOLD_HARD, /* --threshold T [--hard] */
    THRESHOLD_SOFT, /* --threshold T --soft */
} threshold_kind;

/* Groups of options, each named by its concern; a command accepts the groups
 * it names. */
enum {
    OPTS_TRANSFORM = 1u << 0, /* -w -l -m --method: one transform */
    OPTS_DEVICE = 1u << 1,    /* --device */
    OPTS_JOBS = 1u << 2,      /* -j */
    OPTS_LOAD = 1u << 3,      /* --max-pixels --lenient */
    OPTS_SAVE = 1u << 4,      /* --png-level --quality --compress */
    OPTS_MOSAIC = 1u << 5,    /* --scale --depth --transfer --colormap --clip --grid --labels --alpha */
    OPTS_BATCH = 1u << 6,     /* -O --suffix --ext -n */
    OPTS_REPORT = 1u << 7,    /* --format */
    OPTS_OUTPUT = 1u << 8,    /* -o: one output file */
    OPTS_QUALITY = 1u << 9,   /* --psnr --mse */
    OPTS_THRESHOLD = 1u << 10, /* --keep --threshold --soft --hard */
    OPTS_SWEEP = 1u << 11,    /* -w -m --method LIST, -l N, --size, --batch, directions */
    OPTS_TIMING = 1u << 12,   /* --repeat --host-path --pipeline */
    OPTS_GENERAL = 1u << 13,  /* -h: every command */
    OPTS_DENOISE = 1u << 14,  /* --rule --shrink --sigma --ycbcr --cycle-spin --noise --level-scale */
    OPTS_SIGMA = 1u << 15,    /* --average */
    OPTS_COMPARE = 1u << 20,  /* --gray --ignore-alpha --depth: compare's conversions */
    OPTS_RESULT = 1u << 25,   /* --depth 8|16|f32: the sample type of result images */
    OPTS_QUANT = 1u << 16,    /* --qstep */
    OPTS_STATS = 1u << 17,    /* --eps --plot */
    OPTS_VERBOSITY = 1u << 18, /* -q -v: commands with progress, notes or warnings */
};
#define OPTS_ENGINE (OPTS_DEVICE | OPTS_JOBS)

struct cli_options;

/* A subcommand: one cli/cmd_NAME.c defines `const cli_command cmd_NAME` and
 * cli/main.c lists it (help, dispatch). */
typedef struct cli_command {
    const char *name;
    const char *synopsis; /* after "wavetool NAME " */
    const char *tagline;  /* its line in 'wavetool --help' */
    const char *summary;  /* what it does, a few lines */
    unsigned groups;        /* OPTS_* it accepts */
    int min_args, max_args; /* positional arguments; max -1 = any number */
    /* Defaults other than the common ones (bench: --device cuda), or NULL. */
    void (*defaults)(struct cli_options *o);
    /* The command's work once its options are parsed and checked; the exit code. */
    int (*run)(const struct cli_options *o);
    /* What its outputs may hold (WT_HOLDS_*): the output checks and --ext's
     * choices in its help; 0: it writes no files. */
    unsigned writes;
    /* What it needs of a --transform kind (WT_THOOK_*, wavetool_hooks.h): a kind
     * without those hooks is refused with the registry's message. */
    unsigned needs;
    /* A variant chosen by a first argument (bench --pipeline), or NULL. */
    const char *variant_flag;
    const struct cli_command *variant;
} cli_command;

/* Maximal number of items of each list of bench's sweep. */
#define SWEEP_MAX 64

/* bench: the configurations timed (OPTS_SWEEP, OPTS_TIMING). */
typedef struct sweep_options {
    const wt_wavelet *wavelets[SWEEP_MAX];
    int nwavelets;
    wt_mode modes[SWEEP_MAX];
    int nmodes;
    wt_method methods[4];
    int nmethods;
    size_t sizes[SWEEP_MAX][2]; /* width, height */
    int nsizes;
    int batch, repeat;
    int forward, inverse;
    int host_path;
    int all; /* --all: every wavelet x symmetric, periodization */
} sweep_options;

typedef struct cli_options {
    wt_params params;   /* wavelet, mode, method; levels unless levels_max */
    int levels_max;     /* -l max: the deepest each image allows */
    int levels_given;   /* -l N given: too deep is an error (the default 3 shrinks) */
    const char *device; /* --device */
    int jobs;           /* -j; 0 = cores */
    int quiet, verbose;
    report_format format;
    wt_load_options load;
    wt_save_options save;
    int compress; /* --compress: .npz members deflated */
    wt_scale scale;
    int depth; /* --depth; 0 = the input's depth (8 for JPEG); compare: both at this depth;
                  results (OPTS_RESULT): 8, 16 or WT_DEPTH_F32 (f32) */
    wt_mosaic_style style; /* --scale RANGE, --transfer, --colormap, --clip, --grid, --labels
                              (style.scale mirrors scale) */
    alpha_choice alpha;    /* --alpha */
    const char *outdir, *suffix, *ext;
    int no_clobber;
    const char *output; /* roundtrip -o */
    int psnr, mse;      /* report fields; neither given = both */
    threshold_kind threshold;
    double threshold_value; /* --threshold T or --keep FRACTION */
    int keep_by_magnitude;  /* --keep-rank magnitude: rank |c| (default: |c| x band norm) */
    wt_denoise_options denoise; /* denoise: rule, shrink, sigma, ... (params from -w -l -m) */
    int average;                /* sigma --average */
    int compare_gray, compare_ignore_alpha; /* compare --gray, --ignore-alpha */
    /* undecimated transforms (--transform swt|starlet) */
    wt_transform transform;
    int norm, start_level, all_approx; /* --norm --start-level --all-approx */
    wt_border border;                  /* --border */
    int border_given;
    int layers; /* decompose --layers: one image per band and a sidecar */
    double qstep;           /* --qstep Q; 0: not given */
    double eps;             /* stats --eps E; NAN: not given */
    const char *plot;       /* stats --plot FILE.svg */
    sweep_options sweep;    /* bench */
    char **args;            /* positional arguments */
    int nargs;
} cli_options;

/* Parse argv (argv[0] = the command's name) into @p o, then run the command
 * (or its variant when argv[1] is the variant's flag). Returns the exit code. */
int cli_run(const cli_command *cmd, int argc, char **argv);

/* Parse argv (argv[0] = the command's name) into @p o. Returns CLI_CONTINUE, or
 * the exit code when the command should stop (help printed: 0; usage error
 * reported: EXIT_USAGE). */
int cli_parse(const cli_command *cmd, int argc, char **argv, cli_options *o);

/* "wavetool: MESSAGE" on stderr, one line: control characters in it (file
 * names, file contents) escaped (wt_escape_controls). */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Print "wavetool: <reason>" and "Try 'wavetool <cmd> --help'." to stderr;
 * returns EXIT_USAGE. @p cmd may be NULL (then "wavetool --help"). */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Print a command's help (synopsis, summary, options) to @p out. */
void cli_print_help(const cli_command *cmd, FILE *out);

/* Output type of '-' without --ext. */
#define CLI_DEFAULT_EXT "png"

/* Output format named by --ext or an output path ("-": --ext or png);
 * WT_FORMAT_UNKNOWN for an extension the registry does not know. */
wt_file_format cli_output_format(const cli_options *o, const char *path);
/* The sample type results are written as: --depth (8, 16, f32), else @p input's own. */
wt_sample_type cli_result_type(const cli_options *o, wt_sample_type input);

/* The output a command writes: --ext and @p out (a path, "-" or NULL) must name
 * formats that hold any of @p writes (WT_HOLDS_*). Returns CLI_CONTINUE or the
 * usage error's exit code (message printed). */
int cli_check_output(const char *cmd, const cli_options *o, const char *out, unsigned writes);

/* @p text with {IMAGES}, {COEFFS} (".png/.jpg/.jpeg", ".npz") and {EXTS} (the
 * --ext choices) spelled from the format registry; into @p buf, returned. */
const char *cli_expand_formats(const char *text, char *buf, size_t size);

#endif
