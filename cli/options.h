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

typedef enum report_format { REPORT_TEXT = 0, REPORT_JSON, REPORT_TSV, REPORT_CSV } report_format;
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

/* Thresholding of roundtrip's details (--keep, --threshold, --soft, --hard,
 * --keep-rank); undecimated_roundtrip applies it to band stacks. */
typedef struct cli_threshold {
    threshold_kind kind;
    double value;          /* --threshold T or --keep FRACTION */
    int keep_by_magnitude; /* --keep-rank magnitude: rank |c| (default: |c| x band norm) */
} cli_threshold;

/* ---- option rows (model: FFmpeg's AVOption tables) ---------------------------
 * An option is one row: its name, short letter, argument placeholder, parser
 * and the field it sets, help text and the default --help shows. Rows come in
 * groups: the shared groups (cli/opts_*.c) set fields of cli_options, a
 * command's own group (in its cli/cmd_X.c) sets fields of its own option
 * struct (cli_options.own). getopt_long's tables, --help, the "does not apply"
 * message and the shell completions (which read --help) all come from the rows. */
struct cli_options;
struct cli_command;
struct cli_opt;

/* What a row's parser is given. */
typedef struct cli_arg {
    const char *cmd;            /* the command's name, for messages */
    const struct cli_opt *row;
    const char *value;          /* the option's argument; NULL for a flag */
    void *field;                /* the row's field: its group's struct + row->offset */
    struct cli_options *o;      /* every option (parsers that set more than one field) */
} cli_arg;

/* Sets the row's field from the argument; CLI_CONTINUE or EXIT_USAGE (message printed). */
typedef int (*cli_opt_parser)(const cli_arg *a);

typedef struct cli_opt {
    const char *name;      /* --name */
    int letter;            /* -x, or 0: long only */
    const char *arg;       /* placeholder in help (its choices when it spells them: 8|16);
                              NULL: a flag */
    cli_opt_parser parse;
    size_t offset;         /* the field it sets, in its group's struct */
    const char *help;      /* {IMAGES} {COEFFS} {EXTS} {TRANSFORMS} are spelled out */
    const char *def;       /* the default, shown as "(default DEF)"; NULL: none shown */
    const void *spec;      /* the parser's data: cli_int_range, cli_real_range, choices */
} cli_opt;

typedef struct cli_group {
    const cli_opt *rows;
    size_t count;
    int own; /* 1: the rows set the command's own struct (cli_options.own) */
} cli_group;
#define CLI_GROUP(rows, own) {rows, sizeof rows / sizeof rows[0], own}

/* Limits of cli_opt_int / cli_opt_real. */
typedef struct cli_int_range { long long min, max; } cli_int_range;
typedef struct cli_real_range { double min, max; } cli_real_range;
/* Choices of cli_opt_choice: the names (the index is stored, an int), and how
 * a message lists them. */
typedef struct cli_choices { const char *const *names; const char *expected; } cli_choices;

/* Generic parsers (cli/optparse.c). */
int cli_opt_flag(const cli_arg *a);   /* int field = 1 */
int cli_opt_count(const cli_arg *a);  /* int field += 1 (-v -v) */
int cli_opt_int(const cli_arg *a);    /* int field; spec: cli_int_range */
int cli_opt_real(const cli_arg *a);   /* double field; spec: cli_real_range */
int cli_opt_choice(const cli_arg *a); /* int (or enum) field = index; spec: cli_choices */
int cli_opt_string(const cli_arg *a); /* const char * field = the argument, not empty */
/* An integer/real/choice parse into @p out, for parsers that set more than a field. */
int cli_parse_int(const cli_arg *a, long long min, long long max, long long *out);
int cli_parse_real(const cli_arg *a, double min, double max, double *out);
int cli_parse_choice(const cli_arg *a, const char *const *names, const char *expected, int *out);

/* The shared groups, each declared once in its own file. */
extern const cli_group cli_group_transform; /* -w -l -m --method --transform (opts_transform.c) */
extern const cli_group cli_group_wavelet;   /* -w -m --method --transform: commands with their own -l */
extern const cli_group cli_group_swt;       /* --norm --start-level --all-approx */
extern const cli_group cli_group_starlet;   /* --border */
extern const cli_group cli_group_packet;    /* --basis --cost */
extern const cli_group cli_group_device;    /* --device (opts_engine.c) */
extern const cli_group cli_group_jobs;      /* -j */
extern const cli_group cli_group_gpu_codec; /* --gpu-decode --gpu-encode (opts_engine.c) */
extern const cli_group cli_group_input;     /* --max-pixels --max-memory --lenient --stack (opts_input.c) */
extern const cli_group cli_group_save;      /* --png-level --quality --compress (opts_output.c) */
extern const cli_group cli_group_batch;     /* -O --suffix --ext -n */
extern const cli_group cli_group_result;    /* --depth 8|16|f32 of result images */
extern const cli_group cli_group_metadata;  /* --strip: results of an input image */
extern const cli_group cli_group_mosaic;    /* --scale ... --layers (opts_mosaic.c) */
extern const cli_group cli_group_report;    /* --format (opts_report.c) */
extern const cli_group cli_group_psnr;      /* --data-range (opts_report.c) */
#define CLI_DATA_RANGE_AUTO (-1.0)
extern const cli_group cli_group_verbosity; /* -q -v */
extern const cli_group cli_group_volume;    /* --volume --axes (opts_volume.c) */
extern const cli_group cli_group_volume_view; /* --slice: a volume's mosaic */
extern const cli_group cli_group_help;      /* -h: every command */

/* Parsers other files' rows reuse (bench's --transform, --border; denoise's -l). */
int cli_parse_transform(const cli_arg *a);
int cli_parse_border(const cli_arg *a);
int cli_parse_levels(const cli_arg *a);
int cli_parse_depth(const cli_arg *a); /* 8, 16 or f32 (WT_DEPTH_F32) into an int */
/* The options of a --transform kind go with it (its class's params), and the
 * kind has the hooks @p cmd needs: CLI_CONTINUE, or the usage error's code. */
int cli_check_transform_options(const struct cli_command *cmd, const struct cli_options *o);
/* --transform's choices for a command needing @p needs (WT_THOOK_*), each with
 * its help line, in the registry's order ({TRANSFORMS} in help texts). */
const char *cli_transform_choices(unsigned needs, char *buf, size_t size);

/* A subcommand: one cli/cmd_NAME.c defines `const cli_command cmd_NAME` and
 * cli/main.c lists it (help, dispatch). */
typedef struct cli_command {
    const char *name;
    const char *synopsis; /* after "wavetool NAME " */
    const char *tagline;  /* its line in 'wavetool --help' */
    const char *summary;  /* what it does, a few lines */
    /* Its option groups, shared ones and its own, in --help's order; NULL-terminated. */
    const cli_group *const *groups;
    size_t own_size;        /* size of its own option struct (cli_options.own), or 0 */
    int min_args, max_args; /* positional arguments; max -1 = any number */
    /* Defaults other than the common ones (bench: --device cuda) and those of
     * its own struct, or NULL. */
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

/* Every command (cli/main.c), NULL-terminated: an option of another command
 * is "does not apply" rather than unknown. */
extern const cli_command *const cli_commands[];

/* The shared groups' options; a command's own are in its struct (own). */
typedef struct cli_options {
    wt_params params;   /* wavelet, mode, method; levels unless levels_max */
    int levels_max;     /* -l max: the deepest each image allows */
    int levels_given;   /* -l N given: too deep is an error (the default 3 shrinks) */
    const char *device; /* --device */
    int gpu_decode, gpu_encode; /* --gpu-decode, --gpu-encode: JPEG through nvJPEG */
    int jobs;           /* -j; 0 = cores */
    int quiet, verbose;
    report_format format;
    double data_range; /* --data-range: PSNR's peak R; 0: the rule of wt_quality_compare;
                          CLI_DATA_RANGE_AUTO: max - min of the reference */
    wt_load_options load;
    wt_save_options save;
    int compress; /* --compress: .npz members deflated */
    int depth; /* --depth; 0 = the input's depth (8 for JPEG); compare: both at this depth;
                  results (cli_group_result): 8, 16 or WT_DEPTH_F32 (f32) */
    wt_scale scale;
    wt_mosaic_style style; /* --scale RANGE, --transfer, --colormap, --clip, --grid, --labels
                              (style.scale mirrors scale) */
    alpha_choice alpha;    /* --alpha */
    int layers; /* decompose --layers: one image per band and a sidecar */
    const char *outdir, *suffix, *ext;
    const char *base; /* --base DIR: what -O mirrors input paths below */
    int no_clobber;
    /* undecimated transforms (--transform swt|starlet) */
    wt_transform transform;
    int norm, start_level, all_approx; /* --norm --start-level --all-approx */
    wt_border border;                  /* --border */
    int border_given;
    /* wavelet packets (--transform packet) */
    wt_packet_rule basis;          /* --basis */
    wt_packet_cost cost;           /* --cost */
    int basis_given, cost_given;
    int volume;        /* --volume: a stack or 3-D array is one (z, y, x) volume */
    int axes[3], naxes; /* --axes: the volume's axes transformed, in order (0: all three) */
    long slice;         /* decompose --volume --slice: z=N, -1 mip, -2 not given (the middle) */
    void *own;              /* the command's own options: its struct in cli/cmd_X.c */
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

/* The options' transform before its levels are fitted to a volume. */
void cli_volume_spec(const cli_options *o, wt_volume_spec *s);

/* 1 when the GPU engine runs the options' volume transform (the DWT of
 * float samples by convolution). */
int cli_volume_gpu_takes(const cli_options *o);

#endif
