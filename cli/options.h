/* Command-line options shared by the subcommands: one table, typed parsers,
 * help generated from the table. */
#ifndef WT_CLI_OPTIONS_H
#define WT_CLI_OPTIONS_H

#include <stdio.h>

#include "wavetool.h"

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

/* Groups of options; a command accepts the groups it names. */
enum {
    OPTS_TRANSFORM = 1u << 0, /* -w -l -m --method */
    OPTS_ENGINE = 1u << 1,    /* --device -j */
    OPTS_LOAD = 1u << 2,      /* --max-pixels --lenient */
    OPTS_SAVE = 1u << 3,      /* --png-level --quality */
    OPTS_MOSAIC = 1u << 4,    /* --scale --depth --transfer --colormap --clip --grid --labels --alpha */
    OPTS_BATCH = 1u << 5,     /* -O --suffix --ext -n */
    OPTS_REPORT = 1u << 6,    /* --format */
    OPTS_ROUNDTRIP = 1u << 7, /* -o --psnr --mse --keep --threshold --soft --hard */
    OPTS_GENERAL = 1u << 8,   /* -q -v -h: every command */
    OPTS_QUANT = 1u << 9,     /* --qstep */
    OPTS_STATS = 1u << 10,    /* --eps --plot */
};

/* What a subcommand is, for parsing and help. */
typedef struct cli_command {
    const char *name;
    const char *synopsis; /* after "wavetool NAME " */
    const char *summary;  /* what it does, a few lines */
    unsigned groups;
    int min_args, max_args; /* positional arguments; max -1 = any number */
} cli_command;

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
    wt_scale scale;
    int depth; /* --depth; 0 = the input's depth (8 for JPEG) */
    wt_mosaic_style style; /* --scale RANGE, --transfer, --colormap, --clip, --grid, --labels
                              (style.scale mirrors scale) */
    alpha_choice alpha;    /* --alpha */
    const char *outdir, *suffix, *ext;
    int no_clobber;
    const char *output; /* roundtrip -o */
    int psnr, mse;      /* report fields; neither given = both */
    threshold_kind threshold;
    double threshold_value; /* --threshold T or --keep FRACTION */
    double qstep;           /* --qstep Q; 0: not given */
    double eps;             /* stats --eps E; NAN: not given */
    const char *plot;       /* stats --plot FILE.svg */
    char **args;            /* positional arguments */
    int nargs;
} cli_options;

/* Parse argv (argv[0] = the command's name) into @p o. Returns CLI_CONTINUE, or
 * the exit code when the command should stop (help printed: 0; usage error
 * reported: EXIT_USAGE). */
int cli_parse(const cli_command *cmd, int argc, char **argv, cli_options *o);

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

/* The output a command writes: --ext and @p out (a path, "-" or NULL) must name
 * formats that hold any of @p writes (WT_HOLDS_*). Returns CLI_CONTINUE or the
 * usage error's exit code (message printed). */
int cli_check_output(const char *cmd, const cli_options *o, const char *out, unsigned writes);

/* @p text with {IMAGES}, {COEFFS} (".png/.jpg/.jpeg", ".npz") and {EXTS} (the
 * --ext choices) spelled from the format registry; into @p buf, returned. */
const char *cli_expand_formats(const char *text, char *buf, size_t size);

#endif
