/* Parsing of a command's options: its rows (options.h) drive getopt_long,
 * the checks that an option applies to the command, and the help text. */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define ALL_FORMATS (WT_HOLDS_IMAGE | WT_HOLDS_COEFFS)

/* The rows a command takes, in --help's order; getopt_long's value of row i
 * is its letter, or 256 + i for a long-only option. */
#define MAX_ROWS 128
typedef struct command_rows {
    const cli_opt *row[MAX_ROWS];
    int own[MAX_ROWS]; /* the row sets the command's own struct */
    size_t count;
} command_rows;

static void rows_of(const cli_command *cmd, command_rows *r)
{
    r->count = 0;
    for (const cli_group *const *g = cmd->groups; g && *g; g++)
        for (size_t i = 0; i < (*g)->count && r->count < MAX_ROWS; i++) {
            r->own[r->count] = (*g)->own;
            r->row[r->count++] = &(*g)->rows[i];
        }
    for (size_t i = 0; i < cli_group_help.count && r->count < MAX_ROWS; i++) {
        r->own[r->count] = 0;
        r->row[r->count++] = &cli_group_help.rows[i];
    }
}

static int value_of(const command_rows *r, size_t i)
{
    return r->row[i]->letter ? r->row[i]->letter : 256 + (int)i;
}

/* Index of the row getopt_long answered with @p val, or -1. */
static int row_index(const command_rows *r, int val)
{
    for (size_t i = 0; i < r->count; i++)
        if (value_of(r, i) == val)
            return (int)i;
    return -1;
}

static int apply_row(const cli_command *cmd, const command_rows *r, size_t i, const char *value,
                     cli_options *o)
{
    const cli_opt *row = r->row[i];
    char *base = r->own[i] ? (char *)o->own : (char *)o;
    cli_arg a = {cmd->name, row, value, base + row->offset, o};
    return row->parse(&a);
}

/* ---- getopt_long tables of one command ------------------------------------ */

typedef struct getopt_tables {
    struct option longs[MAX_ROWS + 1];
    char shorts[2 * MAX_ROWS + 2];
} getopt_tables;

static void build_tables(const command_rows *r, getopt_tables *t)
{
    size_t ns = 0;
    memset(t, 0, sizeof *t);
    t->shorts[ns++] = ':'; /* ':' for a missing argument, '?' for an unknown option */
    for (size_t i = 0; i < r->count; i++) {
        const cli_opt *s = r->row[i];
        t->longs[i] = (struct option){s->name, s->arg ? required_argument : no_argument, NULL,
                                      value_of(r, i)};
        if (s->letter) {
            t->shorts[ns++] = (char)s->letter;
            if (s->arg)
                t->shorts[ns++] = ':';
        }
    }
}

/* Name of the option argv[optind - 1] tried to give, for messages. */
static const char *offending_option(const command_rows *r, char **argv, int index,
                                    int optopt_char, char *buf, size_t size)
{
    int i = row_index(r, optopt_char);
    if (strncmp(argv[index], "--", 2) == 0) /* --name=value: not the short letter */
        snprintf(buf, size, "%.*s", (int)strcspn(argv[index], "="), argv[index]);
    else if (optopt_char && optopt_char < 256)
        snprintf(buf, size, "-%c", optopt_char);
    else if (optopt_char && i >= 0)
        snprintf(buf, size, "--%s", r->row[i]->name);
    else
        snprintf(buf, size, "%s", argv[index]);
    return buf;
}

/* The row named @p name (or with letter @p letter) among @p cmd's rows. */
static const cli_opt *find_row(const cli_command *cmd, const char *name, int letter)
{
    command_rows r;
    rows_of(cmd, &r);
    for (size_t i = 0; i < r.count; i++)
        if (name ? strcmp(r.row[i]->name, name) == 0 : r.row[i]->letter == letter)
            return r.row[i];
    return NULL;
}

/* An option of another command (or its variant) that @p given names. */
static const cli_opt *foreign_option(const char *given)
{
    char name[128];
    int letter = 0;
    if (strncmp(given, "--", 2) != 0) {
        if (given[0] != '-' || !given[1])
            return NULL;
        letter = (unsigned char)given[1];
    }
    snprintf(name, sizeof name, "%s", given + 2);
    name[strcspn(name, "=")] = '\0';
    for (size_t c = 0; cli_commands[c]; c++)
        for (const cli_command *cmd = cli_commands[c]; cmd; cmd = cmd->variant) {
            const cli_opt *row = find_row(cmd, letter ? NULL : name, letter);
            if (row)
                return row;
        }
    return NULL;
}

static int bad_option(const cli_command *cmd, const command_rows *r, char **argv, int c)
{
    char given[128];
    offending_option(r, argv, optind - 1, optopt, given, sizeof given);
    if (c == ':')
        return cli_usage_error(cmd->name, "option '%s' needs an argument", given);
    const cli_opt *s = foreign_option(given);
    if (s && strncmp(given, "--", 2) == 0 && find_row(cmd, s->name, 0))
        s = NULL; /* its own option, given an argument it takes none of */
    else if (s)
        return cli_usage_error(cmd->name, "option '%s' does not apply to '%s'", given,
                               cmd->name);
    s = strncmp(given, "--", 2) == 0 ? find_row(cmd, given + 2, 0) : NULL;
    if (s && !s->arg && strchr(argv[optind - 1], '='))
        return cli_usage_error(cmd->name, "option '%s' doesn't allow an argument", given);
    return cli_usage_error(cmd->name, "unrecognized option '%s'", given);
}

/* Half the machine's memory: the default --max-memory. */
static uint64_t half_the_ram(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 2 : 0;
}

static void set_defaults(cli_options *o, void *own)
{
    memset(o, 0, sizeof *o);
    o->params.wavelet = wt_wavelet_find("haar");
    o->params.mode = WT_MODE_SYMMETRIC;
    o->params.method = WT_METHOD_AUTO;
    o->params.levels = 3;
    o->device = "auto";
    o->save.png_level = -1;
    o->load.max_memory = half_the_ram();
    o->suffix = "";
    o->style = wt_mosaic_style_plain(WT_SCALE_AUTO);
    o->slice = -2;
    o->own = own;
}

/* 1 when @p cmd takes the rows of @p group */
static int takes_group(const cli_command *cmd, const cli_group *group)
{
    for (const cli_group *const *g = cmd->groups; g && *g; g++)
        if (*g == group)
            return 1;
    return 0;
}

static void print_escaped(const char *fmt, va_list ap)
{
    char raw[4096], shown[4096];
    vsnprintf(raw, sizeof raw, fmt, ap);
    fprintf(stderr, "wavetool: %s", wt_escape_controls(shown, sizeof shown, raw));
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_escaped(fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_escaped(fmt, ap);
    va_end(ap);
    if (cmd)
        fprintf(stderr, "\nTry 'wavetool %s --help'.\n", cmd);
    else
        fputs("\nTry 'wavetool --help'.\n", stderr);
    return EXIT_USAGE;
}

/* The options' transform before its levels are fitted to a volume. */
void cli_volume_spec(const cli_options *o, wt_volume_spec *s)
{
    memset(s, 0, sizeof *s);
    s->transform = o->transform;
    s->params = o->params;
    s->uparams = (wt_uparams){o->transform, o->params.wavelet, o->params.levels, o->start_level,
                              o->norm, o->all_approx, o->border};
    s->naxes = o->naxes ? o->naxes : 3;
    for (int k = 0; k < s->naxes; k++)
        s->axes[k] = o->naxes ? o->axes[k] : k;
}

int cli_volume_gpu_takes(const cli_options *o)
{
    wt_volume_spec s;
    cli_volume_spec(o, &s);
    return wt_volume_engine_takes(&s, 1);
}

/* --axes goes with --volume; the GPU runs a volume's transforms. */
static int check_volume(const cli_command *cmd, const cli_options *o)
{
    if (o->naxes && !o->volume)
        return cli_usage_error(cmd->name, "--axes chooses the axes of a --volume");
    if (o->slice != -2 && !o->volume)
        return cli_usage_error(cmd->name, "--slice chooses what a --volume's mosaic shows");
    if (o->naxes && !takes_group(cmd, &cli_group_transform) &&
        !takes_group(cmd, &cli_group_wavelet) && strcmp(cmd->name, "bench") != 0)
        return cli_usage_error(cmd->name, "--axes does not apply to %s (%s)", cmd->name,
                               strcmp(cmd->name, "reconstruct") == 0
                                   ? "the file says which axes"
                                   : "it takes all three axes");
    if (o->volume && o->layers)
        return cli_usage_error(cmd->name, "--layers writes an image's bands, not a --volume's");
    if (o->volume && wt_transform_class_of(o->transform)->layout == WT_LAYOUT_PACKET)
        return cli_usage_error(cmd->name, "--volume transforms with --transform dwt, swt or "
                                          "starlet, not packet trees");
    /* (bench says so on each row of its sweep the GPU does not run) */
    if (o->volume && strncmp(o->device, "cuda", 4) == 0 && strcmp(cmd->name, "bench") != 0 &&
        !cli_volume_gpu_takes(o))
        return cli_usage_error(cmd->name, "the GPU does not run this --volume transform: "
                                          "--device cpu or auto, not --device %s",
                               o->device);
    return CLI_CONTINUE;
}

/* Checks between options once all are read. */
static int check_combination(const cli_command *cmd, cli_options *o)
{
    if (o->nargs < cmd->min_args)
        return cli_usage_error(cmd->name, "missing arguments (usage: wavetool %s %.*s)",
                               cmd->name, (int)strcspn(cmd->synopsis, "\n"), cmd->synopsis);
    if (cmd->max_args >= 0 && o->nargs > cmd->max_args)
        return cli_usage_error(cmd->name, "too many arguments (usage: wavetool %s %.*s)",
                               cmd->name, (int)strcspn(cmd->synopsis, "\n"), cmd->synopsis);
    if (check_volume(cmd, o) != CLI_CONTINUE)
        return EXIT_USAGE;
    if (!takes_group(cmd, &cli_group_transform) && !takes_group(cmd, &cli_group_wavelet))
        return CLI_CONTINUE;
    if (takes_group(cmd, &cli_group_mosaic) && o->depth == WT_DEPTH_F32 && !o->layers)
        return cli_usage_error(cmd->name, "--depth f32 is for --layers: mosaics are 8 or 16-bit "
                                          "displays");
    int rc = cli_check_transform_options(cmd, o);
    if (rc != CLI_CONTINUE || wt_transform_class_of(o->transform)->layout != WT_LAYOUT_PYRAMID)
        return rc;
    wt_params p = o->params;
    p.levels = 0;
    return wt_params_resolve(&p) == WT_OK ? CLI_CONTINUE
                                          : cli_usage_error(cmd->name, "%s", wt_error_message());
}

int cli_parse(const cli_command *cmd, int argc, char **argv, cli_options *o)
{
    command_rows r;
    getopt_tables t;
    int rc = CLI_CONTINUE, c;
    set_defaults(o, o->own);
    if (cmd->defaults)
        cmd->defaults(o);
    rows_of(cmd, &r);
    build_tables(&r, &t);
    opterr = 0;
    optind = 1;
    while (rc == CLI_CONTINUE && (c = getopt_long(argc, argv, t.shorts, t.longs, NULL)) != -1) {
        int i = c == '?' || c == ':' ? -1 : row_index(&r, c);
        if (c == 'h') {
            cli_print_help(cmd, stdout);
            rc = EXIT_ALL_DONE;
        } else if (i < 0) {
            rc = bad_option(cmd, &r, argv, c);
        } else {
            rc = apply_row(cmd, &r, (size_t)i, optarg, o);
        }
    }
    if (rc != CLI_CONTINUE)
        return rc;
    o->args = argv + optind;
    o->nargs = argc - optind;
    return check_combination(cmd, o);
}

static const char *expand_formats(const char *text, const cli_command *cmd, char *buf,
                                  size_t size);

/* "  -w, --wavelet NAME" */
static void option_spec(const cli_opt *s, char *buf, size_t size)
{
    if (s->letter)
        snprintf(buf, size, "-%c, --%s%s%s", s->letter, s->name, s->arg ? " " : "",
                 s->arg ? s->arg : "");
    else
        snprintf(buf, size, "    --%s%s%s", s->name, s->arg ? " " : "", s->arg ? s->arg : "");
}

#define HELP_INDENT "\n                           "
#define HELP_WIDTH 88

/* The row's help, its default appended "(default DEF)" (on a line of its own
 * when the last line would grow past the width); continuation lines line up. */
static void print_option(const cli_command *cmd, const cli_opt *s, FILE *out)
{
    char left[64], help[768], text[1024];
    option_spec(s, left, sizeof left);
    expand_formats(s->help, cmd, help, sizeof help);
    const char *last = strrchr(help, '\n');
    size_t column = 27 + strlen(last ? last + 1 : help) + 11 + strcspn(s->def ? s->def : "", "\n");
    if (s->def)
        snprintf(text, sizeof text, "%s%s(default %s)", help, column > HELP_WIDTH ? "\n" : " ",
                 s->def);
    else
        snprintf(text, sizeof text, "%s", help);
    fprintf(out, "  %-24s ", left);
    for (const char *h = text; *h; h++)
        fputs(*h == '\n' ? HELP_INDENT : (char[2]){*h, 0}, out);
    fputc('\n', out);
}

void cli_print_help(const cli_command *cmd, FILE *out)
{
    char summary[2048];
    command_rows r;
    fprintf(out, "Usage: wavetool %s %s\n\n%s\n\nOptions:\n", cmd->name, cmd->synopsis,
            cli_expand_formats(cmd->summary, summary, sizeof summary));
    rows_of(cmd, &r);
    for (size_t i = 0; i < r.count; i++)
        print_option(cmd, r.row[i], out);
    fputs("\nExit status: 0 all done; 1 some input failed (the others were processed);\n"
          "2 usage error. See wavetool(1).\n",
          out);
}

wt_file_format cli_output_format(const cli_options *o, const char *path)
{
    if (strcmp(path, "-") == 0)
        return wt_format_from_ext(o->ext ? o->ext : CLI_DEFAULT_EXT);
    return wt_format_from_path(path);
}

int cli_run(const cli_command *cmd, int argc, char **argv)
{
    if (cmd->variant_flag && argc > 1 && strcmp(argv[1], cmd->variant_flag) == 0)
        return cli_run(cmd->variant, argc - 1, argv + 1);
    cli_options o = {.own = cmd->own_size ? calloc(1, cmd->own_size) : NULL};
    if (cmd->own_size && !o.own) {
        cli_error("out of memory");
        return EXIT_SOME_FAILED;
    }
    int rc = cli_parse(cmd, argc, argv, &o);
    rc = rc == CLI_CONTINUE ? cmd->run(&o) : rc;
    free(o.own);
    return rc;
}

/* 1 when @p format is known and holds any of @p writes */
static int format_holds(wt_file_format format, unsigned writes)
{
    const wt_format_info *info = wt_format_describe(format);
    return info && (info->holds & writes);
}

wt_sample_type cli_result_type(const cli_options *o, wt_sample_type input)
{
    switch (o->depth) {
    case 8: return (wt_sample_type){WT_SAMPLE_UINT, 8};
    case 16: return (wt_sample_type){WT_SAMPLE_UINT, 16};
    case WT_DEPTH_F32: return (wt_sample_type){WT_SAMPLE_FLOAT, 32};
    }
    return input;
}

/* --depth f32 needs outputs that hold float32: PNG and JPEG (named, given by
 * --ext or the default of -O and '-') are refused before any work. */
static int check_float_output(const char *cmd, const cli_options *o, const char *out)
{
    const char *named = out && strcmp(out, "-") != 0 ? out : NULL;
    wt_file_format f = named ? wt_format_from_path(named) : cli_output_format(o, "-");
    const wt_format_info *info = wt_format_describe(f);
    char use[128];
    if (o->depth != WT_DEPTH_F32 || (!out && !o->outdir) || !info ||
        !(info->holds & WT_HOLDS_IMAGE) || info->floats)
        return CLI_CONTINUE;
    if (named)
        return cli_usage_error(cmd, "%s: --depth f32 writes float32 samples, which %s does not "
                                    "hold; use %s",
                               named, info->name,
                               wt_format_list(use, sizeof use, WT_HOLDS_FLOATS | WT_LIST_USUAL,
                                              ".", ", ", " or "));
    return cli_usage_error(cmd, "--depth f32 writes float32 samples, which %s (%s) does not "
                                "hold; use --ext %s",
                           info->name, o->ext ? "--ext" : "the default output type",
                           wt_format_list(use, sizeof use, WT_HOLDS_FLOATS | WT_LIST_USUAL, "",
                                          ", --ext ", " or --ext "));
}

int cli_check_output(const char *cmd, const cli_options *o, const char *out, unsigned writes)
{
    char exts[256];
    if (o->ext && !format_holds(wt_format_from_ext(o->ext), writes))
        return cli_usage_error(cmd, "--ext %s: %s writes %s", o->ext, cmd,
                               wt_format_list(exts, sizeof exts, writes, "", ", ", " or "));
    if (check_float_output(cmd, o, out) != CLI_CONTINUE)
        return EXIT_USAGE;
    if (!out || strcmp(out, "-") == 0)
        return CLI_CONTINUE;
    wt_file_format f = wt_format_from_path(out);
    if (format_holds(f, writes))
        return CLI_CONTINUE;
    wt_format_list(exts, sizeof exts, writes, ".", ", ", " or ");
    struct stat st;
    size_t len = strlen(out);
    if (f == WT_FORMAT_UNKNOWN &&
        ((len && out[len - 1] == '/') || (stat(out, &st) == 0 && S_ISDIR(st.st_mode))))
        return cli_usage_error(cmd, "%s is a directory; use -O %s to write into it (outputs "
                                    "named from the inputs), or an output file ending in %s",
                               out, out, exts);
    if (f == WT_FORMAT_UNKNOWN)
        return cli_usage_error(cmd, "%s: unknown output type; use %s", out, exts);
    return cli_usage_error(cmd, "%s: %s does not write %s files; use %s", out, cmd,
                           wt_format_describe(f)->name, exts);
}

/* --ext's choices for outputs holding @p writes, the default marked:
 * "png (default), jpg, jpeg or npz" */
static void ext_choices(unsigned writes, char *buf, size_t size)
{
    char list[200];
    wt_format_list(list, sizeof list, writes, "", ", ", " or ");
    size_t n = strlen(CLI_DEFAULT_EXT);
    if (strncmp(list, CLI_DEFAULT_EXT, n) == 0 && (!list[n] || list[n] == ','))
        snprintf(buf, size, "%s (default)%s", CLI_DEFAULT_EXT, list + n);
    else
        snprintf(buf, size, "%s", list);
}

/* One token of help text into @p buf: {IMAGES} ".png/.jpg/.jpeg", {COEFFS}
 * ".npz", {EXTS} the --ext choices. Returns the token's length, 0 when
 * @p text starts none. */
static size_t expand_token(const char *text, unsigned writes, char *buf, size_t size)
{
    static const struct {
        const char *token;
        unsigned holds;
    } lists[] = {{"{IMAGES}", WT_HOLDS_IMAGE}, {"{COEFFS}", WT_HOLDS_COEFFS}};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if (strncmp(text, lists[i].token, strlen(lists[i].token)) == 0) {
            wt_format_list(buf, size, lists[i].holds, ".", "/", "/");
            return strlen(lists[i].token);
        }
    if (strncmp(text, "{EXTS}", 6) != 0)
        return 0;
    ext_choices(writes, buf, size);
    return 6;
}

/* cli_expand_formats() with {EXTS} the choices for the outputs @p cmd writes
 * (NULL: any) and {TRANSFORMS} those it takes */
static const char *expand_formats(const char *text, const cli_command *cmd, char *buf,
                                  size_t size)
{
    size_t len = 0;
    unsigned writes = cmd && cmd->writes ? cmd->writes : ALL_FORMATS;
    while (*text && len + 1 < size) {
        char list[256];
        size_t skip = *text == '{' ? expand_token(text, writes, list, sizeof list) : 0;
        if (!skip && cmd && strncmp(text, "{TRANSFORMS}", 12) == 0) {
            cli_transform_choices(cmd->needs, list, sizeof list);
            skip = 12;
        }
        if (!skip) {
            buf[len++] = *text++;
            continue;
        }
        text += skip;
        int n = snprintf(buf + len, size - len, "%s", list);
        len += n > 0 && (size_t)n < size - len ? (size_t)n : size - len - 1;
    }
    buf[len] = '\0';
    return buf;
}

const char *cli_expand_formats(const char *text, char *buf, size_t size)
{
    return expand_formats(text, NULL, buf, size);
}
