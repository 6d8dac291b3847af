/* decompose, reconstruct and roundtrip with --transform swt|starlet: band
 * stacks of full-size planes, their .npz files, mosaics and layer images. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pages.h"
#include "undecimated.h"

/* How a path appears in messages. */
static const char *shown(const char *file)
{
    return strcmp(file, "-") == 0 ? "(stdin)" : file;
}

/* ---- the transform of one image ------------------------------------------------ */

/* The transform for an image: -l max, the levels asked for, or the default 3
 * made smaller for small images (the deepest level's filter stays within the
 * image; larger levels are accepted when asked for). */
static wt_status uparams_for(const cli_options *o, const wt_image *img, const char *file,
                             wt_uparams *up)
{
    *up = (wt_uparams){o->transform, o->params.wavelet, o->params.levels, o->start_level,
                       o->norm, o->all_approx, o->border};
    int max = wt_umax_level(up, img->height, img->width);
    if (o->levels_max || (!o->levels_given && up->levels > max))
        up->levels = max;
    if (up->levels < 1)
        return wt_error_set(WT_ERR_INVALID, "%s: --transform %s needs at least 1 level",
                            shown(file), wt_transform_name(up->transform));
    wt_status st = wt_uparams_check(up, img->height, img->width);
    if (st != WT_OK) {
        char reason[512];
        snprintf(reason, sizeof reason, "%s", wt_error_message());
        return wt_error_set(st, "%s: %s", shown(file), reason);
    }
    return WT_OK;
}

/* Physical memory in bytes (0 when unknown). */
static double physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}

/* Band stack and planes for @p up on an image, checked before anything is
 * allocated against @p limit (--max-memory's share of a file; 0: the
 * machine's memory). */
static wt_status alloc_stack(const wt_uparams *up, const wt_image *img, const char *file,
                             uint64_t limit, float **stack, float **planes)
{
    const double plane = (double)img->height * img->width * img->channels;
    const int nb = wt_ustack_bands(up);
    /* the stack, the image's planes, and the transform's work planes */
    const double need = 4.0 * plane * (nb + 1) + 16.0 * (double)img->height * img->width;
    const double have = limit ? (double)limit : physical_memory();
    *stack = *planes = NULL;
    if (need > (double)SIZE_MAX / 2 || (have > 0 && need > have))
        return wt_error_set(WT_ERR_LIMIT,
                            "%s: a %d-level %s of %ux%u with %d channels needs %.1f GiB (%d "
                            "full-size bands), more than %s%.1f GiB%s",
                            shown(file), up->levels, wt_transform_name(up->transform),
                            img->width, img->height, img->channels, need / 1073741824.0, nb,
                            limit ? "the " : "this machine's ", have / 1073741824.0,
                            limit ? " allowed (--max-memory)" : "");
    *stack = malloc((size_t)(4.0 * plane * nb));
    *planes = malloc((size_t)(4.0 * plane));
    if (*stack && *planes)
        return WT_OK;
    free(*stack);
    free(*planes);
    *stack = *planes = NULL;
    return wt_error_set(WT_ERR_NOMEM, "%s: out of memory (%.1f GiB for %d full-size bands)",
                        shown(file), need / 1073741824.0, nb);
}

/* What an engine call works on. */
typedef struct ujob {
    const wt_uparams *up;
    size_t h, w;
    int channels;
    float *planes, *stack;
    int inverse;
} ujob;

static wt_status ujob_run(wt_engine *e, void *ctx)
{
    const ujob *j = ctx;
    return j->inverse ? wt_uinverse(e, j->up, j->stack, j->h, j->w, j->channels, j->planes)
                      : wt_uforward(e, j->up, j->planes, j->h, j->w, j->channels, j->stack);
}

/* Forward transform of @p img into a new stack. */
static wt_status forward(pipeline *p, const wt_image *img, const wt_uparams *up,
                         const char *file, float **stack)
{
    float *planes = NULL;
    wt_status st = alloc_stack(up, img, file, p->load.max_memory, stack, &planes);
    if (st == WT_OK)
        st = wt_image_to_planes(img, planes);
    ujob job = {up, img->height, img->width, img->channels, planes, *stack, 0};
    if (st == WT_OK)
        st = pipeline_engine_run(p, ujob_run, &job, file);
    free(planes);
    if (st != WT_OK) {
        free(*stack);
        *stack = NULL;
    }
    return st;
}

/* Inverse of @p stack into @p img (allocated with the original's shape). */
static wt_status inverse(pipeline *p, const wt_uparams *up, const float *stack, const char *file,
                         wt_image *img)
{
    size_t n = (size_t)img->height * img->width * (size_t)img->channels;
    float *planes = malloc(n * sizeof *planes);
    if (!planes)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", shown(file));
    ujob job = {up, img->height, img->width, img->channels, planes, (float *)stack, 1};
    wt_status st = pipeline_engine_run(p, ujob_run, &job, file);
    if (st == WT_OK)
        wt_image_from_planes(img, planes);
    free(planes);
    return st;
}

/* ---- layers: one 16-bit image per band and a sidecar ------------------------------
 * sample = round(v * scale + 32768), scale the largest power of two with
 * max |v| * scale <= 32767 (at most 2^16; 1 for a zero band). */

#define LAYER_OFFSET 32768.0
#define SIDECAR_SUFFIX "_layers.txt"
#define SIDECAR_MAGIC "wavetool layers 1"

static double layer_scale(const float *band, size_t n)
{
    double maxabs = 0.0;
    for (size_t i = 0; i < n; i++)
        maxabs = fabs((double)band[i]) > maxabs ? fabs((double)band[i]) : maxabs;
    if (!(maxabs > 0.0) || !isfinite(maxabs))
        return 1.0;
    double s = ldexp(1.0, (int)floor(log2(32767.0 / maxabs)));
    while (maxabs * s > 32767.0)
        s /= 2.0;
    return s > 65536.0 ? 65536.0 : s;
}

static void layer_encode(const float *band, size_t h, size_t w, int channels, double scale,
                         wt_image *img)
{
    uint16_t *px = img->pixels;
    const size_t plane = h * w, c = (size_t)channels;
    for (size_t ch = 0; ch < c; ch++)
        for (size_t i = 0; i < plane; i++) {
            double v = LAYER_OFFSET + scale * (double)band[ch * plane + i];
            px[i * c + ch] = (uint16_t)lrint(v < 0.0 ? 0.0 : (v > 65535.0 ? 65535.0 : v));
        }
}

/* --depth f32: the band's values as they are (offset 0, scale 1). */
static void layer_encode_float(const float *band, size_t h, size_t w, int channels,
                               wt_image *img)
{
    float *px = img->pixels;
    const size_t plane = h * w, c = (size_t)channels;
    for (size_t ch = 0; ch < c; ch++)
        for (size_t i = 0; i < plane; i++)
            px[i * c + ch] = band[ch * plane + i];
}

static void layer_decode(const wt_image *img, double offset, double scale, float *band)
{
    const size_t plane = (size_t)img->height * img->width, c = (size_t)img->channels;
    const uint16_t *px16 = img->pixels;
    const uint8_t *px8 = img->pixels;
    const float *pxf = img->pixels;
    for (size_t ch = 0; ch < c; ch++)
        for (size_t i = 0; i < plane; i++) {
            double s = img->bit_depth == WT_DEPTH_F32 ? pxf[i * c + ch]
                       : img->bit_depth == 16         ? px16[i * c + ch]
                                                      : px8[i * c + ch];
            band[ch * plane + i] = (float)((s - offset) / scale);
        }
}

/* Band names as the .npz members: cA cH1 ...; c w1 ... (the kind's module's) */
static void band_name(const wt_uparams *up, int i, char *out, size_t cap)
{
    wt_transform_class_of(up->transform)->member_name(up, i, out, cap);
}

/* OUT without its extension, and the extension (with the dot). */
static void split_ext(const char *out, char *stem, size_t cap, const char **ext)
{
    const char *slash = strrchr(out, '/'), *dot = strrchr(out, '.');
    if (!dot || (slash && dot < slash))
        dot = out + strlen(out);
    snprintf(stem, cap, "%.*s", (int)(dot - out), out);
    *ext = *dot ? dot : ".png";
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static void sidecar_header(FILE *f, const wt_uparams *up, const wt_image *img)
{
    fprintf(f, "%s\ntransform %s\nwavelet %s\nlevels %d\nstart_level %d\nnorm %d\n"
               "all_approx %d\nborder %s\nwidth %u\nheight %u\nchannels %d\nbit_depth %d\n",
            SIDECAR_MAGIC, wt_transform_name(up->transform),
            up->wavelet ? up->wavelet->name : "haar", up->levels, up->start_level, up->norm,
            up->all_approx, wt_border_name(up->border), img->width, img->height, img->channels,
            img->bit_depth);
    char type[16]; /* float32-held images: the type they came in */
    if (img->bit_depth == WT_DEPTH_F32)
        fprintf(f, "samples %s\n", wt_sample_type_name(wt_image_stored(img), type, sizeof type));
}

/* The optional "samples TYPE" line after bit_depth 32 (the stored type of a
 * float32-held image), or float32. */
static int read_sidecar_samples(FILE *f, wt_sample_type *t)
{
    static const char *const kinds[] = {"uint", "int", "float"};
    char name[16] = "", again[16];
    *t = (wt_sample_type){WT_SAMPLE_FLOAT, 32};
    if (fscanf(f, " samples %15s", name) != 1)
        return 1; /* absent: the next line is a layer's */
    for (int k = 0; k < 3; k++) {
        size_t len = strlen(kinds[k]);
        wt_sample_type c = {(wt_sample_kind)k, atoi(name + len)};
        if (strncmp(name, kinds[k], len) == 0 &&
            strcmp(wt_sample_type_name(c, again, sizeof again), name) == 0) {
            *t = c;
            return 1;
        }
    }
    return 0;
}

/* A layer's file name in the sidecar, one token whatever its bytes: bytes
 * outside printable ASCII, space and '%' written as %XX. */
static void escape_name(const char *name, char *out, size_t cap)
{
    size_t o = 0;
    for (const unsigned char *c = (const unsigned char *)name; *c && o + 4 < cap; c++)
        o += (size_t)(*c > ' ' && *c < 0x7f && *c != '%'
                          ? snprintf(out + o, cap - o, "%c", *c)
                          : snprintf(out + o, cap - o, "%%%02X", *c));
    out[o] = '\0';
}

/* escape_name undone in place; 0 for a bad escape or a NUL byte. */
static int unescape_name(char *s)
{
    char *o = s;
    for (const char *c = s; *c; c++) {
        unsigned v;
        int used = 0;
        if (*c != '%') {
            *o++ = *c;
            continue;
        }
        if (sscanf(c + 1, "%2x%n", &v, &used) != 1 || used != 2 || v == 0)
            return 0;
        *o++ = (char)v;
        c += 2;
    }
    *o = '\0';
    return 1;
}

/* 1 when @p path is the input @p in (a file, or standard input's). */
static int is_the_input(const char *path, const char *in)
{
    struct stat a, b;
    if (strcmp(in, "-") != 0)
        return wt_same_file(path, in);
    return stat(path, &a) == 0 && fstat(STDIN_FILENO, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* The output rules for the set of @p n files: none may be the input; -n
 * skips the set (*@p skip) when one of them exists. */
static wt_status check_layer_set(const cli_options *o, const char *in, char (*paths)[4200],
                                 int n, int *skip)
{
    *skip = 0;
    for (int i = 0; i < n; i++) {
        if (is_the_input(paths[i], in))
            return wt_error_set(WT_ERR_INVALID, "%s: output %s is the input file; not "
                                "overwritten", shown(in), paths[i]);
        if (o->no_clobber && access(paths[i], F_OK) == 0)
            *skip = 1;
    }
    if (*skip && o->verbose)
        fprintf(stderr, "wavetool: %s: exists, skipped (--no-clobber)\n", paths[n - 1]);
    return WT_OK;
}

/* Every layer (@p paths[i], i < n) and then the sidecar (@p paths[n]) into
 * the open @p files; the layers' lines go into the sidecar. */
static wt_status write_layer_files(pipeline *p, const wt_image *img, const wt_uparams *up,
                                   const float *stack, char (*paths)[4200], wt_outfile *files,
                                   wt_file_format format)
{
    char name[16], token[3 * 4200];
    int floats = format != WT_FORMAT_PNG, n = wt_ustack_bands(up);
    wt_image layer = {0};
    wt_status st = wt_image_alloc(&layer, img->width, img->height, img->channels,
                                  floats ? WT_DEPTH_F32 : 16);
    layer.color = img->color;
    if (st == WT_OK)
        sidecar_header(files[n].fp, up, img);
    const size_t band = (size_t)img->height * img->width * (size_t)img->channels;
    for (int i = 0; st == WT_OK && i < n; i++) {
        band_name(up, i, name, sizeof name);
        double scale = floats ? 1.0 : layer_scale(stack + i * band, band);
        if (floats)
            layer_encode_float(stack + i * band, img->height, img->width, img->channels, &layer);
        else
            layer_encode(stack + i * band, img->height, img->width, img->channels, scale, &layer);
        st = wt_image_write(&files[i], &layer, &p->opt->save, format);
        escape_name(base_name(paths[i]), token, sizeof token);
        fprintf(files[n].fp, "layer %s %s %.1f %.17g\n", name, token,
                floats ? 0.0 : LAYER_OFFSET, scale);
    }
    wt_image_free(&layer);
    return st;
}

/* --layers: the layers and their sidecar are outputs like any other (never
 * the input, -n, temporary files), and one set: written to temporary files
 * and renamed into place together, the sidecar last; a failure or a signal
 * leaves none of them. */
static wt_status write_layers(pipeline *p, page_binding *page, const wt_image *img,
                              const wt_uparams *up, const float *stack, const char *in,
                              const char *out)
{
    char stem[4096], name[16], holders[128];
    const char *ext;
    int floats = p->opt->depth == WT_DEPTH_F32; /* raw float32 layers */
    split_ext(out, stem, sizeof stem, &ext);
    const wt_format_info *info = wt_format_describe(wt_format_from_ext(ext));
    wt_format_list(holders, sizeof holders, WT_HOLDS_FLOATS | WT_LIST_USUAL, ".", ", ", " or ");
    if (!floats && strcasecmp(ext, ".png") != 0)
        return wt_error_set(WT_ERR_INVALID, "%s: --layers writes 16-bit PNG layers; name OUT "
                                            ".png (or --depth f32 and %s)",
                            out, holders);
    if (floats && !(info && info->floats))
        return wt_error_set(WT_ERR_INVALID, "%s: --layers --depth f32 writes float32 layers; "
                                            "name OUT %s",
                            out, holders);
    if (page && page->pages > 1) /* a stack: one layer set per page, STEM_pK_... */
        snprintf(stem + strlen(stem), sizeof stem - strlen(stem), "_p%zu", page->page);
    int n = wt_ustack_bands(up), skip = 0, opened = 0;
    char(*paths)[4200] = calloc((size_t)n + 1, sizeof *paths);
    wt_outfile *files = calloc((size_t)n + 1, sizeof *files);
    wt_status st = paths && files ? WT_OK : wt_error_set(WT_ERR_NOMEM, "%s: out of memory", out);
    for (int i = 0; st == WT_OK && i < n; i++) {
        band_name(up, i, name, sizeof name);
        snprintf(paths[i], sizeof paths[i], "%s_%s%s", stem, name, floats ? ext : ".png");
    }
    if (st == WT_OK) {
        snprintf(paths[n], sizeof paths[n], "%s%s", stem, SIDECAR_SUFFIX);
        st = check_layer_set(p->opt, in, paths, n + 1, &skip);
    }
    while (st == WT_OK && !skip && opened <= n)
        if ((st = wt_outfile_open(&files[opened], paths[opened])) == WT_OK)
            opened++;
    if (st == WT_OK && !skip)
        st = write_layer_files(p, img, up, stack, paths, files,
                               wt_format_from_ext(floats ? ext : ".png"));
    for (int i = 0; i < opened; i++) /* all renamed, or all removed */
        if (st == WT_OK)
            st = wt_outfile_commit(&files[i]);
        else
            wt_outfile_abort(&files[i]);
    free(paths);
    free(files);
    return st;
}

int undecimated_is_sidecar(const char *path)
{
    size_t n = strlen(path), k = strlen(SIDECAR_SUFFIX);
    return n >= k && strcmp(path + n - k, SIDECAR_SUFFIX) == 0;
}

/* ---- sidecar reading --------------------------------------------------------------- */

typedef struct sidecar {
    wt_uparams up;
    wt_image shape; /* width, height, channels, depth, colour; no pixels */
} sidecar;

static wt_status bad_sidecar(const char *path, const char *what)
{
    return wt_error_set(WT_ERR_FORMAT, "%s: not a wavetool layers file (%s)", path, what);
}

/* A header line: "KEY VALUE", VALUE a token (@p text) or an integer within
 * [min, max] (@p num), bounded as the .npz meta's fields are: start_level
 * 2147483647 overflowed the SWT's level arithmetic. */
typedef struct header_field {
    const char *key;
    long min, max;
    long *num;
    char *text; /* 64 bytes */
} header_field;

static wt_status read_field(FILE *f, const char *path, const header_field *h)
{
    char key[32], value[64], *end;
    if (fscanf(f, " %31s %63s", key, value) != 2 || strcmp(key, h->key) != 0)
        return wt_error_set(WT_ERR_FORMAT, "%s: not a wavetool layers file (header): no %s "
                            "line where expected", path, h->key);
    if (h->text) {
        memcpy(h->text, value, sizeof value);
        return WT_OK;
    }
    errno = 0;
    *h->num = strtol(value, &end, 10);
    if (end != value && !*end && !errno && *h->num >= h->min && *h->num <= h->max)
        return WT_OK;
    return wt_error_set(WT_ERR_FORMAT, "%s: not a wavetool layers file (header): %s %s, "
                        "an integer from %ld to %ld expected", path, h->key, value, h->min,
                        h->max);
}

/* "key value" lines of the header, in order, each checked. */
static wt_status read_sidecar_header(FILE *f, const char *path, uint64_t max_pixels,
                                     sidecar *s)
{
    char line[512], tname[64], wname[64], bname[64];
    long lv, start, norm, all, w, h, ch, depth;
    const header_field fields[] = {
        {"transform", 0, 0, NULL, tname},
        {"wavelet", 0, 0, NULL, wname},
        {"levels", 1, WT_MAX_LEVELS, &lv, NULL},
        {"start_level", 0, WT_MAX_LEVELS - 1, &start, NULL},
        {"norm", 0, 1, &norm, NULL},
        {"all_approx", 0, 1, &all, NULL},
        {"border", 0, 0, NULL, bname},
        {"width", 1, WT_MAX_SIDE, &w, NULL},
        {"height", 1, WT_MAX_SIDE, &h, NULL},
        {"channels", 1, WT_MAX_CHANNELS, &ch, NULL},
        {"bit_depth", 8, WT_DEPTH_F32, &depth, NULL},
    };
    if (!fgets(line, sizeof line, f) || strncmp(line, SIDECAR_MAGIC, strlen(SIDECAR_MAGIC)) != 0)
        return bad_sidecar(path, "first line");
    wt_status st = WT_OK;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0] && st == WT_OK; i++)
        st = read_field(f, path, &fields[i]);
    if (st != WT_OK)
        return st;
    memset(s, 0, sizeof *s);
    if (wt_transform_parse(tname, &s->up.transform) != WT_OK ||
        wt_border_parse(bname, &s->up.border) != WT_OK)
        return bad_sidecar(path, "transform or border");
    s->up.wavelet = wt_wavelet_find(wname);
    s->up.levels = (int)lv;
    s->up.start_level = (int)start;
    s->up.norm = norm != 0;
    s->up.all_approx = all != 0;
    if ((depth != 8 && depth != 16 && depth != WT_DEPTH_F32) ||
        wt_uparams_check(&s->up, (size_t)h, (size_t)w) != WT_OK)
        return bad_sidecar(path, "impossible description");
    uint64_t most = max_pixels ? max_pixels : WT_DEFAULT_MAX_PIXELS;
    if ((uint64_t)w * (uint64_t)h > most)
        return wt_error_set(WT_ERR_LIMIT, "%s: a %ldx%ld image is more than %llu pixels "
                            "(--max-pixels)", path, w, h, (unsigned long long)most);
    s->shape = (wt_image){(uint32_t)w, (uint32_t)h, (int)ch, (int)depth, (wt_color)ch, NULL,
                          {0, 0}, NULL, NULL};
    if (depth == WT_DEPTH_F32 && !read_sidecar_samples(f, &s->shape.stored))
        return bad_sidecar(path, "samples");
    return WT_OK;
}

/* The directory part of @p path ("" or "dir/"). */
static void dir_of(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/');
    snprintf(out, cap, "%.*s", slash ? (int)(slash - path + 1) : 0, path);
}

/* Layer @p i: its line, its image (same size and channels), decoded. */
static wt_status read_layer(pipeline *p, FILE *f, const char *path, const sidecar *s, int i,
                            float *band)
{
    char name[32], file[1024], want[16], dir[4096], full[5200];
    double offset, scale;
    if (fscanf(f, " layer %31s %1023s %lf %lf", name, file, &offset, &scale) != 4)
        return bad_sidecar(path, "layer line");
    band_name(&s->up, i, want, sizeof want);
    if (strcmp(name, want) != 0 || !(scale > 0.0) || !isfinite(scale) || !isfinite(offset) ||
        !unescape_name(file) || strchr(file, '/'))
        return bad_sidecar(path, "layer line");
    dir_of(path, dir, sizeof dir);
    snprintf(full, sizeof full, "%s%s", dir, file);
    wt_image img = {0};
    wt_status st = wt_image_load(full, &p->opt->load, &img);
    if (st == WT_OK && (img.width != s->shape.width || img.height != s->shape.height ||
                        img.channels != s->shape.channels))
        st = wt_error_set(WT_ERR_FORMAT, "%s: layer %s is %ux%u with %d channels, expected "
                                         "%ux%u with %d",
                          path, full, img.width, img.height, img.channels, s->shape.width,
                          s->shape.height, s->shape.channels);
    if (st == WT_OK)
        layer_decode(&img, offset, scale, band);
    wt_image_free(&img);
    return st;
}

wt_status undecimated_reconstruct_layers(pipeline *p, page_binding *page, const char *path,
                                         const char *out)
{
    sidecar s;
    FILE *f = fopen(path, "r");
    if (!f)
        return wt_error_set(WT_ERR_IO, "%s: %s", path, strerror(errno));
    wt_status st = read_sidecar_header(f, path, p->load.max_pixels, &s);
    float *stack = NULL, *planes = NULL;
    if (st == WT_OK)
        st = alloc_stack(&s.up, &s.shape, path, p->load.max_memory, &stack, &planes);
    const size_t band = (size_t)s.shape.height * s.shape.width * (size_t)s.shape.channels;
    for (int i = 0; st == WT_OK && i < wt_ustack_bands(&s.up); i++)
        st = read_layer(p, f, path, &s, i, stack + i * band);
    fclose(f);
    free(planes);
    wt_npz_meta meta = {.width = s.shape.width, .height = s.shape.height,
                        .channels = s.shape.channels, .bit_depth = s.shape.bit_depth,
                        .stored = s.shape.stored,
                        .color = s.shape.color};
    if (st == WT_OK)
        st = undecimated_reconstruct(p, page, &s.up, stack, &meta, path, out);
    free(stack);
    return st;
}

/* ---- commands ------------------------------------------------------------------------- */

static void fill_meta(const wt_uparams *up, const wt_image *img, wt_npz_meta *meta)
{
    pipeline_meta_of_image(img, meta);
    const wt_transform_class *c = wt_transform_class_of(up->transform);
    snprintf(meta->wavelet, sizeof meta->wavelet, "%s",
             c->params & WT_TPARAM_WAVELET ? up->wavelet->name : c->wavelet_name);
    meta->mode = c->meta_mode;
    meta->method = WT_METHOD_CONV;
    meta->levels = up->levels;
    meta->transform = up->transform;
    meta->start_level = up->start_level;
    meta->norm = up->norm;
    meta->all_approx = up->all_approx;
    meta->border = up->border;
}

static wt_status write_mosaic(pipeline *p, page_binding *page, const wt_image *img,
                              const wt_uparams *up, const float *stack, const char *out)
{
    const cli_options *o = p->opt;
    int depth = o->depth ? o->depth
                         : (cli_output_format(o, out) == WT_FORMAT_JPEG ? 8
                            : img->bit_depth == WT_DEPTH_F32        ? 16 /* float32: 16-bit display */
                                                                    : img->bit_depth);
    wt_image mosaic = {0};
    wt_status st = wt_umosaic_render(up, stack, img->height, img->width, img->channels, o->scale,
                                     depth, &mosaic);
    if (st == WT_OK)
        st = pages_save(p, page, out, &mosaic);
    wt_image_free(&mosaic);
    return st;
}

wt_status undecimated_decompose(pipeline *p, page_binding *page, const wt_image *img,
                                const char *in, const char *out)
{
    wt_uparams up;
    float *stack = NULL;
    wt_status st = uparams_for(p->opt, img, in, &up);
    if (st == WT_OK)
        st = forward(p, img, &up, in, &stack);
    if (st == WT_OK && p->opt->layers) {
        st = write_layers(p, page, img, &up, stack, in, out);
    } else if (st == WT_OK && cli_output_format(p->opt, out) == WT_FORMAT_NPZ) {
        wt_npz_meta meta;
        fill_meta(&up, img, &meta);
        meta.compress = p->opt->compress;
        meta.image = pipeline_kept_meta(p, img);
        st = pages_save_bands(p, page, out, &up, stack, &meta);
    } else if (st == WT_OK) {
        st = write_mosaic(p, page, img, &up, stack, out);
    }
    free(stack);
    return st;
}

wt_status undecimated_reconstruct(pipeline *p, page_binding *page, const wt_uparams *up,
                                  const float *stack, const wt_npz_meta *meta, const char *in,
                                  const char *out)
{
    wt_image img = {0}, like = {meta->width, meta->height, meta->channels, meta->bit_depth,
                                meta->color, NULL, meta->stored, NULL, NULL};
    wt_sample_type want = cli_result_type(p->opt, wt_image_stored(&like));
    wt_status st = wt_image_check_holds(cli_output_format(p->opt, out), out, want,
                                        meta->channels);
    if (st == WT_OK) /* --depth or the original's type: 8/16-bit exact, else float32 */
        st = wt_image_alloc(&img, meta->width, meta->height, meta->channels,
                            wt_sample_type_depth(want));
    img.color = meta->color;
    img.stored = img.bit_depth == WT_DEPTH_F32 ? want : (wt_sample_type){0, 0};
    wt_image_share_meta(&img, &(wt_image){.meta = meta->image}); /* stored by decompose */
    if (st == WT_OK)
        st = inverse(p, up, stack, in, &img);
    if (st == WT_OK)
        st = pages_save(p, page, out, &img);
    wt_image_free(&img);
    return st;
}

/* ---- --keep and --threshold on the detail bands ------------------------------------ */

/* The detail planes of a stack (all but cA_l and c) in stack order, each of
 * C x h x w floats; returns their number of bands. */
static int detail_bands(const wt_uparams *up, int *index)
{
    int nb = wt_ustack_bands(up), n = 0;
    wt_band_ref ref;
    for (int i = 0; i < nb; i++)
        if (wt_transform_class_of(up->transform)->band_ref(up, i, &ref))
            index[n++] = i;
    return n;
}

static void threshold_plane(float *v, size_t n, double t, int soft)
{
    for (size_t i = 0; i < n; i++) {
        double a = fabs((double)v[i]);
        if (a < t || (soft && a == t))
            v[i] = 0.0f;
        else if (soft)
            v[i] = (float)(v[i] < 0 ? -(a - t) : a - t);
    }
}

static int compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The @p k largest |c| kept (ties: the first in stack order), the others zeroed. */
static wt_status keep_largest(float *stack, const int *index, int nd, size_t plane, size_t k,
                              const char *file)
{
    size_t n = (size_t)nd * plane;
    float *mag = k > 0 && k < n ? malloc(n * sizeof *mag) : NULL;
    if (k > 0 && k < n && !mag)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory for --keep", shown(file));
    float cut = k == 0 ? INFINITY : 0.0f;
    size_t ties = 0;
    if (mag) {
        for (int b = 0; b < nd; b++)
            for (size_t i = 0; i < plane; i++)
                mag[(size_t)b * plane + i] = fabsf(stack[(size_t)index[b] * plane + i]);
        qsort(mag, n, sizeof *mag, compare_float);
        cut = mag[n - k]; /* the k-th largest */
        size_t above = 0;
        while (above < n && mag[n - 1 - above] > cut)
            above++;
        ties = k - above;
        free(mag);
    }
    for (int b = 0; b < nd && k < n; b++)
        for (float *v = stack + (size_t)index[b] * plane, *end = v + plane; v < end; v++) {
            float a = fabsf(*v);
            if (a < cut || (a == cut && ties == 0))
                *v = 0.0f;
            else if (a == cut)
                ties--;
        }
    return WT_OK;
}

/* Fraction of the detail coefficients left nonzero (1 when there are none). */
static double kept_fraction(const float *stack, const int *index, int nd, size_t plane)
{
    size_t nonzero = 0;
    for (int b = 0; b < nd; b++)
        for (size_t i = 0; i < plane; i++)
            nonzero += stack[(size_t)index[b] * plane + i] != 0.0f;
    return nd > 0 && plane > 0 ? (double)nonzero / ((double)nd * (double)plane) : 1.0;
}

/* roundtrip --keep F / --threshold T on the details of @p stack (host). */
static wt_status threshold_stack(const cli_threshold *t, const wt_uparams *up,
                                 const wt_image *img, float *stack, const char *file,
                                 double *kept)
{
    int index[4 * WT_MAX_LEVELS + 1];
    int nd = detail_bands(up, index);
    size_t plane = (size_t)img->height * img->width * (size_t)img->channels;
    wt_status st = WT_OK;
    if (t->kind == THRESHOLD_KEEP)
        st = keep_largest(stack, index, nd, plane,
                          (size_t)llround(t->value * (double)nd * (double)plane), file);
    else
        for (int b = 0; b < nd; b++)
            threshold_plane(stack + (size_t)index[b] * plane, plane, t->value,
                            t->kind == THRESHOLD_SOFT);
    *kept = kept_fraction(stack, index, nd, plane);
    return st;
}

wt_status undecimated_roundtrip(pipeline *p, const cli_threshold *t, const wt_image *img,
                                const char *in, wt_image *back, double *kept)
{
    wt_uparams up;
    float *stack = NULL;
    wt_status st = uparams_for(p->opt, img, in, &up);
    if (st == WT_OK)
        st = forward(p, img, &up, in, &stack);
    if (st == WT_OK && t->kind != THRESHOLD_NONE)
        st = threshold_stack(t, &up, img, stack, in, kept);
    if (st == WT_OK)
        st = inverse(p, &up, stack, in, back);
    free(stack);
    return st;
}

wt_status undecimated_forward(pipeline *p, const wt_image *img, const char *in, wt_uparams *up,
                              float **stack)
{
    *stack = NULL;
    wt_status st = uparams_for(p->opt, img, in, up);
    return st == WT_OK ? forward(p, img, up, in, stack) : st;
}
