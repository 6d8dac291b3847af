/* Undecimated transforms on the host: the stationary wavelet transform (SWT,
 * = pywt.swt2 / iswt2) and the isotropic undecimated starlet (B3-spline à
 * trous), any size.
 *
 * Both are separable filterings that keep the length of each axis:
 *   out[o] = sum_k f[k] * in[border(o + shift - k * step)]
 * SWT level j: step 2^(j-1), periodic border, analysis shift F*step/2 (pywt's
 * swt_ alignment), synthesis shift (F-1)*step - F*step/2, so that
 * 1/2 (g0 * h0 + g1 * h1) is the identity on every length (the polyphase
 * identity of a perfect-reconstruction filter bank holds modulo z^N - 1).
 * Starlet scale j: [1 4 6 4 1]/16 with step 2^(j-1), centred (shift 2*step),
 * mirror, periodic or nearest border.
 *
 * A pass along x extends each row once into a buffer and adds tap by tap
 * (vectorisable); a pass along y adds whole source rows tap by tap. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_impl.h"

/* Longest filter (coif17: 102 taps). */
#define WT_UTAPS 128

static const double starlet_kernel[5] = {1.0 / 16, 4.0 / 16, 6.0 / 16, 4.0 / 16, 1.0 / 16};

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
    if (p->start_level < 0 || p->start_level > WT_MAX_LEVELS - p->levels) /* no overflow */
        return wt_error_set(WT_ERR_INVALID,
                            "swt: start level %d + %d levels is more than %d", p->start_level,
                            p->levels, WT_MAX_LEVELS);
    return WT_OK;
}

/* ---- one filter along one axis --------------------------------------------- */

/* The taps of one filter on an axis of length n with the border folded in:
 * out[o] = sum_k f[k] * ext[o + start[k]], where ext[i] = in[border(i - base)]
 * and ext has ext_len elements. */
typedef struct axis_filter {
    int ntaps;
    float f[WT_UTAPS];
    size_t start[WT_UTAPS];
} axis_filter;

/* How an axis of length n is extended: ext[i] = in[map(i)] for i < ext_len. */
typedef struct axis_border {
    wt_border border;
    size_t n, period, base, ext_len;
} axis_border;

static axis_border border_of(wt_border b, size_t n)
{
    axis_border a = {b, n, n, 0, 2 * n};
    if (b == WT_BORDER_MIRROR) {
        a.period = n > 1 ? 2 * (n - 1) : 1; /* mirror is periodic with 2(n-1) */
        a.ext_len = n + a.period;
    } else if (b == WT_BORDER_NEAREST) {
        a.base = n; /* offsets clamped to [-n, n] */
        a.ext_len = 3 * n;
    }
    return a;
}

/* Source index of ext[i]. */
static size_t border_map(const axis_border *a, size_t i)
{
    switch (a->border) {
    case WT_BORDER_PERIODIC: return i % a->n;
    case WT_BORDER_MIRROR: {
        size_t r = i % a->period;
        return r < a->n ? r : a->period - r;
    }
    case WT_BORDER_NEAREST: return i < a->base ? 0 : (i - a->base >= a->n ? a->n - 1 : i - a->base);
    }
    return 0;
}

/* ext position of offset @p off (the sample o + off is ext[o + start]). */
static size_t border_start(const axis_border *a, long long off)
{
    if (a->border == WT_BORDER_NEAREST) {
        long long n = (long long)a->n;
        off = off < -n ? -n : (off > n ? n : off);
        return (size_t)(off + n);
    }
    long long p = (long long)a->period;
    long long r = off % p;
    return (size_t)(r < 0 ? r + p : r);
}

/* Filter @p taps (scaled by @p gain) at spacing @p step with @p shift. */
static axis_filter filter_of(const axis_border *a, const double *taps, int ntaps, double gain,
                             size_t step, long long shift)
{
    axis_filter f;
    f.ntaps = 0;
    for (int k = 0; k < ntaps; k++) {
        if (taps[k] == 0.0)
            continue;
        f.f[f.ntaps] = (float)(taps[k] * gain);
        f.start[f.ntaps] = border_start(a, shift - (long long)k * (long long)step);
        f.ntaps++;
    }
    return f;
}

/* A pass: each output is the sum of its terms, one filter of one input. */
typedef struct pass_term {
    const float *src;
    float *dst;
    axis_filter filt;
} pass_term;

typedef struct axis_pass {
    size_t h, w;
    axis_border border; /* of the filtered axis */
    int nterms;
    pass_term term[4];
    _Atomic int failed; /* a row buffer could not be allocated */
} axis_pass;

/* out[x] (+)= sum of c[k] * src[k][x] for k < n, four taps per sweep so that
 * each output element is loaded and stored once per four taps. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void taps_into(float *restrict out, const float *const *src, const float *c, int n,
                      size_t len, int accumulate)
{
    int k = 0;
    for (; k + 4 <= n; k += 4, accumulate = 1) {
        const float *restrict s0 = src[k], *restrict s1 = src[k + 1];
        const float *restrict s2 = src[k + 2], *restrict s3 = src[k + 3];
        const float c0 = c[k], c1 = c[k + 1], c2 = c[k + 2], c3 = c[k + 3];
        if (accumulate)
            for (size_t x = 0; x < len; x++)
                out[x] += c0 * s0[x] + c1 * s1[x] + c2 * s2[x] + c3 * s3[x];
        else
            for (size_t x = 0; x < len; x++)
                out[x] = c0 * s0[x] + c1 * s1[x] + c2 * s2[x] + c3 * s3[x];
    }
    for (; k < n; k++, accumulate = 1) {
        const float *restrict s0 = src[k];
        const float c0 = c[k];
        if (accumulate)
            for (size_t x = 0; x < len; x++)
                out[x] += c0 * s0[x];
        else
            for (size_t x = 0; x < len; x++)
                out[x] = c0 * s0[x];
    }
    if (n == 0 && !accumulate)
        memset(out, 0, len * sizeof *out);
}

/* ext[i] = in[border_map(i)] for the whole extension, by segments. */
static void extend_row(const axis_border *b, const float *restrict in, float *restrict ext)
{
    const size_t n = b->n;
    switch (b->border) {
    case WT_BORDER_PERIODIC:
        memcpy(ext, in, n * sizeof *ext);
        memcpy(ext + n, in, n * sizeof *ext);
        return;
    case WT_BORDER_MIRROR:
        if (n == 1) {
            ext[0] = ext[1] = in[0];
            return;
        }
        memcpy(ext, in, n * sizeof *ext);
        for (size_t i = n; i < b->period; i++)
            ext[i] = in[b->period - i];
        memcpy(ext + b->period, in, n * sizeof *ext);
        return;
    case WT_BORDER_NEAREST:
        for (size_t i = 0; i < n; i++) {
            ext[i] = in[0];
            ext[2 * n + i] = in[n - 1];
        }
        memcpy(ext + n, in, n * sizeof *ext);
        return;
    }
}

/* Rows [begin, end) along x. */
static void rows_range(void *ctx, size_t begin, size_t end)
{
    const axis_pass *p = ctx;
    const axis_border *b = &p->border;
    float *ext = malloc(b->ext_len * sizeof *ext);
    if (!ext) {
        ((axis_pass *)ctx)->failed = 1;
        return;
    }
    for (size_t y = begin; y < end; y++) {
        const float *last = NULL;
        for (int t = 0; t < p->nterms; t++) {
            const pass_term *term = &p->term[t];
            const float *in = term->src + y * p->w;
            const float *src[WT_UTAPS];
            if (in != last)
                extend_row(b, in, ext);
            last = in;
            for (int k = 0; k < term->filt.ntaps; k++)
                src[k] = ext + term->filt.start[k];
            int accumulate = t > 0 && term->dst == p->term[t - 1].dst;
            taps_into(term->dst + y * p->w, src, term->filt.f, term->filt.ntaps, p->w, accumulate);
        }
    }
    free(ext);
}

/* Output rows [begin, end) of a pass along y. */
static void cols_range(void *ctx, size_t begin, size_t end)
{
    const axis_pass *p = ctx;
    const axis_border *b = &p->border;
    for (size_t y = begin; y < end; y++)
        for (int t = 0; t < p->nterms; t++) {
            const pass_term *term = &p->term[t];
            const float *src[WT_UTAPS];
            for (int k = 0; k < term->filt.ntaps; k++)
                src[k] = term->src + border_map(b, y + term->filt.start[k]) * p->w;
            int accumulate = t > 0 && term->dst == p->term[t - 1].dst;
            taps_into(term->dst + y * p->w, src, term->filt.f, term->filt.ntaps, p->w, accumulate);
        }
}

static axis_pass pass_of(size_t h, size_t w, axis_border border)
{
    axis_pass p;
    memset(&p, 0, sizeof p);
    p.h = h;
    p.w = w;
    p.border = border;
    return p;
}

/* Add out += f * src (the first term of each destination stores). */
static void add_term(axis_pass *p, const float *src, float *dst, axis_filter f)
{
    p->term[p->nterms++] = (pass_term){src, dst, f};
}

static wt_status run_pass(int threads, axis_pass *p, int along_y)
{
    wt_parallel_for(threads, p->h, along_y ? cols_range : rows_range, p);
    return p->failed ? wt_error_set(WT_ERR_NOMEM, "out of memory") : WT_OK;
}

/* ---- SWT -------------------------------------------------------------------- */

/* Taps and shift of SWT level @p j (1-based) on an axis. */
typedef struct swt_level {
    size_t step;
    long long ana_shift, syn_shift;
} swt_level;

static swt_level swt_level_of(const wt_wavelet *w, int j)
{
    swt_level l;
    l.step = (size_t)1 << (j - 1);
    long long F = w->filter_len, s = (long long)l.step;
    l.ana_shift = F * s / 2;
    l.syn_shift = (F - 1) * s - F * s / 2;
    return l;
}

static double swt_analysis_gain(const wt_uparams *p)
{
    return p->norm ? 1.0 / sqrt(2.0) : 1.0;
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

/* One analysis level of plane @p c into A (@p a), H, V, D. */
static wt_status swt_forward_level(int threads, const wt_uparams *p, int j, size_t h, size_t w,
                              const float *c, float *a, float *bh, float *bv, float *bd,
                              const swt_work *k)
{
    const wt_wavelet *wl = p->wavelet;
    const int F = wl->filter_len;
    const double g = swt_analysis_gain(p);
    swt_level lv = swt_level_of(wl, j);
    axis_pass x = pass_of(h, w, border_of(WT_BORDER_PERIODIC, w));
    add_term(&x, c, k->lo, filter_of(&x.border, wl->dec_lo, F, g, lv.step, lv.ana_shift));
    add_term(&x, c, k->hi, filter_of(&x.border, wl->dec_hi, F, g, lv.step, lv.ana_shift));
    if (run_pass(threads, &x, 0) != WT_OK)
        return WT_ERR_NOMEM;
    axis_pass y = pass_of(h, w, border_of(WT_BORDER_PERIODIC, h));
    axis_filter lo = filter_of(&y.border, wl->dec_lo, F, g, lv.step, lv.ana_shift);
    axis_filter hi = filter_of(&y.border, wl->dec_hi, F, g, lv.step, lv.ana_shift);
    add_term(&y, k->lo, a, lo);
    add_term(&y, k->lo, bh, hi); /* high-pass along y */
    add_term(&y, k->hi, bv, lo);
    add_term(&y, k->hi, bd, hi);
    return run_pass(threads, &y, 1);
}

/* One synthesis level: A, H, V, D into @p out. */
static wt_status swt_inverse_level(int threads, const wt_uparams *p, int j, size_t h, size_t w,
                              const float *a, const float *bh, const float *bv,
                              const float *bd, float *out, const swt_work *k)
{
    const wt_wavelet *wl = p->wavelet;
    const int F = wl->filter_len;
    const double g = 1.0 / (2.0 * swt_analysis_gain(p));
    swt_level lv = swt_level_of(wl, j);
    axis_pass y = pass_of(h, w, border_of(WT_BORDER_PERIODIC, h));
    axis_filter lo = filter_of(&y.border, wl->rec_lo, F, g, lv.step, lv.syn_shift);
    axis_filter hi = filter_of(&y.border, wl->rec_hi, F, g, lv.step, lv.syn_shift);
    add_term(&y, a, k->lo, lo);
    add_term(&y, bh, k->lo, hi);
    add_term(&y, bv, k->hi, lo);
    add_term(&y, bd, k->hi, hi);
    run_pass(threads, &y, 1);
    axis_pass x = pass_of(h, w, border_of(WT_BORDER_PERIODIC, w));
    add_term(&x, k->lo, out, filter_of(&x.border, wl->rec_lo, F, g, lv.step, lv.syn_shift));
    add_term(&x, k->hi, out, filter_of(&x.border, wl->rec_hi, F, g, lv.step, lv.syn_shift));
    return run_pass(threads, &x, 0);
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
    size_t step = (size_t)1 << (j - 1);
    long long shift = 2 * (long long)step;
    axis_pass x = pass_of(h, w, border_of(p->border, w));
    add_term(&x, c_in, tmp, filter_of(&x.border, starlet_kernel, 5, 1.0, step, shift));
    if (run_pass(threads, &x, 0) != WT_OK)
        return WT_ERR_NOMEM;
    axis_pass y = pass_of(h, w, border_of(p->border, h));
    add_term(&y, tmp, c_out, filter_of(&y.border, starlet_kernel, 5, 1.0, step, shift));
    return run_pass(threads, &y, 1);
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
