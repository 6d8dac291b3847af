/* make-photos: deterministic, photo-like test images for benchmarks.
 *
 * Each image is a scene: a two-colour sky gradient over a ground gradient,
 * a dozen soft-edged, shaded ellipses and rectangles, fractal value-noise
 * texture and mild sensor noise. Every pixel is a pure function of (seed,
 * image index, x, y), so the output does not depend on --jobs, and images
 * compress like photographs (neither flat nor random).
 *
 * Images are written through the library (wt_image_alloc, wt_image_save).
 * Many images: one per thread at a time. Fewer images than threads (one huge
 * PNG): the threads share the rows of each image, which is held once in
 * memory and encoded in place. */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wavetool.h"
#include "wavetool_hooks.h" /* wt_parallel_for, wt_cpu_count, wt_seconds */

#define MAX_SHAPES 24
#define MAX_THREADS 256

static const char usage_text[] =
    "Usage: make-photos [options] DIR\n"
    "\n"
    "Write N deterministic, photo-like images (smooth gradients, shaded shapes,\n"
    "texture, mild noise) into DIR (created if missing) as DIR/photo-0000.jpg ...\n"
    "The same options and seed give the same files, whatever --jobs is.\n"
    "\n"
    "Options:\n"
    "  -n, --count N        number of images (default 50)\n"
    "  -s, --size WxH       width x height in pixels (default 1920x1080)\n"
    "  -f, --format F       jpg (default) or png\n"
    "  -g, --gray           one gray channel instead of RGB\n"
    "      --depth 8|16     sample depth (default 8; 16 needs png)\n"
    "  -S, --seed S         seed of the scenes (default 1)\n"
    "  -j, --jobs N         threads (default: number of cores)\n"
    "      --quality Q      JPEG quality 1-100 (default 90)\n"
    "      --png-level N    PNG zlib level 0-9 (default: wavetool's)\n"
    "      --prefix P       file names P0000.EXT ... (default photo-)\n"
    "  -q, --quiet          no summary line\n"
    "  -h, --help           show this help\n"
    "\n"
    "Examples:\n"
    "  make-photos --count 200 --size 1920x1080 photos/          # JPEG benchmark folder\n"
    "  make-photos --count 1 --size 16384x16384 --format png huge/   # one 805 MB RGB image\n"
    "  make-photos --count 1 --size 20000x20000 --gray --format png huge/\n"
    "\n"
    "Exit status: 0 all written; 1 an image could not be written; 2 usage error.\n";

typedef struct options {
    long count;
    uint32_t width, height;
    int png; /* 0 jpg, 1 png */
    int channels;
    int depth;
    uint64_t seed;
    int jobs;
    int quality;
    int png_level;
    int quiet;
    const char *prefix;
    const char *dir;
} options;

/* ---- deterministic randomness ------------------------------------------- */

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A stream of uniform numbers in [0, 1) for a scene's parameters. */
typedef struct rng {
    uint64_t state;
} rng;

static double rng_uniform(rng *r)
{
    r->state = mix64(r->state);
    return (double)(r->state >> 11) * (1.0 / 9007199254740992.0);
}

static float rng_range(rng *r, double lo, double hi)
{
    return (float)(lo + (hi - lo) * rng_uniform(r));
}

/* 32-bit hash of a lattice point: cheap enough to call per pixel. */
static inline uint32_t hash2(uint32_t key, int32_t x, int32_t y)
{
    uint32_t h = key ^ ((uint32_t)x * 0x27d4eb2du) ^ ((uint32_t)y * 0x165667b1u);
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    h *= 0x297a2d39u;
    h ^= h >> 15;
    return h;
}

static inline float hash_unit(uint32_t key, int32_t x, int32_t y) /* [0, 1) */
{
    return (float)(hash2(key, x, y) >> 8) * (1.0f / 16777216.0f);
}

/* ---- scenes --------------------------------------------------------------- */

typedef struct shape {
    int rect;              /* 0 ellipse, 1 rectangle */
    float cx, cy;          /* centre, pixels */
    float rx, ry;          /* half axes, pixels */
    float cs, sn;          /* rotation */
    float color[3];
    float shade;           /* darkening towards the rim / one side */
    float edge;            /* soft edge width, in units of the radius */
    float ymin, ymax;      /* rows the shape can touch */
} shape;

typedef struct scene {
    uint32_t key;
    float sky0[3], sky1[3], ground0[3], ground1[3];
    float horizon, tilt, blur; /* horizon row at x = 0, slope, half width of the blend */
    int nshapes;
    shape shapes[MAX_SHAPES];
    float tex_freq, tex_amp;
    float noise_amp;
} scene;

static void random_color(rng *r, float *c, double lo, double hi)
{
    for (int k = 0; k < 3; k++)
        c[k] = rng_range(r, lo, hi);
}

static void make_shape(rng *r, shape *s, float w, float h)
{
    float side = w < h ? w : h;
    s->rect = rng_uniform(r) < 0.4;
    s->cx = rng_range(r, -0.05, 1.05) * w;
    s->cy = rng_range(r, 0.1, 1.05) * h;
    s->rx = rng_range(r, 0.03, 0.25) * side;
    s->ry = s->rx * rng_range(r, 0.4, 1.6);
    double a = rng_range(r, 0.0, 3.14159265);
    s->cs = (float)cos(a);
    s->sn = (float)sin(a);
    random_color(r, s->color, 20.0, 235.0);
    s->shade = rng_range(r, 0.1, 0.5);
    s->edge = 1.5f / (s->rx < s->ry ? s->rx : s->ry) + rng_range(r, 0.0, 0.08);
    float reach = (s->rx > s->ry ? s->rx : s->ry) * 1.5f;
    s->ymin = s->cy - reach;
    s->ymax = s->cy + reach;
}

static void make_scene(scene *sc, const options *o, long index)
{
    rng r = {mix64(o->seed * 0x100000001b3ull + (uint64_t)index)};
    float w = (float)o->width, h = (float)o->height;
    sc->key = (uint32_t)mix64(r.state ^ 0x5bd1e995u);
    random_color(&r, sc->sky0, 120.0, 250.0);
    random_color(&r, sc->sky1, 40.0, 200.0);
    random_color(&r, sc->ground0, 30.0, 160.0);
    random_color(&r, sc->ground1, 10.0, 120.0);
    sc->horizon = rng_range(&r, 0.3, 0.7) * h;
    sc->tilt = rng_range(&r, -0.15, 0.15) * h / w;
    sc->blur = rng_range(&r, 0.002, 0.02) * h + 1.0f;
    sc->nshapes = 10 + (int)(rng_uniform(&r) * (MAX_SHAPES - 10));
    for (int i = 0; i < sc->nshapes; i++)
        make_shape(&r, &sc->shapes[i], w, h);
    float side = w < h ? w : h;
    sc->tex_freq = rng_range(&r, 30.0, 120.0) / side; /* coarsest octave: lattice cells */
    sc->tex_amp = rng_range(&r, 0.1, 0.3);
    sc->noise_amp = rng_range(&r, 1.5, 4.0);
}

/* Value noise: smooth interpolation of hashed lattice values, in [-0.5, 0.5). */
static inline float value_noise(uint32_t key, float x, float y)
{
    float fx = floorf(x), fy = floorf(y);
    int32_t ix = (int32_t)fx, iy = (int32_t)fy;
    float tx = x - fx, ty = y - fy;
    tx = tx * tx * (3.0f - 2.0f * tx);
    ty = ty * ty * (3.0f - 2.0f * ty);
    float a = hash_unit(key, ix, iy), b = hash_unit(key, ix + 1, iy);
    float c = hash_unit(key, ix, iy + 1), d = hash_unit(key, ix + 1, iy + 1);
    float top = a + (b - a) * tx, bottom = c + (d - c) * tx;
    return top + (bottom - top) * ty - 0.5f;
}

/* Four octaves of texture: a multiplicative brightness change around 1. */
static inline float texture(const scene *sc, float x, float y)
{
    float f = sc->tex_freq;
    float n = value_noise(sc->key, x * f, y * f) +
              0.6f * value_noise(sc->key + 1, x * 2.1f * f, y * 2.1f * f) +
              0.4f * value_noise(sc->key + 2, x * 4.3f * f, y * 4.3f * f) +
              0.3f * value_noise(sc->key + 3, x * 8.9f * f, y * 8.9f * f);
    return 1.0f + sc->tex_amp * n;
}

/* Mild sensor noise: triangular distribution of width 2 * amp. */
static inline float sensor_noise(const scene *sc, uint32_t x, uint32_t y)
{
    uint32_t h = hash2(sc->key ^ 0xa5a5a5a5u, (int32_t)x, (int32_t)y);
    float u = (float)(h & 0xffff) * (1.0f / 65536.0f), v = (float)(h >> 16) * (1.0f / 65536.0f);
    return (u + v - 1.0f) * sc->noise_amp;
}

static inline float clamp01(float t)
{
    return t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
}

/* Colour of one pixel before texture and noise. */
static inline void base_color(const scene *sc, const shape *const *active, int nactive, float x,
                              float y, float w, float h, float *rgb)
{
    float t_sky = clamp01(y / sc->horizon), t_ground = clamp01((y - sc->horizon) / (h - sc->horizon));
    float hz = sc->horizon + sc->tilt * x;
    float g = clamp01((y - hz) / (2.0f * sc->blur) + 0.5f); /* 0 sky .. 1 ground */
    float lx = x / w;
    for (int k = 0; k < 3; k++) {
        float sky = sc->sky0[k] + (sc->sky1[k] - sc->sky0[k]) * (0.7f * t_sky + 0.3f * lx);
        float ground = sc->ground0[k] + (sc->ground1[k] - sc->ground0[k]) * t_ground;
        rgb[k] = sky + (ground - sky) * g;
    }
    for (int i = 0; i < nactive; i++) {
        const shape *s = active[i];
        float dx = x - s->cx, dy = y - s->cy;
        float u = (dx * s->cs + dy * s->sn) / s->rx, v = (dy * s->cs - dx * s->sn) / s->ry;
        float d = s->rect ? fmaxf(fabsf(u), fabsf(v)) : sqrtf(u * u + v * v);
        if (d >= 1.0f)
            continue;
        float cover = clamp01((1.0f - d) / s->edge);
        float light = 1.0f - s->shade * (s->rect ? 0.5f * (u + 1.0f) : d * d);
        for (int k = 0; k < 3; k++)
            rgb[k] += (s->color[k] * light - rgb[k]) * cover;
    }
}

/* Render rows [y0, y1) of @p img. */
static void render_rows(const scene *sc, wt_image *img, uint32_t y0, uint32_t y1)
{
    float w = (float)img->width, h = (float)img->height;
    int c = img->channels;
    float peak = img->bit_depth > 8 ? 65535.0f : 255.0f, gain = peak / 255.0f;
    for (uint32_t y = y0; y < y1; y++) {
        const shape *active[MAX_SHAPES];
        int nactive = 0;
        float fy = (float)y + 0.5f;
        for (int i = 0; i < sc->nshapes; i++)
            if (fy >= sc->shapes[i].ymin && fy <= sc->shapes[i].ymax)
                active[nactive++] = &sc->shapes[i];
        size_t row = (size_t)y * img->width * (size_t)c;
        for (uint32_t x = 0; x < img->width; x++) {
            float fx = (float)x + 0.5f, rgb[3];
            base_color(sc, active, nactive, fx, fy, w, h, rgb);
            float tex = texture(sc, fx, fy), noise = sensor_noise(sc, x, y);
            if (c == 1)
                rgb[0] = 0.299f * rgb[0] + 0.587f * rgb[1] + 0.114f * rgb[2];
            for (int k = 0; k < c; k++) {
                float v = (rgb[k] * tex + noise) * gain;
                v = v < 0.0f ? 0.0f : (v > peak ? peak : v);
                if (img->bit_depth > 8)
                    ((uint16_t *)img->pixels)[row + (size_t)x * c + k] = (uint16_t)lrintf(v);
                else
                    ((uint8_t *)img->pixels)[row + (size_t)x * c + k] = (uint8_t)lrintf(v);
            }
        }
    }
}

/* ---- threads ---------------------------------------------------------------- */

typedef struct render_job {
    const scene *sc;
    wt_image *img;
} render_job;

static void render_range(void *ctx, size_t begin, size_t end)
{
    render_job *j = ctx;
    render_rows(j->sc, j->img, (uint32_t)begin, (uint32_t)end);
}

/* Render one image with @p threads threads sharing its rows. */
static void render_image(const scene *sc, wt_image *img, int threads)
{
    render_job job = {sc, img};
    wt_parallel_for(threads, img->height, render_range, &job);
}

typedef struct run_state {
    const options *o;
    int threads_per_image;
    atomic_long next;
    atomic_int failed;
    atomic_llong bytes;
} run_state;

static void file_path(char *path, size_t size, const options *o, long index)
{
    snprintf(path, size, "%s/%s%04ld.%s", o->dir, o->prefix, index, o->png ? "png" : "jpg");
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

static int make_one(run_state *rs, long index)
{
    const options *o = rs->o;
    scene sc;
    wt_image img;
    char path[4096];
    make_scene(&sc, o, index);
    file_path(path, sizeof path, o, index);
    wt_status st = wt_image_alloc(&img, o->width, o->height, o->channels, o->depth);
    if (st == WT_OK) {
        render_image(&sc, &img, rs->threads_per_image);
        wt_save_options save = {.png_level = o->png_level, .jpeg_quality = o->quality};
        st = wt_image_save(path, &img, &save, WT_FORMAT_UNKNOWN);
    }
    wt_image_free(&img);
    if (st != WT_OK) {
        fprintf(stderr, "make-photos: %s: %s\n", path, wt_error_message());
        return -1;
    }
    atomic_fetch_add(&rs->bytes, file_size(path));
    return 0;
}

/* Each of wt_parallel_for's workers makes images until none are left. */
static void image_workers(void *arg, size_t begin, size_t end)
{
    run_state *rs = arg;
    for (size_t w = begin; w < end; w++)
        for (;;) {
            long i = atomic_fetch_add(&rs->next, 1);
            if (i >= rs->o->count || atomic_load(&rs->failed))
                break;
            if (make_one(rs, i) != 0)
                atomic_store(&rs->failed, 1);
        }
}

/* ---- command line -------------------------------------------------------- */

static int usage_error(const char *fmt, const char *arg)
{
    fputs("make-photos: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry 'make-photos --help'.\n", stderr);
    return 2;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_size(const char *s, uint32_t *w, uint32_t *h)
{
    char *end;
    errno = 0;
    unsigned long a = strtoul(s, &end, 10);
    if (errno || end == s || (*end != 'x' && *end != 'X') || s[0] == '-')
        return -1;
    const char *hs = end + 1;
    unsigned long b = strtoul(hs, &end, 10);
    if (errno || end == hs || *end || hs[0] == '-' || a < 1 || b < 1 || a > 1u << 20 ||
        b > 1u << 20)
        return -1;
    *w = (uint32_t)a;
    *h = (uint32_t)b;
    return 0;
}

/* Options take their value as the next argument or after '='. */
static int parse_args(int argc, char **argv, options *o)
{
    *o = (options){50, 1920, 1080, 0, 3, 8, 1, 0, 90, -1, 0, "photo-", NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        char name[32];
        size_t len = strcspn(a, "=");
        if (a[0] == '-' && a[1] == '-' && a[len] == '=' && len < sizeof name) {
            memcpy(name, a, len);
            name[len] = '\0';
            val = a + len + 1;
            a = name;
        }
#define IS(s, l) (strcmp(a, s) == 0 || strcmp(a, l) == 0)
#define VALUE()                                                                                \
    (val ? val : (i + 1 < argc ? argv[++i] : NULL))
        long n;
        if (IS("-h", "--help")) {
            fputs(usage_text, stdout);
            exit(0);
        } else if (IS("-g", "--gray") && !val) {
            o->channels = 1;
        } else if (IS("-q", "--quiet") && !val) {
            o->quiet = 1;
        } else if (IS("-n", "--count")) {
            const char *v = VALUE();
            if (!v || parse_long(v, 1, 100000000, &n))
                return usage_error("--count: expected a number of images >= 1, got '%s'", v ? v : "");
            o->count = n;
        } else if (IS("-s", "--size")) {
            const char *v = VALUE();
            if (!v || parse_size(v, &o->width, &o->height))
                return usage_error("--size: expected WxH such as 1920x1080, got '%s'", v ? v : "");
        } else if (IS("-f", "--format")) {
            const char *v = VALUE();
            if (v && (strcmp(v, "jpg") == 0 || strcmp(v, "jpeg") == 0))
                o->png = 0;
            else if (v && strcmp(v, "png") == 0)
                o->png = 1;
            else
                return usage_error("--format: expected jpg or png, got '%s'", v ? v : "");
        } else if (IS("--depth", "--depth")) {
            const char *v = VALUE();
            if (!v || parse_long(v, 8, 16, &n) || (n != 8 && n != 16))
                return usage_error("--depth: expected 8 or 16, got '%s'", v ? v : "");
            o->depth = (int)n;
        } else if (IS("-S", "--seed")) {
            const char *v = VALUE();
            if (!v || parse_long(v, 0, 0x7fffffffL, &n))
                return usage_error("--seed: expected a number >= 0, got '%s'", v ? v : "");
            o->seed = (uint64_t)n;
        } else if (IS("-j", "--jobs")) {
            const char *v = VALUE();
            if (!v || parse_long(v, 0, MAX_THREADS, &n))
                return usage_error("--jobs: expected 0 (cores) to 256, got '%s'", v ? v : "");
            o->jobs = (int)n;
        } else if (IS("--quality", "--quality")) {
            const char *v = VALUE();
            if (!v || parse_long(v, 1, 100, &n))
                return usage_error("--quality: expected 1-100, got '%s'", v ? v : "");
            o->quality = (int)n;
        } else if (IS("--png-level", "--png-level")) {
            const char *v = VALUE();
            if (!v || parse_long(v, 0, 9, &n))
                return usage_error("--png-level: expected 0-9, got '%s'", v ? v : "");
            o->png_level = (int)n;
        } else if (IS("--prefix", "--prefix")) {
            const char *v = VALUE();
            if (!v || strchr(v, '/'))
                return usage_error("--prefix: expected a file name prefix without '/', got '%s'",
                                   v ? v : "");
            o->prefix = v;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option '%s'", argv[i]);
        } else if (!o->dir) {
            o->dir = a;
        } else {
            return usage_error("one output directory only (extra '%s')", a);
        }
#undef IS
#undef VALUE
    }
    if (!o->dir)
        return usage_error("%smissing output directory", "");
    if (o->depth == 16 && !o->png)
        return usage_error("%s--depth 16 needs --format png", "");
    if (!o->jobs)
        o->jobs = wt_cpu_count();
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc;
    if (mkdir(o.dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "make-photos: %s: %s\n", o.dir, strerror(errno));
        return 1;
    }
    double t0 = wt_seconds();
    /* enough images: one per thread; otherwise the threads share each image's rows */
    int workers = o.count >= o.jobs ? o.jobs : 1;
    run_state rs = {.o = &o, .threads_per_image = o.count >= o.jobs ? 1 : o.jobs};
    wt_parallel_for(workers, (size_t)workers, image_workers, &rs);
    if (atomic_load(&rs.failed))
        return 1;
    if (!o.quiet) {
        double dt = wt_seconds() - t0;
        fprintf(stderr, "make-photos: %ld %s image%s of %ux%u (%d-bit %s) in %s/ in %.1f s, %.1f MB\n",
                o.count, o.png ? "PNG" : "JPEG", o.count > 1 ? "s" : "", o.width, o.height,
                o.depth, o.channels == 1 ? "gray" : "RGB", o.dir, dt,
                (double)atomic_load(&rs.bytes) / 1e6);
    }
    return 0;
}
