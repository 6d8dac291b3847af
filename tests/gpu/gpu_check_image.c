/* gpu_check: the image paths, float images, GPU out of memory (harness and
 * shared declarations: gpu_check.c, gpu_check.h). */
#include "gpu_check.h"

/* ---------------------------------------------------------------------- */
/* Image paths against the CPU engine's composition
 *
 * forward_image: within the float tolerance (legall53 identical).
 * mosaic_image: identical to wt_mosaic_render of the GPU's own pyramid (the
 *   device render must be bit-exact); against the CPU engine's mosaic, whose
 *   pyramid differs within the float tolerance, differences are counted and
 *   allowed up to 1 LSB plus what a band's display gain makes of that
 *   tolerance (mosaic_allowance); none for legall53.
 * inverse_image, roundtrip_image: identical to wt_image_from_planes of the
 *   GPU's own float planes (wt_inverse); against the CPU engine, samples may
 *   differ only where the two engines' float planes lie on either side of a
 *   .5 rounding boundary (counted; none for legall53). */

#define SAMPLE_CANARY 0xA5

typedef struct image_case {
    const wt_wavelet *wavelet;
    wt_mode mode;
    wt_method method;
    uint32_t h, w;
    int channels, depth, levels;
    wt_scale scale;
    int pinned; /* image and outputs page-locked (wt_cuda_host_register) */
} image_case;

static void image_case_name(const image_case *c, char *buf, size_t size)
{
    static const char *const scales[] = {"auto", "abs", "offset"};
    snprintf(buf, size, "image %s %s %s %ux%u C=%d %d-bit L=%d scale %s%s", c->wavelet->name,
             wt_mode_name(c->mode), wt_method_name(c->method), c->h, c->w, c->channels, c->depth,
             c->levels, scales[c->scale], c->pinned ? " pinned" : "");
}

static unsigned sample_at(const wt_image *img, size_t i)
{
    return img->bit_depth > 8 ? ((const uint16_t *)img->pixels)[i]
                              : ((const uint8_t *)img->pixels)[i];
}

static size_t image_samples(const wt_image *img)
{
    return (size_t)img->width * img->height * (size_t)img->channels;
}

static void random_image(wt_image *img)
{
    for (size_t i = 0; i < image_samples(img); i++) {
        uint32_t v = rng_next();
        if (img->bit_depth > 8)
            ((uint16_t *)img->pixels)[i] = (uint16_t)v;
        else
            ((uint8_t *)img->pixels)[i] = (uint8_t)v;
    }
}

/* Coefficients of a real decomposition moved off the integers, so that the
 * reconstruction needs rounding and clamping. */
static void perturb_pyramid(wt_pyramid *p)
{
    for (size_t i = 0; i < p->total; i++)
        if (p->dtype == WT_INT32)
            ((int32_t *)p->data)[i] += rng_int(3);
        else
            ((float *)p->data)[i] += rng_sample() / 32.0f;
}

/* Samples of @p got that differ from @p ref; the largest difference. */
static long count_diff(const wt_image *ref, const wt_image *got, int *max_diff)
{
    long n = 0;
    *max_diff = 0;
    for (size_t i = 0; i < image_samples(ref); i++) {
        int d = abs((int)sample_at(ref, i) - (int)sample_at(got, i));
        n += d != 0;
        *max_diff = d > *max_diff ? d : *max_diff;
    }
    return n;
}

/* Differences between the CPU's samples and the GPU's that are not 1 apart
 * with the float planes straddling the rounding boundary between them. */
static long unexplained_rounding(const wt_image *cpu, const wt_image *gpu, const float *cpu_planes,
                                 const float *gpu_planes, long *on_boundary)
{
    size_t n = (size_t)cpu->width * cpu->height;
    long bad = 0;
    for (size_t i = 0; i < image_samples(cpu); i++) {
        int a = (int)sample_at(cpu, i), b = (int)sample_at(gpu, i);
        if (a == b)
            continue;
        size_t plane = (i % (size_t)cpu->channels) * n + i / (size_t)cpu->channels;
        float x = cpu_planes[plane], y = gpu_planes[plane];
        float mid = 0.5f * (float)(a + b); /* the boundary between the two samples */
        int straddles = abs(a - b) == 1 && (x - mid) * (y - mid) <= 0.0f && fabsf(x - y) < 0.5f;
        bad += !straddles;
        *on_boundary += straddles;
    }
    return bad;
}

typedef struct image_bufs {
    wt_image img, cpu, gpu, own;
    wt_pyramid ref, got;
    float *planes_cpu, *planes_gpu;
} image_bufs;

static wt_status image_bufs_alloc(const image_case *c, const wt_params *p, image_bufs *b)
{
    size_t n = (size_t)c->h * c->w * (size_t)c->channels;
    memset(b, 0, sizeof *b);
    wt_status s = wt_image_alloc(&b->img, c->w, c->h, c->channels, c->depth);
    if (s == WT_OK)
        s = wt_image_alloc(&b->cpu, c->w, c->h, c->channels, c->depth);
    if (s == WT_OK)
        s = wt_image_alloc(&b->gpu, c->w, c->h, c->channels, c->depth);
    if (s == WT_OK)
        s = wt_image_alloc(&b->own, c->w, c->h, c->channels, c->depth);
    if (s == WT_OK)
        s = wt_pyramid_alloc(&b->ref, p, c->h, c->w, c->channels);
    if (s == WT_OK)
        s = wt_pyramid_alloc(&b->got, p, c->h, c->w, c->channels);
    b->planes_cpu = malloc((n ? n : 1) * sizeof(float));
    b->planes_gpu = malloc((n ? n : 1) * sizeof(float));
    if (s == WT_OK && (!b->planes_cpu || !b->planes_gpu))
        s = WT_ERR_NOMEM;
    return s;
}

static void image_bufs_free(image_bufs *b)
{
    wt_image_free(&b->img);
    wt_image_free(&b->cpu);
    wt_image_free(&b->gpu);
    wt_image_free(&b->own);
    wt_pyramid_free(&b->ref);
    wt_pyramid_free(&b->got);
    free(b->planes_cpu);
    free(b->planes_gpu);
}

#if WT_HAVE_CUDA
/* *p (owned, @p bytes) moved to whole pages of its own, so that page-locking
 * one buffer never covers a page of another. */
static wt_status page_align(void **p, size_t bytes)
{
    void *q = NULL;
    size_t size = (bytes + 4095) / 4096 * 4096;
    if (posix_memalign(&q, 4096, size ? size : 4096) != 0)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    memcpy(q, *p, bytes);
    free(*p);
    *p = q;
    return WT_OK;
}
#endif

/* Page-lock (or release) the GPU engine's inputs and outputs of a case. */
static wt_status pin_bufs(const engines *en, image_bufs *b, int on)
{
#if WT_HAVE_CUDA
    wt_status s = WT_OK;
    if (on)
        s = page_align(&b->img.pixels, wt_image_bytes(&b->img));
    if (on && s == WT_OK)
        s = page_align(&b->gpu.pixels, wt_image_bytes(&b->gpu));
    if (on && s == WT_OK)
        s = page_align(&b->got.data, b->got.total * 4);
    if (s == WT_OK)
        s = wt_cuda_host_register(en->gpu, b->img.pixels, wt_image_bytes(&b->img), on);
    if (s == WT_OK)
        s = wt_cuda_host_register(en->gpu, b->gpu.pixels, wt_image_bytes(&b->gpu), on);
    if (s == WT_OK)
        s = wt_cuda_host_register(en->gpu, b->got.data, b->got.total * 4, on);
    return s;
#else
    (void)en, (void)b, (void)on;
    return WT_OK;
#endif
}

/* forward_image: GPU pyramid (canary-filled first) against the CPU's. */
static int check_forward_image(const engines *en, const image_case *c, const wt_params *p,
                               image_bufs *b, stats *st, const char *name)
{
    fill_canary(b->got.data, b->got.total);
    wt_status s = wt_forward_image(en->cpu, p, &b->img, &b->ref);
    if (s == WT_OK)
        s = wt_forward_image(en->gpu, p, &b->img, &b->got);
    if (s != WT_OK) {
        fprintf(stderr, "FAIL %s forward_image: %s\n", name, wt_error_message());
        return 1;
    }
    int integer = b->ref.dtype == WT_INT32;
    double max_ref, err = relative_error(b->ref.data, b->got.data, b->ref.total, integer, &max_ref);
    check_case cc = {c->wavelet, c->mode, c->method, c->h, c->w, c->channels, c->levels, 0, 0, 0};
    int fail = integer ? err != 0.0 : !(err <= tolerance(&cc));
    if (fail || st->verbose)
        fprintf(stderr, "%s %s forward_image: rel err %.3g (max|cpu| %.4g)\n",
                fail ? "FAIL" : "ok  ", name, err, max_ref);
    return fail;
}

/* Range of a band of @p p over all channels: the denominator of its display
 * gain (max - min for cA; max|v|, or 2 max|v| for offset scaling). */
static double band_span(const wt_pyramid *p, int level, wt_band band, wt_scale scale)
{
    size_t h, w, first = wt_pyramid_offset(p, level, band, 0);
    wt_pyramid_band_shape(p, level, band, &h, &w);
    double lo = INFINITY, hi = -INFINITY, maxabs = 0.0;
    for (size_t i = 0; i < h * w * (size_t)p->channels; i++) {
        double v = p->dtype == WT_INT32 ? ((const int32_t *)p->data)[first + i]
                                        : ((const float *)p->data)[first + i];
        lo = fmin(lo, v);
        hi = fmax(hi, v);
        maxabs = fmax(maxabs, fabs(v));
    }
    if (band == WT_BAND_A)
        return hi > lo ? hi - lo : 0.0;
    return scale == WT_SCALE_OFFSET ? 2.0 * maxabs : maxabs;
}

/* The allowance of one band (see mosaic_allowance) over its rectangle. */
static void band_allowance(const wt_pyramid *ref, int level, wt_band band, size_t y0, size_t x0,
                           wt_scale scale, double peak, double tol_abs, double *allow, size_t mw)
{
    size_t h, w;
    wt_pyramid_band_shape(ref, level, band, &h, &w);
    double span = band_span(ref, level, band, scale);
    double a = span > 0.0 ? 1.0 + peak * 3.0 * tol_abs / span : peak;
    a = tol_abs == 0.0 ? 0.0 : (a > peak ? peak : a);
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++)
            allow[(y0 + y) * mw + x0 + x] = a;
}

/* How far two mosaics of pyramids that agree within @p tol_abs may differ,
 * per mosaic pixel, in wt_mosaic_render's layout: 1 LSB of rounding plus
 * the band's display gain times 3 tol_abs (the value and both ends of the
 * range each off by tol_abs). A band whose span is not far above tol_abs
 * (a detail band of a one-row image is rounding noise around 0) may differ
 * by anything. tol_abs 0: identical. */
static void mosaic_allowance(const wt_pyramid *ref, wt_scale scale, double peak, double tol_abs,
                             double *allow, size_t mw)
{
    size_t ah = ref->lo_h[ref->levels], aw = ref->lo_w[ref->levels];
    band_allowance(ref, ref->levels, WT_BAND_A, 0, 0, scale, peak, tol_abs, allow, mw);
    for (int l = ref->levels; l >= 1; l--) {
        band_allowance(ref, l, WT_BAND_H, ah, 0, scale, peak, tol_abs, allow, mw);
        band_allowance(ref, l, WT_BAND_V, 0, aw, scale, peak, tol_abs, allow, mw);
        band_allowance(ref, l, WT_BAND_D, ah, aw, scale, peak, tol_abs, allow, mw);
        ah += ref->hi_h[l];
        aw += ref->hi_w[l];
    }
}

/* GPU mosaic against the CPU's within mosaic_allowance; returns the samples
 * beyond it, counts the differing ones and the largest difference where
 * the allowance is 1 LSB. */
static long mosaic_vs_cpu(const image_case *c, const wt_pyramid *ref, const wt_image *cpu,
                          const wt_image *gpu, long *differ, int *max_tight)
{
    size_t npix = (size_t)cpu->width * cpu->height;
    double *allow = malloc((npix ? npix : 1) * sizeof *allow), peak = c->depth > 8 ? 65535 : 255;
    check_case cc = {c->wavelet, c->mode, c->method, c->h, c->w, c->channels, c->levels, 0, 0, 0};
    double max_ref;
    relative_error(ref->data, ref->data, ref->total, ref->dtype == WT_INT32, &max_ref);
    *differ = 0;
    *max_tight = 0;
    if (!allow)
        return -1;
    for (size_t i = 0; i < npix; i++)
        allow[i] = 0.0; /* pixels of no band are 0 in both */
    mosaic_allowance(ref, c->scale, peak, c->wavelet->integer ? 0.0 : tolerance(&cc) * max_ref,
                     allow, cpu->width);
    long bad = 0;
    for (size_t i = 0; i < image_samples(cpu); i++) {
        int d = abs((int)sample_at(cpu, i) - (int)sample_at(gpu, i));
        double a = allow[i / (size_t)cpu->channels];
        *differ += d != 0;
        bad += d > a;
        if (a < 2.0 && d > *max_tight)
            *max_tight = d;
    }
    free(allow);
    return bad;
}

/* wt_mosaic_image into a mosaic kept from an earlier call: drawn into the same
 * pixels (filled with a canary first), equal to @p drawn. */
static int check_kept_mosaic(const engines *en, const image_case *c, const wt_params *p,
                             image_bufs *b, const wt_image *drawn, const char *name)
{
    wt_image kept;
    size_t bytes = wt_image_bytes(drawn);
    int fail = wt_image_alloc(&kept, drawn->width, drawn->height, drawn->channels,
                              drawn->bit_depth) != WT_OK;
    void *pixels = kept.pixels;
    if (!fail) {
        memset(kept.pixels, 0xA5, bytes);
        fail = wt_mosaic_image(en->gpu, p, &b->img, c->scale, c->depth, &kept) != WT_OK ||
               kept.pixels != pixels || memcmp(kept.pixels, drawn->pixels, bytes) != 0;
    }
    if (fail)
        fprintf(stderr, "FAIL %s mosaic_image into a kept mosaic: %s\n", name,
                kept.pixels != pixels ? "buffer replaced or call failed" : "pixels differ");
    wt_image_free(&kept);
    return fail;
}

/* wt_pixel_room.reserve of a room of fixed size. */
static int fixed_room(wt_pixel_room *room, size_t bytes)
{
    return bytes <= room->size;
}

/* wt_mosaic_image of the image copied into wt_engine_host_alloc memory, into
 * a mosaic borrowing such memory (a file worker's pixel rooms, cli/pipeline.c;
 * canary-filled): drawn into the room (direct copies), equal to @p drawn, the
 * room's memory not freed by wt_image_free. */
static int check_room_mosaic(const engines *en, const image_case *c, const wt_params *p,
                             const image_bufs *b, const wt_image *drawn, const char *name)
{
    size_t in_bytes = wt_image_bytes(&b->img), out_bytes = wt_image_bytes(drawn);
    wt_pixel_room in = {wt_engine_host_alloc(en->gpu, in_bytes), in_bytes, fixed_room, NULL};
    wt_pixel_room out = {wt_engine_host_alloc(en->gpu, out_bytes), out_bytes, fixed_room, NULL};
    wt_image img = {0}, mosaic = {0};
    int fail = !in.data || !out.data ||
               wt_image_alloc_in(&img, &in, b->img.width, b->img.height, b->img.channels,
                                 b->img.bit_depth) != WT_OK ||
               wt_image_alloc_in(&mosaic, &out, drawn->width, drawn->height, drawn->channels,
                                 drawn->bit_depth) != WT_OK ||
               img.pixels != in.data || mosaic.pixels != out.data;
    if (!fail) {
        memcpy(img.pixels, b->img.pixels, in_bytes);
        memset(mosaic.pixels, 0xA5, out_bytes);
        fail = wt_mosaic_image(en->gpu, p, &img, c->scale, c->depth, &mosaic) != WT_OK ||
               mosaic.pixels != out.data || memcmp(mosaic.pixels, drawn->pixels, out_bytes) != 0;
    }
    if (fail)
        fprintf(stderr, "FAIL %s mosaic_image in pixel rooms: %s\n", name,
                mosaic.pixels != out.data ? "room not used, or the call failed" : "pixels differ");
    wt_image_free(&img); /* (borrowed: only forgotten) */
    wt_image_free(&mosaic);
    wt_engine_host_free(en->gpu, in.data);
    wt_engine_host_free(en->gpu, out.data);
    return fail;
}

/* mosaic_image: against the render of the GPU's pyramid (b->got, from
 * check_forward_image), and against the CPU engine's mosaic within the
 * allowance of the pyramids' tolerance. */
static int check_mosaic_image(const engines *en, const image_case *c, const wt_params *p,
                              image_bufs *b, stats *st, const char *name)
{
    wt_image cpu = {0}, gpu = {0}, own = {0};
    wt_status s = wt_mosaic_image(en->cpu, p, &b->img, c->scale, c->depth, &cpu);
    if (s == WT_OK)
        s = wt_mosaic_image(en->gpu, p, &b->img, c->scale, c->depth, &gpu);
    if (s == WT_OK)
        s = wt_mosaic_render(&b->got, c->scale, c->depth, &own);
    int fail = s != WT_OK;
    if (fail) {
        fprintf(stderr, "FAIL %s mosaic_image: %s\n", name, wt_error_message());
    } else if (gpu.width != cpu.width || gpu.height != cpu.height) {
        fprintf(stderr, "FAIL %s mosaic_image: %ux%u, cpu %ux%u\n", name, gpu.width, gpu.height,
                cpu.width, cpu.height);
        fail = 1;
    } else {
        int own_max, tight, k = c->depth > 8;
        long own_n = count_diff(&own, &gpu, &own_max), cpu_n;
        long bad = mosaic_vs_cpu(c, &b->ref, &cpu, &gpu, &cpu_n, &tight);
        st->mosaic_own_diff += own_n;
        st->mosaic_cpu_diff += cpu_n;
        st->mosaic_cpu_lsb[k] = tight > st->mosaic_cpu_lsb[k] ? tight : st->mosaic_cpu_lsb[k];
        fail = own_n != 0 || bad != 0;
        if (fail || st->verbose)
            fprintf(stderr, "%s %s mosaic_image: %ld samples differ from the render of the GPU "
                    "pyramid; %ld from the CPU mosaic (%ld beyond the pyramid tolerance; max "
                    "%d LSB in bands where it is under 1 LSB)\n", fail ? "FAIL" : "ok  ", name,
                    own_n, cpu_n, bad, tight);
    }
    if (!fail) /* drawn again into the kept mosaic (canary-filled): the same pixels */
        fail = check_kept_mosaic(en, c, p, b, &gpu, name);
    if (!fail) /* drawn from and into page-locked rooms: the same pixels */
        fail = check_room_mosaic(en, c, p, b, &gpu, name);
    wt_image_free(&cpu);
    wt_image_free(&gpu);
    wt_image_free(&own);
    return fail;
}

/* b->cpu and b->gpu against each other and b->own (from b->planes_gpu). */
static int compare_reconstructions(const image_case *c, image_bufs *b, stats *st,
                                   const char *name, const char *what)
{
    int own_max, cpu_max;
    wt_image_from_planes(&b->own, b->planes_gpu);
    long own_n = count_diff(&b->own, &b->gpu, &own_max);
    long cpu_n = count_diff(&b->cpu, &b->gpu, &cpu_max), boundary = 0;
    long bad = unexplained_rounding(&b->cpu, &b->gpu, b->planes_cpu, b->planes_gpu, &boundary);
    st->round_diff += boundary;
    int fail = own_n != 0 || bad != 0 || (c->wavelet->integer && cpu_n != 0);
    if (fail || st->verbose)
        fprintf(stderr, "%s %s %s: %ld samples differ from the GPU's own planes rounded; %ld "
                "from the CPU (%ld on a .5 boundary, %ld not)\n", fail ? "FAIL" : "ok  ", name,
                what, own_n, cpu_n, boundary, bad);
    return fail;
}

/* inverse_image of the CPU pyramid (b->ref, moved off the integers). */
static int check_inverse_image(const engines *en, const wt_params *p, const image_case *c,
                               image_bufs *b, stats *st, const char *name)
{
    perturb_pyramid(&b->ref);
    memset(b->gpu.pixels, SAMPLE_CANARY, wt_image_bytes(&b->gpu));
    wt_status s = wt_inverse_image(en->cpu, p, &b->ref, &b->cpu);
    if (s == WT_OK)
        s = wt_inverse_image(en->gpu, p, &b->ref, &b->gpu);
    if (s == WT_OK)
        s = wt_inverse(en->cpu, p, &b->ref, b->planes_cpu);
    if (s == WT_OK)
        s = wt_inverse(en->gpu, p, &b->ref, b->planes_gpu);
    if (s != WT_OK) {
        fprintf(stderr, "FAIL %s inverse_image: %s\n", name, wt_error_message());
        return 1;
    }
    return compare_reconstructions(c, b, st, name, "inverse_image");
}

/* roundtrip_image, and the same through the float paths of each engine. */
static int check_roundtrip_image(const engines *en, const wt_params *p, const image_case *c,
                                 image_bufs *b, stats *st, const char *name)
{
    memset(b->gpu.pixels, SAMPLE_CANARY, wt_image_bytes(&b->gpu));
    wt_status s = wt_roundtrip_image(en->cpu, p, &b->img, &b->cpu);
    if (s == WT_OK)
        s = wt_roundtrip_image(en->gpu, p, &b->img, &b->gpu);
    for (int k = 0; k < 2 && s == WT_OK; k++) {
        wt_engine *e = k ? en->gpu : en->cpu;
        wt_pyramid *pyr = k ? &b->got : &b->ref;
        float *planes = k ? b->planes_gpu : b->planes_cpu;
        s = wt_image_to_planes(&b->img, planes);
        if (s == WT_OK)
            s = wt_forward(e, p, planes, pyr);
        if (s == WT_OK)
            s = wt_inverse(e, p, pyr, planes);
    }
    if (s != WT_OK) {
        fprintf(stderr, "FAIL %s roundtrip_image: %s\n", name, wt_error_message());
        return 1;
    }
    return compare_reconstructions(c, b, st, name, "roundtrip_image");
}

static int run_image_case(const engines *en, const image_case *c, stats *st)
{
    char name[200];
    wt_params p = {c->wavelet, c->mode, c->method, c->levels};
    image_bufs b;
    image_case_name(c, name, sizeof name);
    rng_seed(case_seed(st->seed, name));
    st->img_cases++;
    wt_status s = image_bufs_alloc(c, &p, &b);
    if (s == WT_OK && c->pinned)
        s = pin_bufs(en, &b, 1);
    int fail = 0;
    if (s != WT_OK) {
        fprintf(stderr, "FAIL %s: %s\n", name, wt_error_message());
        fail = 1;
    } else {
        random_image(&b.img);
        fail |= check_forward_image(en, c, &p, &b, st, name);
        fail |= check_mosaic_image(en, c, &p, &b, st, name);
        fail |= check_roundtrip_image(en, &p, c, &b, st, name);
        fail |= check_inverse_image(en, &p, c, &b, st, name); /* last: perturbs b.ref */
        if (c->pinned)
            pin_bufs(en, &b, 0);
    }
    if (fail)
        fprintf(stderr, "  replay: gpu_check --seed %llu --images-only --wavelet %s\n",
                (unsigned long long)st->seed, c->wavelet->name);
    st->img_failed += fail;
    image_bufs_free(&b);
    return fail;
}

/* Wavelets, modes and methods of the image cases: short and long filters,
 * lifting, integer, the extrapolating modes. */
static const struct {
    const char *wavelet;
    wt_mode mode;
    wt_method method;
} image_configs[] = {
    {"haar", WT_MODE_SYMMETRIC, WT_METHOD_CONV},
    {"haar", WT_MODE_PERIODIZATION, WT_METHOD_LIFTING},
    {"db3", WT_MODE_SYMMETRIC, WT_METHOD_CONV},
    {"db3", WT_MODE_PERIODIZATION, WT_METHOD_LIFTING},
    {"bior4.4", WT_MODE_REFLECT, WT_METHOD_CONV},
    {"cdf97", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING},
    {"legall53", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING},
    {"legall53", WT_MODE_PERIODIZATION, WT_METHOD_LIFTING},
    {"db20", WT_MODE_ZERO, WT_METHOD_CONV},
    {"sym5", WT_MODE_SMOOTH, WT_METHOD_CONV},
    {"coif3", WT_MODE_ANTIREFLECT, WT_METHOD_CONV},
    {"dmey", WT_MODE_PERIODIC, WT_METHOD_CONV},
};

/* 1x1, a row, a column, odd, prime, non-square, medium. */
static const struct {
    uint32_t h, w;
} image_shapes[] = {
    {1, 1}, {1, 17}, {19, 1}, {7, 7}, {13, 17}, {31, 64}, {64, 31}, {37, 41}, {100, 5}, {97, 130},
};

void check_images(const engines *en, const char *only, int quick, int large, stats *st)
{
    size_t nshapes = sizeof image_shapes / sizeof image_shapes[0];
    wt_engine_set_threads(en->cpu, 0);
    for (size_t i = 0; i < sizeof image_configs / sizeof image_configs[0]; i++) {
        const wt_wavelet *w = wt_wavelet_find(image_configs[i].wavelet);
        if (only && strcmp(only, w->name) != 0)
            continue;
        for (size_t s = 0; s < nshapes; s++) {
            if (quick && (s + i) % 3 != 0)
                continue;
            size_t k = i + s; /* vary channels, depth, levels and scale over the cases */
            image_case c = {w, image_configs[i].mode, image_configs[i].method,
                            image_shapes[s].h, image_shapes[s].w, 1 + (int)(k % 4),
                            k % 2 ? 16 : 8, 1, (wt_scale)(k % 3), 0};
            int maxl = wt_max_level(c.h, c.w, w);
            c.levels = s == 0 ? 0 : (k % 3 == 0 ? 1 : (maxl < 1 ? 1 : (maxl > 4 ? 4 : maxl)));
            c.pinned = WT_HAVE_CUDA && s == nshapes - 1 && i % 4 == 0;
            run_image_case(en, &c, st);
        }
    }
    if (!large || quick)
        return;
    static const image_case big[] = {
        {NULL, WT_MODE_SYMMETRIC, WT_METHOD_CONV, 4096, 4096, 1, 8, 3, WT_SCALE_AUTO, 0},
        {NULL, WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 4099, 4097, 1, 8, 3, WT_SCALE_OFFSET, 0},
        {NULL, WT_MODE_PERIODIZATION, WT_METHOD_LIFTING, 2048, 3001, 3, 16, 4, WT_SCALE_ABS, 1},
    };
    static const char *const big_wavelets[] = {"haar", "cdf97", "legall53"};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        image_case c = big[i];
        c.wavelet = wt_wavelet_find(big_wavelets[i]);
        c.pinned = c.pinned && WT_HAVE_CUDA;
        if (!only || strcmp(only, c.wavelet->name) == 0)
            run_image_case(en, &c, st);
    }
}

/* Float32 samples and more than 4 channels (issue 16): the image paths take
 * host planes and the engine's float transforms; forward and roundtrip on the
 * GPU equal the CPU engine's within the float tolerance. */
static int float_image_case(const engines *en, const wt_wavelet *w, uint32_t h, uint32_t wd,
                            int channels, stats *st)
{
    char name[160];
    wt_params p = {w, WT_MODE_SYMMETRIC, WT_METHOD_CONV, 2};
    wt_image img = {0}, back_cpu = {0}, back_gpu = {0};
    wt_pyramid ref = {0}, got = {0};
    snprintf(name, sizeof name, "float32 image %s %ux%u C=%d", w->name, h, wd, channels);
    rng_seed(case_seed(st->seed, name));
    st->img_cases++;
    wt_status s = wt_image_alloc(&img, wd, h, channels, WT_DEPTH_F32);
    if (s == WT_OK)
        s = wt_image_alloc(&back_cpu, wd, h, channels, WT_DEPTH_F32);
    if (s == WT_OK)
        s = wt_image_alloc(&back_gpu, wd, h, channels, WT_DEPTH_F32);
    if (s == WT_OK)
        s = wt_pyramid_alloc(&ref, &p, h, wd, channels);
    if (s == WT_OK)
        s = wt_pyramid_alloc(&got, &p, h, wd, channels);
    for (size_t i = 0; s == WT_OK && i < image_samples(&img); i++)
        ((float *)img.pixels)[i] = 1000.0f * rng_sample();
    if (s == WT_OK)
        s = wt_forward_image(en->cpu, &p, &img, &ref);
    if (s == WT_OK)
        s = wt_forward_image(en->gpu, &p, &img, &got);
    if (s == WT_OK)
        s = wt_roundtrip_image(en->cpu, &p, &img, &back_cpu);
    if (s == WT_OK)
        s = wt_roundtrip_image(en->gpu, &p, &img, &back_gpu);
    double max_ref = 0, err_fwd = 1, err_back = 1;
    if (s == WT_OK) {
        err_fwd = relative_error(ref.data, got.data, ref.total, 0, &max_ref);
        err_back = relative_error(back_cpu.pixels, back_gpu.pixels, image_samples(&img), 0,
                                  &max_ref);
    }
    int fail = s != WT_OK || !(err_fwd <= TOLERANCE) || !(err_back <= TOLERANCE);
    if (fail || st->verbose)
        fprintf(stderr, "%s %s: forward rel err %.3g, roundtrip %.3g%s%s\n", fail ? "FAIL" : "ok  ",
                name, err_fwd, err_back, s != WT_OK ? ": " : "", s != WT_OK ? wt_error_message() : "");
    st->img_failed += fail;
    wt_image_free(&img);
    wt_image_free(&back_cpu);
    wt_image_free(&back_gpu);
    wt_pyramid_free(&ref);
    wt_pyramid_free(&got);
    return fail;
}

void check_float_images(const engines *en, stats *st)
{
    static const char *const wavelets[] = {"haar", "db4", "bior4.4"};
    static const uint32_t sizes[][2] = {{1, 1}, {37, 53}, {256, 129}};
    static const int channels[] = {1, 3, 6};
    for (size_t i = 0; i < 3; i++)
        for (size_t k = 0; k < 3; k++)
            float_image_case(en, wt_wavelet_find(wavelets[i]), sizes[k][0], sizes[k][1],
                             channels[(i + k) % 3], st);
}

/* WT_CUDA_MEM_LIMIT=1M: a 512x512 RGB mosaic fails with WT_ERR_DEVICE_NOMEM
 * and a "GPU out of memory" message; the engine still serves a small image;
 * reopened without the cap, the large one works. */
void check_oom(stats *st)
{
    wt_params p = {wt_wavelet_find("haar"), WT_MODE_SYMMETRIC, WT_METHOD_AUTO, 3};
    wt_image big = {0}, small = {0}, m = {0};
    wt_engine *e = NULL;
    int fail = 0;
    st->img_cases++;
    wt_env_knobs *knobs = wt_env_override(); /* WT_CUDA_MEM_LIMIT=1M for this engine */
    const char *was = knobs->cuda_mem_limit;
    knobs->cuda_mem_limit = "1M";
    wt_status s = wt_engine_open(&e, "cuda");
    knobs->cuda_mem_limit = was;
    if (s == WT_OK)
        s = wt_image_alloc(&big, 512, 512, 3, 8);
    if (s == WT_OK)
        s = wt_image_alloc(&small, 8, 5, 1, 8);
    if (s != WT_OK) {
        fprintf(stderr, "FAIL oom: setup: %s\n", wt_error_message());
        st->img_failed++;
        wt_image_free(&big);
        wt_image_free(&small);
        if (e)
            wt_engine_close(e);
        return;
    }
    s = wt_mosaic_image(e, &p, &big, WT_SCALE_AUTO, 8, &m);
    fail |= s != WT_ERR_DEVICE_NOMEM || !strstr(wt_error_message(), "GPU out of memory");
    printf("gpu_check: oom: WT_CUDA_MEM_LIMIT=1M, 512x512 RGB mosaic: status %d: %s\n", (int)s,
           wt_error_message());
    s = wt_mosaic_image(e, &p, &small, WT_SCALE_AUTO, 8, &m); /* fits under the cap */
    fail |= s != WT_OK;
    wt_image_free(&m);
    wt_engine_close(e);
    s = wt_engine_open(&e, "cuda");
    if (s == WT_OK) {
        s = wt_mosaic_image(e, &p, &big, WT_SCALE_AUTO, 8, &m);
        wt_engine_close(e);
    }
    fail |= s != WT_OK;
    if (fail)
        fprintf(stderr, "FAIL oom: %s\n", s != WT_OK ? wt_error_message() : "wrong status");
    st->img_failed += fail;
    wt_image_free(&m);
    wt_image_free(&big);
    wt_image_free(&small);
}
