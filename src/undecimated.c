/* Undecimated transforms on the host: the stationary wavelet transform (SWT,
 * = pywt.swt2 / iswt2) and the isotropic undecimated starlet (B3-spline à
 * trous), any size.
 *
 * Both are separable filterings that keep the length of each axis, passes of
 * the axis core (axis_filter.h) along x and y of each channel's plane with
 * the shifts, steps, gains and kernel of undecimated_geometry.h (shared with
 * the CUDA engine). SWT: periodic border (the polyphase identity of a
 * perfect-reconstruction filter bank holds modulo z^N - 1); starlet: mirror,
 * periodic or nearest border. */
#include <stdlib.h>
#include <string.h>

#include "axis_filter.h"
#include "engine_impl.h"
#include "undecimated_geometry.h"

/* ---- names ----------------------------------------------------------------- */

static const char *const transform_names[] = {"dwt", "swt", "starlet"};
static const char *const border_names[] = {"mirror", "periodic", "nearest"};

/* The index of @p name in @p names (one of the tables above), or -1 with the
 * error "unknown KIND 'name' (the three names)" set. */
static int parse_name(const char *const names[3], const char *kind, const char *name)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    wt_error_set(WT_ERR_INVALID, "unknown %s '%s' (%s, %s, %s)", kind, name, names[0], names[1],
                 names[2]);
    return -1;
}

/* names[i], "?" out of range */
static const char *name_of(const char *const names[3], unsigned i)
{
    return i < 3 ? names[i] : "?";
}

wt_status wt_transform_parse(const char *name, wt_transform *t)
{
    int i = parse_name(transform_names, "transform", name);
    if (i >= 0)
        *t = (wt_transform)i;
    return i >= 0 ? WT_OK : WT_ERR_INVALID;
}

const char *wt_transform_name(wt_transform t)
{
    return name_of(transform_names, (unsigned)t);
}

wt_status wt_border_parse(const char *name, wt_border *b)
{
    int i = parse_name(border_names, "border", name);
    if (i >= 0)
        *b = (wt_border)i;
    return i >= 0 ? WT_OK : WT_ERR_INVALID;
}

const char *wt_border_name(wt_border b)
{
    return name_of(border_names, (unsigned)b);
}

/* ---- shapes ------------------------------------------------------------------ */

int wt_ustack_bands(const wt_uparams *p)
{
    if (p->transform == WT_TRANSFORM_STARLET)
        return p->levels + 1;
    return 1 + 3 * p->levels + (p->all_approx ? p->levels - 1 : 0);
}

int wt_ustack_index(const wt_uparams *p, int level, wt_band band)
{
    int L = p->levels;
    if (p->transform == WT_TRANSFORM_STARLET)
        return level >= 0 && level <= L ? level : -1;
    if (level < 1 || level > L || (unsigned)band > WT_BAND_D)
        return -1;
    if (band != WT_BAND_A)
        return 1 + 3 * (L - level) + (int)band - 1;
    if (level == L)
        return 0;
    return p->all_approx ? 1 + 3 * L + level - 1 : -1;
}

static int floor_log2(size_t n)
{
    int k = 0;
    while (n > 1) {
        n >>= 1;
        k++;
    }
    return k;
}

int wt_umax_level(const wt_uparams *p, size_t height, size_t width)
{
    size_t n = height < width ? height : width;
    int k = 0;
    if (p->transform == WT_TRANSFORM_SWT)
        while (n > 1 && n % 2 == 0) { /* pywt.swt_max_level */
            n /= 2;
            k++;
        }
    else
        k = floor_log2(n);
    k = k < 1 ? 1 : k;
    return k > WT_MAX_LEVELS ? WT_MAX_LEVELS : k;
}

wt_status wt_uparams_check(const wt_uparams *p, size_t height, size_t width)
{
    if (p->transform != WT_TRANSFORM_SWT && p->transform != WT_TRANSFORM_STARLET)
        return wt_error_set(WT_ERR_INVALID, "not an undecimated transform");
    if (p->levels < 1 || p->levels > WT_MAX_LEVELS)
        return wt_error_set(WT_ERR_INVALID, "%s: levels must be between 1 and %d",
                            wt_transform_name(p->transform), WT_MAX_LEVELS);
    if (height < 1 || width < 1)
        return wt_error_set(WT_ERR_INVALID, "empty image");
    if (p->transform == WT_TRANSFORM_STARLET)
        return (unsigned)p->border < 3 ? WT_OK : wt_error_set(WT_ERR_INVALID, "unknown border");
    if (!p->wavelet)
        return wt_error_set(WT_ERR_INVALID, "swt: no wavelet");
    if (p->wavelet->kind != WT_KIND_FILTER_BANK)
        return wt_error_set(WT_ERR_INVALID,
                            "swt: %s is a JPEG 2000 wavelet; the SWT takes filter-bank "
                            "wavelets (bior4.4 for cdf97, bior2.2 for legall53)",
                            p->wavelet->name);
    if (p->wavelet->filter_len > WT_UTAPS)
        return wt_error_set(WT_ERR_UNSUPPORTED, "swt: %s has more than %d taps",
                            p->wavelet->name, WT_UTAPS);
    if (p->start_level < 0 || p->start_level + p->levels > WT_MAX_LEVELS)
        return wt_error_set(WT_ERR_INVALID,
                            "swt: start level %d + %d levels is more than %d", p->start_level,
                            p->levels, WT_MAX_LEVELS);
    return WT_OK;
}

/* ---- levels of a plane ------------------------------------------------------ */

/* One channel's h x w plane at @p data. */
static wt_array_view plane_view(const float *data, size_t h, size_t w)
{
    return wt_view_image((float *)data /* read only where an input */, WT_FLOAT32, 1, h, w);
}

/* ---- SWT -------------------------------------------------------------------- */

/* The low- and high-pass filters of SWT level @p j: analysis, or
 * (@p inverse) synthesis. */
static void swt_filters(const wt_uparams *p, int j, int inverse, wt_filter_spec *lo,
                        wt_filter_spec *hi)
{
    const wt_wavelet *wl = p->wavelet;
    const size_t step = (size_t)wt_utap_step(j);
    const long long shift = wt_swt_shift(wl->filter_len, (long long)step, inverse);
    const double g = wt_swt_gain(p->norm, inverse);
    *lo = (wt_filter_spec){inverse ? wl->rec_lo : wl->dec_lo, wl->filter_len, g, step, shift};
    *hi = (wt_filter_spec){inverse ? wl->rec_hi : wl->dec_hi, wl->filter_len, g, step, shift};
}

/* Work planes of one channel: 4 of h x w. */
typedef struct swt_work {
    float *lo, *hi, *c0, *c1;
} swt_work;

static wt_status work_alloc(size_t plane, int count, float **buf)
{
    if (plane > SIZE_MAX / sizeof(float) / (size_t)count)
        return wt_error_set(WT_ERR_LIMIT, "image too large for the undecimated transform");
    *buf = malloc(plane * (size_t)count * sizeof(float));
    return *buf ? WT_OK
                : wt_error_set(WT_ERR_NOMEM, "out of memory (%zu MiB of work planes)",
                               plane * (size_t)count * sizeof(float) >> 20);
}

/* The bands of an SWT level in the axis core's order: A, V, H, D. */
static void level_views(size_t h, size_t w, const float *a, const float *bh, const float *bv,
                        const float *bd, wt_array_view views[4])
{
    views[0] = plane_view(a, h, w);
    views[1] = plane_view(bv, h, w);
    views[2] = plane_view(bh, h, w);
    views[3] = plane_view(bd, h, w);
}

/* One analysis level of plane @p c into A (@p a), H, V, D: along x into the
 * work planes lo and hi, then along y. */
static wt_status swt_forward_level(int threads, const wt_uparams *p, int j, size_t h, size_t w,
                                   const float *c, float *a, float *bh, float *bv, float *bd,
                                   const swt_work *k)
{
    wt_filter_spec lo, hi;
    swt_filters(p, j, 0, &lo, &hi);
    wt_array_view src = plane_view(c, h, w), bands[4];
    level_views(h, w, a, bh, bv, bd, bands);
    float *const tmp[2] = {k->lo, NULL}; /* k->hi follows k->lo */
    return wt_axis_split_forward(&src, bands, &lo, &hi, WT_BORDER_PERIODIC, tmp, threads);
}

/* One synthesis level: A, H, V, D into @p out. */
static wt_status swt_inverse_level(int threads, const wt_uparams *p, int j, size_t h, size_t w,
                                   const float *a, const float *bh, const float *bv,
                                   const float *bd, float *out, const swt_work *k)
{
    wt_filter_spec lo, hi;
    swt_filters(p, j, 1, &lo, &hi);
    wt_array_view dst = plane_view(out, h, w), bands[4];
    level_views(h, w, a, bh, bv, bd, bands);
    float *const tmp[2] = {k->lo, NULL};
    return wt_axis_split_inverse(bands, &dst, &lo, &hi, WT_BORDER_PERIODIC, tmp, threads);
}

static float *band_plane(const wt_uparams *p, float *bands, int level, wt_band b, int c,
                         int channels, size_t plane)
{
    int i = wt_ustack_index(p, level, b);
    return i < 0 ? NULL : bands + ((size_t)i * (size_t)channels + (size_t)c) * plane;
}

static wt_status swt_forward_channel(int threads, const wt_uparams *p, const float *x, size_t h,
                                size_t w, int c, int channels, float *bands, const swt_work *k)
{
    const size_t plane = h * w;
    const float *in = x;
    wt_status st = WT_OK;
    for (int l = 1; st == WT_OK && l <= p->levels; l++) {
        float *a = band_plane(p, bands, l, WT_BAND_A, c, channels, plane);
        if (!a)
            a = (l % 2) ? k->c0 : k->c1;
        st = swt_forward_level(threads, p, p->start_level + l, h, w, in, a,
                          band_plane(p, bands, l, WT_BAND_H, c, channels, plane),
                          band_plane(p, bands, l, WT_BAND_V, c, channels, plane),
                          band_plane(p, bands, l, WT_BAND_D, c, channels, plane), k);
        in = a;
    }
    return st;
}

static wt_status swt_inverse_channel(int threads, const wt_uparams *p, const float *bands, size_t h,
                                size_t w, int c, int channels, float *out, const swt_work *k)
{
    const size_t plane = h * w;
    float *bs = (float *)bands; /* read only */
    const float *a = band_plane(p, bs, p->levels, WT_BAND_A, c, channels, plane);
    wt_status st = WT_OK;
    for (int l = p->levels; st == WT_OK && l >= 1; l--) {
        float *dst = l == 1 ? out : ((l % 2) ? k->c0 : k->c1);
        st = swt_inverse_level(threads, p, p->start_level + l, h, w, a,
                          band_plane(p, bs, l, WT_BAND_H, c, channels, plane),
                          band_plane(p, bs, l, WT_BAND_V, c, channels, plane),
                          band_plane(p, bs, l, WT_BAND_D, c, channels, plane), dst, k);
        a = dst;
    }
    return st;
}

/* ---- starlet ------------------------------------------------------------------ */

/* c_out = h_j * c_in along both axes (tmp: the row pass). */
static wt_status starlet_smooth(int threads, const wt_uparams *p, int j, size_t h, size_t w,
                                const float *c_in, float *tmp, float *c_out)
{
    double b3[WT_STARLET_TAPS];
    wt_starlet_kernel(b3);
    const long long step = wt_utap_step(j);
    const wt_filter_spec f = {b3, WT_STARLET_TAPS, 1.0, (size_t)step, wt_starlet_shift(step)};
    const wt_array_view src = plane_view(c_in, h, w), dst = plane_view(c_out, h, w);
    float *const buffers[2] = {tmp, NULL};
    return wt_axis_smooth(&src, &dst, &f, p->border, buffers, threads);
}

typedef struct diff_job {
    const float *a, *b;
    float *out;
    int add; /* out = a + b instead of a - b */
} diff_job;

static void diff_range(void *ctx, size_t begin, size_t end)
{
    const diff_job *d = ctx;
    if (d->add)
        for (size_t i = begin; i < end; i++)
            d->out[i] = d->a[i] + d->b[i];
    else
        for (size_t i = begin; i < end; i++)
            d->out[i] = d->a[i] - d->b[i];
}

static void elementwise(int threads, size_t n, const float *a, const float *b, float *out,
                        int add)
{
    diff_job d = {a, b, out, add};
    wt_parallel_for(threads, n, diff_range, &d);
}

static wt_status starlet_forward_channel(int threads, const wt_uparams *p, const float *x, size_t h,
                                    size_t w, int c, int channels, float *bands,
                                    const swt_work *k)
{
    const size_t plane = h * w;
    const float *prev = x;
    wt_status st = WT_OK;
    for (int j = 1; st == WT_OK && j <= p->levels; j++) {
        float *cur = j == p->levels ? band_plane(p, bands, 0, WT_BAND_A, c, channels, plane)
                                    : ((j % 2) ? k->c0 : k->c1);
        st = starlet_smooth(threads, p, j, h, w, prev, k->lo, cur);
        elementwise(threads, plane, prev, cur, band_plane(p, bands, j, WT_BAND_A, c, channels, plane), 0);
        prev = cur;
    }
    return st;
}

static wt_status starlet_inverse_channel(int threads, const wt_uparams *p, const float *bands,
                                    size_t h, size_t w, int c, int channels, float *out)
{
    const size_t plane = h * w;
    float *bs = (float *)bands; /* read only */
    /* c_L + w_L + ... + w_1: the coarse scales first, as they were made */
    memcpy(out, band_plane(p, bs, 0, WT_BAND_A, c, channels, plane), plane * sizeof *out);
    for (int j = p->levels; j >= 1; j--)
        elementwise(threads, plane, out, band_plane(p, bs, j, WT_BAND_A, c, channels, plane),
                    out, 1);
    return WT_OK;
}

/* ---- entry points ------------------------------------------------------------- */

static wt_status work_begin(size_t plane, swt_work *k, float **buf)
{
    wt_status st = work_alloc(plane, 4, buf);
    if (st == WT_OK)
        *k = (swt_work){*buf, *buf + plane, *buf + 2 * plane, *buf + 3 * plane};
    return st;
}

/* Channel @p c of @p p: @p plane into @p bands, or (@p inverse) back. */
static wt_status transform_channel(int threads, const wt_uparams *p, int inverse, float *plane,
                                   float *bands, size_t h, size_t w, int c, int channels,
                                   const swt_work *k)
{
    int swt = p->transform == WT_TRANSFORM_SWT;
    if (!inverse)
        return swt ? swt_forward_channel(threads, p, plane, h, w, c, channels, bands, k)
                   : starlet_forward_channel(threads, p, plane, h, w, c, channels, bands, k);
    return swt ? swt_inverse_channel(threads, p, bands, h, w, c, channels, plane, k)
               : starlet_inverse_channel(threads, p, bands, h, w, c, channels, plane);
}

/* wt_host_uforward (@p planes into @p bands) and wt_host_uinverse (back). */
static wt_status host_transform(int threads, const wt_uparams *p, int inverse, float *planes,
                                float *bands, size_t h, size_t w, int channels)
{
    float *buf = NULL;
    swt_work k;
    const size_t plane = h * w;
    wt_status st = work_begin(plane, &k, &buf);
    for (int c = 0; st == WT_OK && c < channels; c++)
        st = transform_channel(threads, p, inverse, planes + (size_t)c * plane, bands, h, w, c,
                               channels, &k);
    free(buf);
    return st;
}

wt_status wt_host_uforward(int threads, const wt_uparams *p, const float *planes, size_t h,
                           size_t w, int channels, float *bands)
{
    return host_transform(threads, p, 0, (float *)planes /* read only */, bands, h, w, channels);
}

wt_status wt_host_uinverse(int threads, const wt_uparams *p, const float *bands, size_t h,
                           size_t w, int channels, float *planes)
{
    return host_transform(threads, p, 1, planes, (float *)bands /* read only */, h, w, channels);
}

static wt_status check_call(const wt_uparams *p, size_t h, size_t w, int channels,
                            const void *in, const void *out)
{
    if (!p || !in || !out || channels < 1)
        return wt_error_set(WT_ERR_INVALID, "undecimated transform: bad arguments");
    if (channels > 4)
        return wt_error_set(WT_ERR_UNSUPPORTED, "undecimated transforms take 1 to 4 channels, "
                                                "not %d",
                            channels);
    return wt_uparams_check(p, h, w);
}

/* wt_uforward (@p planes into @p bands) and wt_uinverse (back): checked, on
 * the engine's op where it has one, else the host code; timed. */
static wt_status engine_transform(wt_engine *engine, const wt_uparams *params, int inverse,
                                  float *planes, float *bands, size_t height, size_t width,
                                  int channels)
{
    wt_status st = check_call(params, height, width, channels, planes, bands);
    if (st != WT_OK)
        return st;
    const wt_engine_ops *ops = engine->ops;
    double t0 = wt_seconds();
    if (!inverse && ops->uforward)
        st = ops->uforward(engine, params, planes, height, width, channels, bands);
    else if (inverse && ops->uinverse)
        st = ops->uinverse(engine, params, bands, height, width, channels, planes);
    else
        st = host_transform(engine->threads, params, inverse, planes, bands, height, width,
                            channels);
    engine->times.transform += wt_seconds() - t0;
    engine->times.calls++;
    return st;
}

wt_status wt_uforward(wt_engine *engine, const wt_uparams *params, const float *planes,
                      size_t height, size_t width, int channels, float *bands)
{
    return engine_transform(engine, params, 0, (float *)planes /* read only */, bands, height,
                            width, channels);
}

wt_status wt_uinverse(wt_engine *engine, const wt_uparams *params, const float *bands,
                      size_t height, size_t width, int channels, float *planes)
{
    return engine_transform(engine, params, 1, planes, (float *)bands /* read only */, height,
                            width, channels);
}
