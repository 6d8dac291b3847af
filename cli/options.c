/* Parsing of the common options: one table drives getopt_long, the checks
 * that an option applies to a command, and the help text. */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define ALL_FORMATS (WT_HOLDS_IMAGE | WT_HOLDS_COEFFS)

/* Long-only options are numbered from 256. */
enum {
    OPT_METHOD = 256,
    OPT_DEVICE,
    OPT_FORMAT,
    OPT_MAX_PIXELS,
    OPT_MAX_MEMORY,
    OPT_LENIENT,
    OPT_PNG_LEVEL,
    OPT_QUALITY,
    OPT_COMPRESS,
    OPT_SCALE,
    OPT_DEPTH,
    OPT_SUFFIX,
    OPT_EXT,
    OPT_PSNR,
    OPT_MSE,
    OPT_KEEP,
    OPT_THRESHOLD,
    OPT_SOFT,
    OPT_HARD,
    OPT_TRANSFORM,
    OPT_NORM,
    OPT_START_LEVEL,
    OPT_ALL_APPROX,
    OPT_BORDER,
    OPT_LAYERS,
    OPT_SIZE,
    OPT_BATCH,
    OPT_FORWARD,
    OPT_INVERSE,
    OPT_BOTH,
    OPT_REPEAT,
    OPT_HOST_PATH,
    OPT_PIPELINE,
    OPT_ALL,
    OPT_RULE,
    OPT_SHRINK,
    OPT_SIGMA,
    OPT_YCBCR,
    OPT_CYCLE_SPIN,
    OPT_NOISE,
    OPT_LEVEL_SCALE,
    OPT_AVERAGE,
    OPT_KEEP_RANK,
    OPT_GRAY,
    OPT_IGNORE_ALPHA,
    OPT_QSTEP,
    OPT_EPS,
    OPT_PLOT,
    OPT_TRANSFER,
    OPT_COLORMAP,
    OPT_CLIP,
    OPT_GRID,
    OPT_LABELS,
    OPT_ALPHA,
    OPT_STACK,
};

typedef struct opt_spec {
    const char *name;
    int val;          /* short option character or OPT_* */
    const char *arg;  /* argument name in help; NULL: no argument */
    unsigned group;   /* OPTS_* */
    const char *help;
} opt_spec;

static const opt_spec option_table[] = {
    {"wavelet", 'w', "NAME", OPTS_TRANSFORM, "wavelet (default haar; see 'wavetool wavelets')"},
    {"levels", 'l', "N|max", OPTS_TRANSFORM, "levels (default 3, fewer if the image is small); max: the deepest\n"
                                              "the image allows"},
    {"mode", 'm', "MODE", OPTS_TRANSFORM, "signal extension: zero, constant, symmetric (default), reflect,\n"
                                          "periodic, smooth, antisymmetric, antireflect, periodization"},
    {"method", OPT_METHOD, "M", OPTS_TRANSFORM, "auto (default), conv or lifting"},
    {"transform", OPT_TRANSFORM, "T", OPTS_TRANSFORM | OPTS_SWEEP, "dwt (default), swt (= pywt.swt2, any size) or starlet\n"
                                                     "(B3-spline a trous); see wavetool(1)"},
    {"norm", OPT_NORM, NULL, OPTS_TRANSFORM, "swt: pywt's norm=True (filters scaled by 1/sqrt 2)"},
    {"start-level", OPT_START_LEVEL, "N", OPTS_TRANSFORM, "swt: pywt's start_level (default 0)"},
    {"all-approx", OPT_ALL_APPROX, NULL, OPTS_TRANSFORM, "swt: keep cA of every level (.npz cA1..; pywt trim_approx=False)"},
    {"border", OPT_BORDER, "B", OPTS_TRANSFORM | OPTS_SWEEP, "starlet border: mirror (default), periodic, nearest"},
    {"device", OPT_DEVICE, "DEV", OPTS_DEVICE, "auto (default: first GPU, else CPU), cpu, cuda, cuda:N;\n"
                                          "cuda:N,M,... or cuda:all spread the files over GPUs"},
    {"jobs", 'j', "N", OPTS_JOBS, "files processed at a time (default 0: cores this process may use)"},
    {"max-pixels", OPT_MAX_PIXELS, "N", OPTS_LOAD, "refuse images of more than N pixels (default 1073741824)"},
    {"max-memory", OPT_MAX_MEMORY, "SIZE", OPTS_LOAD, "refuse images that need more memory (about 20 bytes a sample),\n"
                                                   "shared by the files at a time; K/M/G suffixes, 0: no\n"
                                                   "limit (default: half the RAM)"},
    {"lenient", OPT_LENIENT, NULL, OPTS_LOAD, "accept images that libpng/libjpeg can recover from corruption"},
    {"stack", OPT_STACK, "auto|first|last", OPTS_LOAD, "a 3-D .npy is pages: (N, H, W) first or (H, W, N) last\n"
                                                       "(default auto: (H, W, C) with C <= 64 is channels)"},
    {"png-level", OPT_PNG_LEVEL, "N", OPTS_SAVE, "PNG compression level 0-9 (default 1: fast)"},
    {"quality", OPT_QUALITY, "Q", OPTS_SAVE, "JPEG quality 1-100 (default 90)"},
    {"compress", OPT_COMPRESS, NULL, OPTS_SAVE, ".npz output: deflated members (numpy.savez_compressed)"},
    {"scale", OPT_SCALE, "S[,R]", OPTS_MOSAIC, "detail display: auto (default) or abs (|v|), offset (mid-grey + v);\n"
                                            "range: band (default), level or global (one for all details)"},
    {"transfer", OPT_TRANSFER, "T", OPTS_MOSAIC, "detail magnitude curve: linear (default), sqrt, log"},
    {"colormap", OPT_COLORMAP, "C", OPTS_MOSAIC, "gray (default) or diverging (signed details blue-white-red, RGB)"},
    {"clip", OPT_CLIP, "P", OPTS_MOSAIC, "details: the P-th percentile of |v| is full scale (default 100: max)"},
    {"grid", OPT_GRID, NULL, OPTS_MOSAIC, "1-pixel lines between the bands"},
    {"labels", OPT_LABELS, NULL, OPTS_MOSAIC, "band names (cA3, cH1, ...) in each band's corner"},
    {"alpha", OPT_ALPHA, "A", OPTS_MOSAIC, "mosaics of images with alpha: opaque (default: colour only),\n"
                                          "keep (alpha's bands as the mosaic's alpha), only (alpha's bands)"},
    {"depth", OPT_DEPTH, "8|16|f32", OPTS_MOSAIC, "mosaic bit depth (default: the input's; 8 for JPEG);\n"
                                                "--layers: f32 writes float32 .tif/.npy layers"},
    {"layers", OPT_LAYERS, NULL, OPTS_MOSAIC, "swt/starlet: each band its own image OUT_BAND.png and a sidecar\n"
                                          "OUT_layers.txt that 'reconstruct' reads back"},
    {"outdir", 'O', "DIR", OPTS_BATCH, "write outputs into DIR (created if missing), named from the input"},
    {"suffix", OPT_SUFFIX, "S", OPTS_BATCH, "added to the input's stem in output names (default none)"},
    {"ext", OPT_EXT, "EXT", OPTS_BATCH, "output type with -O or '-': {EXTS}"},
    {"no-clobber", 'n', NULL, OPTS_BATCH, "skip outputs that exist already (resume a batch)"},
    {"output", 'o', "OUT", OPTS_OUTPUT, "write the reconstruction to OUT"},
    {"psnr", OPT_PSNR, NULL, OPTS_QUALITY, "report PSNR (without --psnr or --mse: both)"},
    {"mse", OPT_MSE, NULL, OPTS_QUALITY, "report MSE"},
    {"keep", OPT_KEEP, "FRACTION", OPTS_THRESHOLD, "keep the largest FRACTION (0-1) of detail coefficients, zero the rest"},
    {"keep-rank", OPT_KEEP_RANK, "R", OPTS_THRESHOLD, "--keep ranks norm (default: |c| x the band's synthesis norm, its\n"
                                                   "share of the reconstruction) or magnitude (|c|)"},
    {"threshold", OPT_THRESHOLD, "T", OPTS_THRESHOLD | OPTS_DENOISE, "threshold detail coefficients at T (roundtrip: hard unless --soft;\n"
                                                       "denoise: one threshold in sample units, --shrink applies)"},
    {"soft", OPT_SOFT, NULL, OPTS_THRESHOLD, "soft thresholding: shrink towards zero by T"},
    {"hard", OPT_HARD, NULL, OPTS_THRESHOLD, "hard thresholding: zero |v| < T (default)"},
    {"wavelet", 'w', "LIST", OPTS_SWEEP, "wavelets, comma-separated or repeated (default haar)"},
    {"mode", 'm', "LIST", OPTS_SWEEP, "modes (default symmetric)"},
    {"method", OPT_METHOD, "LIST", OPTS_SWEEP, "auto, conv, lifting (default auto); combinations a\n"
                                              "wavelet does not support are skipped"},
    {"levels", 'l', "N", OPTS_SWEEP, "levels (default 3)"},
    {"size", OPT_SIZE, "WxH", OPTS_SWEEP, "image size, repeatable (default 8192x8192)"},
    {"batch", OPT_BATCH, "N", OPTS_SWEEP, "N images of that size in one call (default 1)"},
    {"forward", OPT_FORWARD, NULL, OPTS_SWEEP, "time the forward transform (default: both directions)"},
    {"inverse", OPT_INVERSE, NULL, OPTS_SWEEP, "time the inverse transform"},
    {"both", OPT_BOTH, NULL, OPTS_SWEEP, "time both directions (default)"},
    {"all", OPT_ALL, NULL, OPTS_SWEEP, "every wavelet x symmetric and periodization x both\n"
                                       "directions (with --format json: tools/bench_table.py\n"
                                       "makes the table and plot)"},
    {"repeat", OPT_REPEAT, "N", OPTS_TIMING, "timed runs, median reported (default 20)"},
    {"host-path", OPT_HOST_PATH, NULL, OPTS_TIMING, "one 8192x8192 RGB 8-bit image from host samples to a\n"
                                                   "host mosaic (wt_mosaic_image, decode excluded), wall\n"
                                                   "clock, against pinned host<->device copies of the same\n"
                                                   "bytes; pageable and page-locked image"},
    {"pipeline", OPT_PIPELINE, NULL, OPTS_TIMING, "(first) the batch path of decompose over files or folders,\n"
                                                 "against decode+encode alone; see\n"
                                                 "'wavetool bench --pipeline --help'"},
    {"rule", OPT_RULE, "R", OPTS_DENOISE, "threshold rule: bayes (default, BayesShrink per band) or visu\n"
                                          "(VisuShrink: sigma sqrt(2 ln N))"},
    {"shrink", OPT_SHRINK, "S", OPTS_DENOISE, "soft (default) or hard shrinkage"},
    {"sigma", OPT_SIGMA, "S", OPTS_DENOISE, "noise sigma in sample units (0-255 for 8-bit); default: estimated\n"
                                            "per channel from the finest diagonal band"},
    {"ycbcr", OPT_YCBCR, NULL, OPTS_DENOISE, "RGB: denoise in YCbCr (scikit-image's BT.601), back to RGB"},
    {"cycle-spin", OPT_CYCLE_SPIN, "N", OPTS_DENOISE, "average over the circular shifts 0..N on both axes ((N+1)^2 denoises)"},
    {"noise", OPT_NOISE, "M", OPTS_DENOISE, "gaussian (default) or poisson (Anscombe transform, sigma 1,\n"
                                            "Makitalo-Foi inverse)"},
    {"level-scale", OPT_LEVEL_SCALE, "F1,F2,..", OPTS_DENOISE, "multiply the thresholds of level 1 (finest), 2, ... by F1, F2, ..."},
    {"average", OPT_AVERAGE, NULL, OPTS_SIGMA, "one sigma per image: the mean over channels"},
    {"gray", OPT_GRAY, NULL, OPTS_COMPARE, "compare luma: RGB to gray (BT.601 weights, as PIL's convert('L'))"},
    {"ignore-alpha", OPT_IGNORE_ALPHA, NULL, OPTS_COMPARE, "leave alpha channels out"},
    {"depth", OPT_DEPTH, "8|16", OPTS_COMPARE, "compare at 8 or 16 bits: 8 -> 16 is v x 257, 16 -> 8 is\n"
                                               "round(v x 255 / 65535); peak 2^depth - 1"},
    {"depth", OPT_DEPTH, "8|16|f32", OPTS_RESULT, "result samples: 8 or 16-bit unsigned, or float32 (.tif,\n"
                                                  ".npy); default the input's type; sample units kept,\n"
                                                  "integers rounded and clamped"},
    {"qstep", OPT_QSTEP, "Q", OPTS_QUANT, "dead-zone quantiser step (stats: default 2^depth/256, 1 for 8-bit;\n"
                                          "roundtrip: quantise the details and report bits per pixel)"},
    {"eps", OPT_EPS, "E", OPTS_STATS, "near-zero means |c| <= E (default: the quantiser step)"},
    {"plot", OPT_PLOT, "FILE.svg", OPTS_STATS, "write an SVG bar chart of the energy share per band"},
    {"format", OPT_FORMAT, "F", OPTS_REPORT, "report format: text (default), json (one object a line), tsv;\n"
                                         "infinity is inf (JSON: the string \"inf\")"},
    {"quiet", 'q', NULL, OPTS_VERBOSITY, "no progress, summary or notes (reports and errors still show)"},
    {"verbose", 'v', NULL, OPTS_VERBOSITY, "say which engine ran, and skipped files"},
    {"help", 'h', NULL, OPTS_GENERAL, "show this help"},
};
#define OPTION_COUNT (sizeof option_table / sizeof option_table[0])

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

static const opt_spec *spec_of(int val)
{
    for (size_t i = 0; i < OPTION_COUNT; i++)
        if (option_table[i].val == val)
            return &option_table[i];
    return NULL;
}

/* ---- typed parsers: the whole argument must be the value ---------------- */

static int parse_integer(const char *cmd, const opt_spec *s, const char *arg, long long min,
                         long long max, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(arg, &end, 10);
    if (!*arg || *arg == ' ' || *arg == '+' || *end || errno || v < min || v > max)
        return cli_usage_error(cmd,
                               "invalid argument '%s' for option --%s; should be an integer "
                               "between %lld and %lld",
                               arg, s->name, min, max);
    *out = v;
    return CLI_CONTINUE;
}

static int parse_int(const char *cmd, const opt_spec *s, const char *arg, int min, int max,
                     int *out)
{
    long long v = 0;
    int rc = parse_integer(cmd, s, arg, min, max, &v);
    if (rc == CLI_CONTINUE)
        *out = (int)v;
    return rc;
}

static int parse_real(const char *cmd, const opt_spec *s, const char *arg, double min,
                      double max, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(arg, &end);
    if (!*arg || *arg == ' ' || *end || errno || !isfinite(v) || v < min || v > max)
        return cli_usage_error(cmd,
                               "invalid argument '%s' for option --%s; should be a number "
                               "between %g and %g",
                               arg, s->name, min, max);
    *out = v;
    return CLI_CONTINUE;
}

/* Bytes: digits and an optional K, M, G or T (powers of 1024). */
static int parse_bytes(const char *cmd, const opt_spec *s, const char *arg, uint64_t *out)
{
    static const char units[] = "KMGT";
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    const char *unit = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    int shift = unit ? 10 * (int)(unit - units + 1) : 0;
    if (!isdigit((unsigned char)*arg) || errno || (*end && (!unit || end[1])) ||
        (shift && v > (ULLONG_MAX >> shift)))
        return cli_usage_error(cmd,
                               "invalid argument '%s' for option --%s; should be a size in "
                               "bytes, with K, M, G or T for powers of 1024",
                               arg, s->name);
    *out = (uint64_t)v << shift;
    return CLI_CONTINUE;
}

/* Half the machine's memory: the default --max-memory. */
static uint64_t half_the_ram(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 2 : 0;
}

/* Index of @p arg in @p names (NULL-terminated), or a usage error. */
static int parse_choice(const char *cmd, const opt_spec *s, const char *arg,
                        const char *const *names, const char *expected, int *out)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(arg, names[i]) == 0) {
            *out = i;
            return CLI_CONTINUE;
        }
    return cli_usage_error(cmd, "invalid argument '%s' for option --%s; should be %s", arg,
                           s->name, expected);
}

static int parse_wavelet(const char *cmd, const char *arg, cli_options *o)
{
    o->params.wavelet = wt_wavelet_find(arg);
    if (!o->params.wavelet)
        return cli_usage_error(cmd, "unknown wavelet '%s' (did you mean '%s'?)", arg,
                               wt_wavelet_suggest(arg));
    return CLI_CONTINUE;
}

static int parse_levels(const char *cmd, const opt_spec *s, const char *arg, cli_options *o)
{
    o->levels_given = 1;
    o->levels_max = strcmp(arg, "max") == 0;
    if (o->levels_max)
        return CLI_CONTINUE;
    long long v = 0;
    char *end = NULL;
    errno = 0;
    v = strtoll(arg, &end, 10);
    if (!*arg || *arg == ' ' || *arg == '+' || *end || errno || v < 0 || v > WT_MAX_LEVELS)
        return cli_usage_error(cmd,
                               "invalid argument '%s' for option --%s; should be an integer "
                               "between 0 and %d, or max",
                               arg, s->name, WT_MAX_LEVELS);
    o->params.levels = (int)v;
    return CLI_CONTINUE;
}

/* --scale: comma-separated words, a detail display and/or a range. */
static int parse_scale(const char *cmd, const char *arg, cli_options *o)
{
    static const char *const scales[] = {"auto", "abs", "offset", NULL};
    static const char *const ranges[] = {"band", "level", "global", NULL};
    char word[32];
    for (const char *p = arg;; p += strcspn(p, ",") + 1) {
        int len = (int)strcspn(p, ","), found = 0;
        snprintf(word, sizeof word, "%.*s", len, p);
        for (int i = 0; scales[i] && !found; i++)
            if (strcmp(word, scales[i]) == 0) {
                o->scale = o->style.scale = (wt_scale)i;
                found = 1;
            }
        for (int i = 0; ranges[i] && !found; i++)
            if (strcmp(word, ranges[i]) == 0) {
                o->style.range = (wt_mosaic_range)i;
                found = 1;
            }
        if (!found || len >= (int)sizeof word)
            return cli_usage_error(cmd, "invalid argument '%s' for option --scale; should be "
                                        "auto, abs or offset and/or band, level or global "
                                        "(e.g. level,offset)",
                                   arg);
        if (!p[len])
            return CLI_CONTINUE;
    }
}

/* A library parser (mode, method) whose message is the usage error. */
static int library_choice(const char *cmd, wt_status st)
{
    return st == WT_OK ? CLI_CONTINUE : cli_usage_error(cmd, "%s", wt_error_message());
}

/* Any extension of the format registry (src/format.c). */
static int parse_ext(const char *cmd, const opt_spec *s, const char *arg, cli_options *o)
{
    char exts[256];
    if (wt_format_from_ext(arg) != WT_FORMAT_UNKNOWN) {
        o->ext = arg[0] == '.' ? arg + 1 : arg;
        return CLI_CONTINUE;
    }
    wt_format_list(exts, sizeof exts, ALL_FORMATS, "", ", ", " or ");
    return cli_usage_error(cmd, "invalid argument '%s' for option --%s; should be %s", arg,
                           s->name, exts);
}

/* auto, cpu, cuda, cuda:N, cuda:N,M,... or cuda:all; whether a device works
 * is the engine's to say. */
static int parse_device(const char *cmd, const opt_spec *s, const char *arg, cli_options *o)
{
    const char *list = strncmp(arg, "cuda:", 5) == 0 ? arg + 5 : NULL;
    int ok = !strcmp(arg, "auto") || !strcmp(arg, "cpu") || !strcmp(arg, "cuda") ||
             (list && !strcmp(list, "all"));
    if (list && !ok) { /* N or N,M,...: digits, single commas, no empty items */
        size_t len = strlen(list);
        ok = len > 0 && len < 64 && strspn(list, "0123456789,") == len && list[0] != ',' &&
             list[len - 1] != ',' && !strstr(list, ",,");
    }
    if (!ok)
        return cli_usage_error(cmd, "invalid argument '%s' for option --%s; should be auto, "
                                    "cpu, cuda, cuda:N, cuda:N,M,... or cuda:all",
                               arg, s->name);
    o->device = arg;
    return CLI_CONTINUE;
}

/* ---- bench's sweep: lists and sizes ----------------------------------------- */

static int add_wavelet(const char *cmd, const char *name, sweep_options *w)
{
    const wt_wavelet *found = wt_wavelet_find(name);
    if (!found)
        return cli_usage_error(cmd, "unknown wavelet '%s' (did you mean '%s'?)", name,
                               wt_wavelet_suggest(name));
    if (w->nwavelets == SWEEP_MAX)
        return cli_usage_error(cmd, "too many wavelets");
    w->wavelets[w->nwavelets++] = found;
    return CLI_CONTINUE;
}

static int add_mode(const char *cmd, const char *name, sweep_options *w)
{
    wt_mode m;
    if (wt_mode_parse(name, &m) != WT_OK)
        return cli_usage_error(cmd, "%s", wt_error_message());
    if (w->nmodes == SWEEP_MAX)
        return cli_usage_error(cmd, "too many modes");
    w->modes[w->nmodes++] = m;
    return CLI_CONTINUE;
}

static int add_method(const char *cmd, const char *name, sweep_options *w)
{
    wt_method m;
    if (wt_method_parse(name, &m) != WT_OK)
        return cli_usage_error(cmd, "%s", wt_error_message());
    if (w->nmethods == (int)(sizeof w->methods / sizeof w->methods[0]))
        return cli_usage_error(cmd, "too many methods");
    w->methods[w->nmethods++] = m;
    return CLI_CONTINUE;
}

/* add(item) for each comma-separated item of @p list (empty items skipped). */
static int parse_list(const char *cmd, const char *list, sweep_options *w,
                      int (*add)(const char *cmd, const char *item, sweep_options *w))
{
    int rc = CLI_CONTINUE;
    while (rc == CLI_CONTINUE && *list) {
        char item[256];
        size_t len = strcspn(list, ",");
        snprintf(item, sizeof item, "%.*s", (int)len, list);
        if (len > 0)
            rc = add(cmd, item, w);
        list += len + (list[len] == ',');
    }
    return rc;
}

static int parse_size(const char *cmd, const char *arg, sweep_options *w)
{
    char *end;
    unsigned long width = strtoul(arg, &end, 10), height = 0;
    if (end != arg && (*end == 'x' || *end == 'X')) {
        const char *hs = end + 1;
        height = strtoul(hs, &end, 10);
        if (end == hs)
            height = 0;
    }
    if (*end || width == 0 || height == 0 || width > (1ul << 20) || height > (1ul << 20))
        return cli_usage_error(cmd, "invalid size '%s'; should be WIDTHxHEIGHT", arg);
    if (w->nsizes == SWEEP_MAX)
        return cli_usage_error(cmd, "too many --size options");
    w->sizes[w->nsizes][0] = width;
    w->sizes[w->nsizes][1] = height;
    w->nsizes++;
    return CLI_CONTINUE;
}

/* A sweep option (bench); @p handled set to 0 for any other option. */
static int apply_sweep_option(const char *cmd, const opt_spec *s, int val, const char *arg,
                              cli_options *o, int *handled)
{
    sweep_options *w = &o->sweep;
    *handled = 1;
    switch (val) {
    case 'w': return parse_list(cmd, arg, w, add_wavelet);
    case 'm': return parse_list(cmd, arg, w, add_mode);
    case OPT_METHOD: return parse_list(cmd, arg, w, add_method);
    case 'l': return parse_int(cmd, s, arg, 0, WT_MAX_LEVELS, &o->params.levels);
    case OPT_SIZE: return parse_size(cmd, arg, w);
    case OPT_BATCH: return parse_int(cmd, s, arg, 1, 1000000, &w->batch);
    case OPT_REPEAT: return parse_int(cmd, s, arg, 1, 1000000, &w->repeat);
    case OPT_FORWARD: w->forward = 1; return CLI_CONTINUE;
    case OPT_INVERSE: w->inverse = 1; return CLI_CONTINUE;
    case OPT_BOTH: w->forward = w->inverse = 1; return CLI_CONTINUE;
    case OPT_HOST_PATH: w->host_path = 1; return CLI_CONTINUE;
    case OPT_ALL: w->all = 1; return CLI_CONTINUE;
    case OPT_PIPELINE: return cli_usage_error(cmd, "--pipeline must be the first argument");
    }
    *handled = 0;
    return CLI_CONTINUE;
}

/* F1,F2,...: factors >= 0, at most one per level. */
static int parse_level_scale(const char *cmd, const opt_spec *s, const char *arg,
                             wt_denoise_options *d)
{
    const char *p = arg;
    d->nlevel_scale = 0;
    while (*p) {
        char *end = NULL;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno || !isfinite(v) || v < 0.0 || d->nlevel_scale == WT_MAX_LEVELS ||
            (*end && *end != ','))
            return cli_usage_error(cmd,
                                   "invalid argument '%s' for option --%s; should be up to %d "
                                   "numbers >= 0 separated by commas",
                                   arg, s->name, WT_MAX_LEVELS);
        d->level_scale[d->nlevel_scale++] = v;
        p = *end ? end + 1 : end;
        if (*end && !*p)
            return cli_usage_error(cmd, "invalid argument '%s' for option --%s; ends with a comma",
                                   arg, s->name);
    }
    return d->nlevel_scale ? CLI_CONTINUE
                           : cli_usage_error(cmd, "option --%s needs at least one factor",
                                             s->name);
}

/* ---- one option ---------------------------------------------------------- */

static int apply_option(const cli_command *command, int val, const char *arg, cli_options *o)
{
    const char *cmd = command->name;
    static const char *const transfers[] = {"linear", "sqrt", "log", NULL};
    static const char *const colormaps[] = {"gray", "diverging", NULL};
    static const char *const alphas[] = {"opaque", "keep", "only", NULL};
    static const char *const stacks[] = {"auto", "first", "last", NULL};
    static const char *const formats[] = {"text", "json", "tsv", NULL};
    static const char *const depths[] = {"8", "16", NULL};
    static const char *const result_depths[] = {"8", "16", "f32", NULL};
    static const char *const rules[] = {"bayes", "visu", NULL};
    static const char *const shrinks[] = {"soft", "hard", NULL};
    static const char *const noises[] = {"gaussian", "poisson", NULL};
    static const char *const ranks[] = {"norm", "magnitude", NULL};
    const opt_spec *s = spec_of(val);
    int choice = 0, rc = CLI_CONTINUE, handled = 0;
    long long big = 0;
    if (command->groups & OPTS_SWEEP) {
        rc = apply_sweep_option(cmd, s, val, arg, o, &handled);
        if (handled)
            return rc;
    }
    switch (val) {
    case 'w': rc = parse_wavelet(cmd, arg, o); break;
    case 'l': rc = parse_levels(cmd, s, arg, o); break;
    case 'm': rc = library_choice(cmd, wt_mode_parse(arg, &o->params.mode)); break;
    case OPT_METHOD: rc = library_choice(cmd, wt_method_parse(arg, &o->params.method)); break;
    case OPT_DEVICE: rc = parse_device(cmd, s, arg, o); break;
    case 'j': rc = parse_int(cmd, s, arg, 0, 1024, &o->jobs); break;
    case OPT_MAX_PIXELS:
        rc = parse_integer(cmd, s, arg, 1, LLONG_MAX, &big);
        o->load.max_pixels = (uint64_t)big;
        break;
    case OPT_MAX_MEMORY: rc = parse_bytes(cmd, s, arg, &o->load.max_memory); break;
    case OPT_LENIENT: o->load.lenient = 1; break;
    case OPT_STACK:
        rc = parse_choice(cmd, s, arg, stacks, "auto, first or last", &choice);
        o->load.stack = choice; /* wt_stack_layout's order */
        break;
    case OPT_PNG_LEVEL: rc = parse_int(cmd, s, arg, 0, 9, &o->save.png_level); break;
    case OPT_QUALITY: rc = parse_int(cmd, s, arg, 1, 100, &o->save.jpeg_quality); break;
    case OPT_COMPRESS: o->compress = 1; break;
    case OPT_SCALE: rc = parse_scale(cmd, arg, o); break;
    case OPT_TRANSFER:
        rc = parse_choice(cmd, s, arg, transfers, "linear, sqrt or log", &choice);
        o->style.transfer = (wt_transfer)choice;
        break;
    case OPT_COLORMAP:
        rc = parse_choice(cmd, s, arg, colormaps, "gray or diverging", &choice);
        o->style.colormap = (wt_colormap)choice;
        break;
    case OPT_CLIP: rc = parse_real(cmd, s, arg, 1e-6, 100.0, &o->style.clip); break;
    case OPT_GRID: o->style.grid = 1; break;
    case OPT_LABELS: o->style.labels = 1; break;
    case OPT_ALPHA:
        rc = parse_choice(cmd, s, arg, alphas, "opaque, keep or only", &choice);
        o->alpha = (alpha_choice)choice;
        break;
    case OPT_QSTEP: rc = parse_real(cmd, s, arg, 1e-9, 1e30, &o->qstep); break;
    case OPT_EPS: rc = parse_real(cmd, s, arg, 0.0, 1e30, &o->eps); break;
    case OPT_PLOT: o->plot = arg; break;
    case OPT_DEPTH:
        if (command->groups & (OPTS_RESULT | OPTS_MOSAIC))
            rc = parse_choice(cmd, s, arg, result_depths, "8, 16 or f32", &choice);
        else
            rc = parse_choice(cmd, s, arg, depths, "8 or 16", &choice);
        o->depth = choice == 2 ? WT_DEPTH_F32 : choice ? 16 : 8;
        break;
    case 'O':
        o->outdir = arg;
        if (!*arg)
            rc = cli_usage_error(cmd, "invalid argument '' for option --outdir; should be a "
                                      "directory");
        break;
    case OPT_SUFFIX:
        o->suffix = arg;
        if (strchr(arg, '/'))
            rc = cli_usage_error(cmd, "invalid argument '%s' for option --suffix; should not "
                                      "contain '/'",
                                 arg);
        break;
    case OPT_EXT: rc = parse_ext(cmd, s, arg, o); break;
    case 'n': o->no_clobber = 1; break;
    case 'o':
        o->output = arg;
        if (!*arg)
            rc = cli_usage_error(cmd, "invalid argument '' for option --output; should be a "
                                      "file name or -");
        break;
    case OPT_PSNR: o->psnr = 1; break;
    case OPT_MSE: o->mse = 1; break;
    case OPT_KEEP: /* given again: the last value wins */
        if (o->threshold != THRESHOLD_NONE && o->threshold != THRESHOLD_KEEP)
            return cli_usage_error(cmd, "--keep and --threshold exclude each other");
        o->threshold = THRESHOLD_KEEP;
        rc = parse_real(cmd, s, arg, 0.0, 1.0, &o->threshold_value);
        break;
    case OPT_THRESHOLD:
        if (o->threshold == THRESHOLD_KEEP)
            return cli_usage_error(cmd, "--keep and --threshold exclude each other");
        o->threshold = o->threshold == THRESHOLD_SOFT ? THRESHOLD_SOFT : THRESHOLD_HARD;
        rc = parse_real(cmd, s, arg, 0.0, 1e30, &o->threshold_value);
        break;
    case OPT_SOFT:
    case OPT_HARD:
        if (o->threshold == THRESHOLD_KEEP)
            return cli_usage_error(cmd, "--%s applies to --threshold, not --keep", s->name);
        if (o->threshold == THRESHOLD_NONE)
            o->threshold_value = NAN; /* --threshold must follow */
        o->threshold = val == OPT_SOFT ? THRESHOLD_SOFT : THRESHOLD_HARD;
        break;
    case OPT_RULE:
        rc = parse_choice(cmd, s, arg, rules, "bayes or visu", &choice);
        o->denoise.rule = choice ? WT_RULE_VISU : WT_RULE_BAYES;
        break;
    case OPT_SHRINK:
        rc = parse_choice(cmd, s, arg, shrinks, "soft or hard", &choice);
        o->denoise.soft = choice == 0;
        break;
    case OPT_SIGMA: rc = parse_real(cmd, s, arg, 0.0, 1e30, &o->denoise.sigma); break;
    case OPT_YCBCR: o->denoise.ycbcr = 1; break;
    case OPT_CYCLE_SPIN: rc = parse_int(cmd, s, arg, 0, 64, &o->denoise.cycle_spin); break;
    case OPT_NOISE:
        rc = parse_choice(cmd, s, arg, noises, "gaussian or poisson", &choice);
        o->denoise.noise = choice ? WT_NOISE_POISSON : WT_NOISE_GAUSSIAN;
        break;
    case OPT_LEVEL_SCALE: rc = parse_level_scale(cmd, s, arg, &o->denoise); break;
    case OPT_AVERAGE: o->average = 1; break;
    case OPT_GRAY: o->compare_gray = 1; break;
    case OPT_IGNORE_ALPHA: o->compare_ignore_alpha = 1; break;
    case OPT_KEEP_RANK:
        rc = parse_choice(cmd, s, arg, ranks, "norm or magnitude", &choice);
        o->keep_by_magnitude = choice;
        break;
    case OPT_FORMAT:
        rc = parse_choice(cmd, s, arg, formats, "text, json or tsv", &choice);
        o->format = (report_format)choice;
        break;
    case OPT_TRANSFORM: rc = library_choice(cmd, wt_transform_parse(arg, &o->transform)); break;
    case OPT_NORM: o->norm = 1; break;
    case OPT_START_LEVEL: rc = parse_int(cmd, s, arg, 0, WT_MAX_LEVELS - 1, &o->start_level); break;
    case OPT_ALL_APPROX: o->all_approx = 1; break;
    case OPT_BORDER:
        o->border_given = 1;
        rc = library_choice(cmd, wt_border_parse(arg, &o->border));
        break;
    case OPT_LAYERS: o->layers = 1; break;
    case 'q': o->quiet = 1; break;
    case 'v': o->verbose++; break;
    default: rc = cli_usage_error(cmd, "internal: unhandled option %d", val); break;
    }
    return rc;
}

/* ---- getopt_long tables of one command ------------------------------------ */

typedef struct getopt_tables {
    struct option longs[OPTION_COUNT + 1];
    char shorts[2 * OPTION_COUNT + 2];
} getopt_tables;

static void build_tables(unsigned groups, getopt_tables *t)
{
    size_t nl = 0, ns = 0;
    memset(t, 0, sizeof *t);
    t->shorts[ns++] = ':'; /* ':' for a missing argument, '?' for an unknown option */
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        const opt_spec *s = &option_table[i];
        if (!(s->group & groups))
            continue;
        t->longs[nl++] = (struct option){s->name, s->arg ? required_argument : no_argument, NULL,
                                         s->val};
        if (s->val < 256) {
            t->shorts[ns++] = (char)s->val;
            if (s->arg)
                t->shorts[ns++] = ':';
        }
    }
}

/* Name of the option argv[optind - 1] tried to give, for messages. */
static const char *offending_option(char **argv, int index, int optopt_char, char *buf,
                                    size_t size)
{
    if (strncmp(argv[index], "--", 2) == 0) /* --name=value: not the short letter */
        snprintf(buf, size, "%.*s", (int)strcspn(argv[index], "="), argv[index]);
    else if (optopt_char && optopt_char < 256)
        snprintf(buf, size, "-%c", optopt_char);
    else if (optopt_char)
        snprintf(buf, size, "--%s", spec_of(optopt_char)->name);
    else
        snprintf(buf, size, "%s", argv[index]);
    return buf;
}

/* An option of the table that this command does not take. */
static const opt_spec *foreign_option(const char *given)
{
    char name[128];
    if (strncmp(given, "--", 2) != 0)
        return given[0] == '-' && given[1] ? spec_of((unsigned char)given[1]) : NULL;
    snprintf(name, sizeof name, "%s", given + 2);
    name[strcspn(name, "=")] = '\0';
    for (size_t i = 0; i < OPTION_COUNT; i++)
        if (strcmp(option_table[i].name, name) == 0)
            return &option_table[i];
    return NULL;
}

static int bad_option(const cli_command *cmd, char **argv, int c, unsigned groups)
{
    char given[128];
    offending_option(argv, optind - 1, optopt, given, sizeof given);
    if (c == ':')
        return cli_usage_error(cmd->name, "option '%s' needs an argument", given);
    const opt_spec *s = foreign_option(given);
    if (s && !(s->group & groups))
        return cli_usage_error(cmd->name, "option '%s' does not apply to '%s'", given,
                               cmd->name);
    if (s && !s->arg && strchr(argv[optind - 1], '='))
        return cli_usage_error(cmd->name, "option '%s' doesn't allow an argument", given);
    return cli_usage_error(cmd->name, "unrecognized option '%s'", given);
}

static void set_defaults(cli_options *o)
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
    wt_denoise_defaults(&o->denoise);
    o->eps = NAN;
    o->style = wt_mosaic_style_plain(WT_SCALE_AUTO);
}

/* The options of the undecimated transforms go with their transform. */
static int check_undecimated(const cli_command *cmd, const cli_options *o)
{
    unsigned takes = cmd->transforms ? cmd->transforms : 1u << WT_TRANSFORM_DWT;
    if (!(takes & 1u << o->transform)) {
        char list[64] = "";
        for (int t = WT_TRANSFORM_DWT; t <= WT_TRANSFORM_STARLET; t++)
            if (takes & 1u << t)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                         list[0] ? " or " : "", wt_transform_name((wt_transform)t));
        return cli_usage_error(cmd->name, "--transform %s: '%s' takes %s",
                               wt_transform_name(o->transform), cmd->name, list);
    }
    const char *swt_only = o->norm ? "--norm" : o->start_level ? "--start-level"
                           : o->all_approx ? "--all-approx" : NULL;
    if (swt_only && o->transform != WT_TRANSFORM_SWT)
        return cli_usage_error(cmd->name, "%s applies to --transform swt", swt_only);
    if (o->border_given && o->transform != WT_TRANSFORM_STARLET)
        return cli_usage_error(cmd->name, "--border applies to --transform starlet (swt is "
                                          "periodic; dwt takes -m)");
    if (o->layers && o->transform == WT_TRANSFORM_DWT)
        return cli_usage_error(cmd->name, "--layers applies to --transform swt or starlet");
    if ((cmd->groups & OPTS_MOSAIC) && o->depth == WT_DEPTH_F32 && !o->layers)
        return cli_usage_error(cmd->name, "--depth f32 is for --layers: mosaics are 8 or 16-bit "
                                          "displays");
    if (o->transform == WT_TRANSFORM_SWT && o->params.wavelet->kind != WT_KIND_FILTER_BANK)
        return cli_usage_error(cmd->name, "--transform swt: %s is a JPEG 2000 wavelet; use a "
                                          "filter-bank one (bior4.4 for cdf97, bior2.2 for "
                                          "legall53)",
                               o->params.wavelet->name);
    return CLI_CONTINUE;
}

/* Checks between options once all are read. */
static int check_combination(const cli_command *cmd, cli_options *o)
{
    if ((o->threshold == THRESHOLD_HARD || o->threshold == THRESHOLD_SOFT) &&
        isnan(o->threshold_value))
        return cli_usage_error(cmd->name, "--soft and --hard need --threshold T");
    if (o->qstep > 0.0 && o->threshold != THRESHOLD_NONE)
        return cli_usage_error(cmd->name, "--qstep excludes --keep and --threshold");
    if (o->nargs < cmd->min_args)
        return cli_usage_error(cmd->name, "missing arguments (usage: wavetool %s %.*s)",
                               cmd->name, (int)strcspn(cmd->synopsis, "\n"), cmd->synopsis);
    if (cmd->max_args >= 0 && o->nargs > cmd->max_args)
        return cli_usage_error(cmd->name, "too many arguments (usage: wavetool %s %.*s)",
                               cmd->name, (int)strcspn(cmd->synopsis, "\n"), cmd->synopsis);
    if (!(cmd->groups & OPTS_TRANSFORM))
        return CLI_CONTINUE;
    int rc = check_undecimated(cmd, o);
    if (rc != CLI_CONTINUE || o->transform != WT_TRANSFORM_DWT)
        return rc;
    wt_params p = o->params;
    p.levels = 0;
    return wt_params_resolve(&p) == WT_OK ? CLI_CONTINUE
                                          : cli_usage_error(cmd->name, "%s", wt_error_message());
}

int cli_parse(const cli_command *cmd, int argc, char **argv, cli_options *o)
{
    getopt_tables t;
    unsigned groups = cmd->groups | OPTS_GENERAL;
    int rc = CLI_CONTINUE, c;
    set_defaults(o);
    if (cmd->defaults)
        cmd->defaults(o);
    build_tables(groups, &t);
    opterr = 0;
    optind = 1;
    while (rc == CLI_CONTINUE && (c = getopt_long(argc, argv, t.shorts, t.longs, NULL)) != -1) {
        if (c == 'h') {
            cli_print_help(cmd, stdout);
            rc = EXIT_ALL_DONE;
        } else if (c == '?' || c == ':') {
            rc = bad_option(cmd, argv, c, groups);
        } else {
            rc = apply_option(cmd, c, optarg, o);
        }
    }
    if (rc != CLI_CONTINUE)
        return rc;
    o->args = argv + optind;
    o->nargs = argc - optind;
    return check_combination(cmd, o);
}

static const char *expand_formats(const char *text, unsigned writes, char *buf, size_t size);

void cli_print_help(const cli_command *cmd, FILE *out)
{
    char summary[2048];
    fprintf(out, "Usage: wavetool %s %s\n\n%s\n\nOptions:\n", cmd->name, cmd->synopsis,
            cli_expand_formats(cmd->summary, summary, sizeof summary));
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        const opt_spec *s = &option_table[i];
        char left[64];
        if (!(s->group & (cmd->groups | OPTS_GENERAL)))
            continue;
        if (s->val < 256)
            snprintf(left, sizeof left, "-%c, --%s%s%s", s->val, s->name, s->arg ? " " : "",
                     s->arg ? s->arg : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", s->name, s->arg ? " " : "",
                     s->arg ? s->arg : "");
        char help[512];
        fprintf(out, "  %-24s ", left);
        expand_formats(s->help, cmd->writes ? cmd->writes : ALL_FORMATS, help, sizeof help);
        for (const char *h = help; *h; h++) /* continuation lines line up */
            fputs(*h == '\n' ? "\n                           " : (char[2]){*h, 0}, out);
        fputc('\n', out);
    }
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
    cli_options o;
    int rc = cli_parse(cmd, argc, argv, &o);
    return rc == CLI_CONTINUE ? cmd->run(&o) : rc;
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

/* cli_expand_formats() with {EXTS} the choices for outputs holding @p writes */
static const char *expand_formats(const char *text, unsigned writes, char *buf, size_t size)
{
    size_t len = 0;
    while (*text && len + 1 < size) {
        char list[256];
        size_t skip = *text == '{' ? expand_token(text, writes, list, sizeof list) : 0;
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
    return expand_formats(text, ALL_FORMATS, buf, size);
}
