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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axis_filter.h"
#include "engine_impl.h"
#include "transform.h"
#include "undecimated_geometry.h"



/* ---- names ---------------------------------------------------------------------- */

static const char *const border_names[] = {"mirror", "periodic", "nearest"};

wt_status wt_border_parse(const char *name, wt_border *b)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(name, border_names[i]) == 0) {
            *b = (wt_border)i;
            return WT_OK;
        }
    return wt_error_set(WT_ERR_INVALID, "unknown border '%s' (%s, %s, %s)", name,
                        border_names[0], border_names[1], border_names[2]);
}

const char *wt_border_name(wt_border b)
{
    return (unsigned)b < 3 ? border_names[b] : "?";
}

/* ---- shapes: the kind's layout (its module) ----------------------------------------- */

/* The class of @p p when it is a band-stack kind, else NULL. */
static const wt_transform_class *stack_class(const wt_uparams *p)
{
    const wt_transform_class *c = wt_uclass(p);
    return c->layout == WT_LAYOUT_STACK && c->kind == p->transform ? c : NULL;
}

int wt_ustack_bands(const wt_uparams *p)
{
    const wt_transform_class *c = stack_class(p);
    return c ? c->nbands(p) : 0;
}

int wt_ustack_index(const wt_uparams *p, int level, wt_band band)
{
    const wt_transform_class *c = stack_class(p);
    return c ? c->band_index(p, level, band) : -1;
}

int wt_umax_level(const wt_uparams *p, size_t height, size_t width)
{
    int k = wt_uclass(p)->max_level(height, width);
    k = k < 1 ? 1 : k;
    return k > WT_MAX_LEVELS ? WT_MAX_LEVELS : k;
}

wt_status wt_uparams_check(const wt_uparams *p, size_t height, size_t width)
{
    const wt_transform_class *c = stack_class(p);
    if (!c)
        return wt_error_set(WT_ERR_INVALID, "not an undecimated transform");
    if (p->levels < 1 || p->levels > WT_MAX_LEVELS)
        return wt_error_set(WT_ERR_INVALID, "%s: levels must be between 1 and %d", c->name,
                            WT_MAX_LEVELS);
    if (height < 1 || width < 1)
        return wt_error_set(WT_ERR_INVALID, "empty image");
    return c->ops->check(p);
}

/* ---- levels of a plane ------------------------------------------------------ */

/* One channel's h x w plane at @p data. */
static wt_array_view plane_view(const float *data, size_t h, size_t w)
{
    return wt_view_image((float *)data /* read only where an input */, WT_FLOAT32, 1, h, w);
}

/* ---- SWT -------------------------------------------------------------------- */

void wt_swt_filters(const wt_uparams *p, int j, int inverse, wt_filter_spec *lo,
                    wt_filter_spec *hi)
{
    const wt_wavelet *wl = p->wavelet;
    const size_t step = (size_t)wt_utap_step(j);
    const long long shift = wt_swt_shift(wl->filter_len, (long long)step, inverse);
    const double g = wt_swt_gain(p->norm, inverse);
    *lo = (wt_filter_spec){inverse ? wl->rec_lo : wl->dec_lo, wl->filter_len, g, step, shift};
    *hi = (wt_filter_spec){inverse ? wl->rec_hi : wl->dec_hi, wl->filter_len, g, step, shift};
}

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
                                   const wt_uwork *k)
{
    wt_filter_spec lo, hi;
    wt_swt_filters(p, j, 0, &lo, &hi);
    wt_array_view src = plane_view(c, h, w), bands[4];
    level_views(h, w, a, bh, bv, bd, bands);
    float *const tmp[2] = {k->lo, NULL}; /* k->hi follows k->lo */
    return wt_axis_split_forward(&src, bands, &lo, &hi, WT_BORDER_PERIODIC, tmp, threads);
}

/* One synthesis level: A, H, V, D into @p out. */
static wt_status swt_inverse_level(int threads, const wt_uparams *p, int j, size_t h, size_t w,
                                   const float *a, const float *bh, const float *bv,
                                   const float *bd, float *out, const wt_uwork *k)
{
    wt_filter_spec lo, hi;
    wt_swt_filters(p, j, 1, &lo, &hi);
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

wt_status wt_swt_host_forward(int threads, const wt_uparams *p, const float *x, size_t h,
                              size_t w, int c, int channels, float *bands, const wt_uwork *k)
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

wt_status wt_swt_host_inverse(int threads, const wt_uparams *p, const float *bands, size_t h,
                              size_t w, int c, int channels, float *out, const wt_uwork *k)
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

wt_status wt_starlet_host_forward(int threads, const wt_uparams *p, const float *x, size_t h,
                                  size_t w, int c, int channels, float *bands, const wt_uwork *k)
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

wt_status wt_starlet_host_inverse(int threads, const wt_uparams *p, const float *bands,
                                  size_t h, size_t w, int c, int channels, float *out,
                                  const wt_uwork *k)
{
    (void)k;
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

static wt_status work_begin(size_t plane, wt_uwork *k, float **buf)
{
    wt_status st = work_alloc(plane, 4, buf);
    if (st == WT_OK)
        *k = (wt_uwork){*buf, *buf + plane, *buf + 2 * plane, *buf + 3 * plane};
    return st;
}

/* Channel @p c of @p p: @p plane into @p bands, or (@p inverse) back. */
static wt_status transform_channel(int threads, const wt_uparams *p, int inverse, float *plane,
                                   float *bands, size_t h, size_t w, int c, int channels,
                                   const wt_uwork *k)
{
    const struct wt_transform_ops *ops = wt_uclass(p)->ops;
    if (!inverse)
        return ops->host_forward(threads, p, plane, h, w, c, channels, bands, k);
    return ops->host_inverse(threads, p, bands, h, w, c, channels, plane, k);
}

/* wt_host_uforward (@p planes into @p bands) and wt_host_uinverse (back). */
static wt_status host_transform(int threads, const wt_uparams *p, int inverse, float *planes,
                                float *bands, size_t h, size_t w, int channels)
{
    float *buf = NULL;
    wt_uwork k;
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
