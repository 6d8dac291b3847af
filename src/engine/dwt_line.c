/* One-dimensional transforms of a batch of lines (see dwt_line.h).
 *
 * Forward convolution follows PyWavelets:
 *   out[k] = sum_j f[j] * ext(s0 + 2k - j),
 * s0 = 1 (all modes but periodization), s0 = F/2 for periodization on the
 * signal padded to even length by repeating its last sample.
 * Inverse convolution (synthesis of finite, zero-padded coefficients):
 *   x[o] = sum_j rec_lo[j] * lo[(o + off - j) / 2] + rec_hi[j] * hi[...]
 * over the j where o + off - j is even, off = F - 2 (periodization: F/2 - 1,
 * coefficients periodic).
 * Lifting runs the factorised polyphase matrix over the same extended signal
 * (or zero-padded/periodic coefficients), so both methods compute one
 * operator. The JPEG 2000 kinds use whole-sample symmetric extension of the
 * signal and of the interleaved coefficients. */
#include "dwt_line.h"

#include <string.h>

#include "wavetool_hooks.h" /* wt_lift53_narrow_max */

/* Lines per batch: WT_BATCH, or 1 where dwt_line_1.c includes this file for
 * the passes over fewer lines (1xN and Nx1 images). */
#ifndef WT_LANES
#define WT_LANES WT_BATCH
#endif
#define B WT_LANES

/* Internal precision: float, like the CUDA engine's accumulation in the
 * folding modes; PyWavelets' float64 results stay within 1e-5 of max|ref|
 * (pywt suite). dev/notes/kernel-log.md ("Numerics") compares it with a double build
 * of this file. */
typedef float real;

/* The B lanes of a sample as NV GNU C vectors of the instruction set's width
 * (VW floats: SSE2 4, AVX2 8, AVX-512 16), which the compiler keeps in
 * registers, where a loop over the lanes would be unrolled into scalar code;
 * AT(p) is the VW lanes from p, unaligned, to read or write. The outputs are
 * stored through AT straight from real vectors: a double build of this file
 * (dev/notes/kernel-log.md) needs to_float there. */
#if B == 1
#define VW 1
typedef real lanes;
typedef real lanes_at;
#else
#if defined(__AVX512F__)
#define VW 16
#elif defined(__AVX__)
#define VW 8
#else
#define VW 4
#endif
typedef real lanes __attribute__((vector_size(VW * sizeof(real))));
typedef real lanes_at __attribute__((vector_size(VW * sizeof(real)), aligned(4), may_alias));
#endif
#define NV (B / VW)
#define EACH_VECTOR(v) for (int v = 0; v < NV; v++)
#define AT(p) (*(lanes_at *)(p))
#define LOAD(p) ((lanes)(*(const lanes_at *)(p)))

/* Copies between float and real (a memcpy while real is float: a loop of B
 * samples would be unrolled into B scalar moves). */
static void to_real(real *dst, const float *src, long count)
{
    if (sizeof(real) == sizeof(float)) {
        memcpy(dst, src, (size_t)count * sizeof *dst);
        return;
    }
    for (long i = 0; i < count; i++)
        dst[i] = src[i];
}

static void to_float(float *dst, const real *src, long count)
{
    if (sizeof(real) == sizeof(float)) {
        memcpy(dst, src, (size_t)count * sizeof *dst);
        return;
    }
    for (long i = 0; i < count; i++)
        dst[i] = (float)src[i];
}

/* Defined once, by the reference build of this file; a variant
 * (dwt_line_avx2.c) renames the kernels to static functions of its own. */
#if WT_LANES == WT_BATCH && !defined(WT_LINE_VARIANT)
#define WT_LINE_ONCE 1
#endif
#ifdef WT_LINE_VARIANT
#define WT_LINE_API static
#else
#define WT_LINE_API
#endif

#ifdef WT_LINE_ONCE
void wt_line_init(wt_line *line, const wt_params *params, size_t n)
{
    line->wavelet = params->wavelet;
    line->mode = params->mode;
    line->method = params->method;
    line->n = n;
    line->nlo = wt_coeff_len(n, params->wavelet, params->mode, 0);
    line->nhi = wt_coeff_len(n, params->wavelet, params->mode, 1);
}
#endif

static int is_periodization(const wt_line *line)
{
    return line->mode == WT_MODE_PERIODIZATION;
}

/* Mode used to extend the signal (dwt_geometry.h). */
static wt_mode signal_mode(const wt_line *line)
{
    return (wt_mode)wt_signal_mode(line->wavelet, line->mode);
}

/* How the extension at position i (outside [0, n)) is made of the signal:
 * nothing (zero), a copy of sample p (negated where sign < 0), smooth's
 * p + k (p - q) or antireflect's 2 p - q. The samples named lie in [0, n)
 * where n > the distance of i from the signal; else they may be extensions
 * nearer the signal. */
typedef enum ext_kind { EXT_ZERO, EXT_COPY, EXT_SMOOTH, EXT_ANTIREFLECT } ext_kind;
typedef struct ext_rule {
    ext_kind kind;
    long p, q, k;
    int sign;
} ext_rule;

static ext_rule extension_rule(long n, wt_mode mode, long i)
{
    long k = i < 0 ? -i : i - (n - 1); /* distance from the edge */
    long edge = i < 0 ? 0 : n - 1, inner = i < 0 ? 1 : n - 2;
    if (mode == WT_MODE_ZERO)
        return (ext_rule){EXT_ZERO, 0, 0, 0, 1};
    if (mode == WT_MODE_CONSTANT ||
        (n < 2 && (mode == WT_MODE_SMOOTH || mode == WT_MODE_ANTIREFLECT)))
        return (ext_rule){EXT_COPY, edge, 0, 0, 1};
    if (mode == WT_MODE_SMOOTH)
        return (ext_rule){EXT_SMOOTH, edge, inner, k, 1};
    if (mode == WT_MODE_ANTIREFLECT) {
        /* point symmetry about the nearest edge point, in blocks of n-1 */
        long c = (k - 1) / (n - 1) * (n - 1);
        long centre = i < 0 ? -c : (n - 1) + c;
        return (ext_rule){EXT_ANTIREFLECT, centre, 2 * centre - i, 0, 1};
    }
    int sign;
    long p = wt_fold_index((int)i, (int)n, mode, &sign);
    return (ext_rule){EXT_COPY, p, 0, 0, sign};
}

/* dst[b] = the rule applied to samples p[b] and q[b], b in [0, count). */
static void apply_rule(const ext_rule *r, real *dst, const real *p, const real *q, long count)
{
    if (r->kind == EXT_ZERO) {
        memset(dst, 0, (size_t)count * sizeof *dst);
    } else if (r->kind == EXT_COPY && r->sign > 0) {
        memcpy(dst, p, (size_t)count * sizeof *dst);
    } else if (r->kind == EXT_COPY) {
        for (long b = 0; b < count; b++)
            dst[b] = -p[b];
    } else if (r->kind == EXT_SMOOTH) {
        for (long b = 0; b < count; b++)
            dst[b] = p[b] + (real)r->k * (p[b] - q[b]);
    } else {
        for (long b = 0; b < count; b++)
            dst[b] = 2.0 * p[b] - q[b];
    }
}

/* Extension value at position i (outside [0, n)) of the signal stored at
 * base[j * B], j in [0, n); positions between i and the signal are ready. */
static void extend_one(real *base, long n, wt_mode mode, long i)
{
    ext_rule r = extension_rule(n, mode, i);
    apply_rule(&r, base + i * B, base + r.p * B, base + r.q * B, B);
}

/* ext[(i - e0) * B + b] = extension of x (n samples) at i, for i in [e0, e1),
 * e0 <= 0 and e1 >= n. Periodization first pads odd n with its last sample. */
static void extend_signal(const float *x, long n, wt_mode mode, long e0, long e1, real *ext)
{
    real *base = ext - e0 * B; /* base[i * B] is position i */
    to_real(base, x, n * B);
    if (mode == WT_MODE_PERIODIZATION && (n & 1)) {
        to_real(base + n * B, x + (n - 1) * B, B);
        n += 1;
    }
    for (long i = -1; i >= e0; i--) /* outward from the edges */
        extend_one(base, n, mode, i);
    for (long i = n; i < e1; i++)
        extend_one(base, n, mode, i);
}

/* Filter taps as real, reversed roles handled by the callers. */
typedef struct taps {
    int len;
    real v[128];
} taps;

static void load_taps(taps *t, const double *src, int len)
{
    t->len = len;
    for (int j = 0; j < len; j++)
        t->v[j] = (real)src[j];
}

/* ---------------------------------------------------------------------- */
/* Convolution, PyWavelets filter banks */

static long forward_start(const wt_line *line)
{
    return wt_forward_start(line->wavelet, line->mode);
}

static void conv_forward_fb(const wt_line *line, const float *in, float *lo, float *hi,
                            real *scratch)
{
    const wt_wavelet *w = line->wavelet;
    long F = w->filter_len, n = (long)line->n, s0 = forward_start(line);
    long nout = (long)line->nlo;
    long e0 = s0 - (F - 1) < 0 ? s0 - (F - 1) : 0;
    long e1 = s0 + 2 * (nout - 1) + 1;
    if (e1 < n + 1)
        e1 = n + 1;
    extend_signal(in, n, line->mode, e0, e1, scratch);
    taps tl, th;
    load_taps(&tl, w->dec_lo, (int)F);
    load_taps(&th, w->dec_hi, (int)F);
    for (long k = 0; k < nout; k++) {
        lanes al[NV] = {0}, ah[NV] = {0};
        for (long j = 0; j < F; j++)
            EACH_VECTOR(v) {
                lanes s = LOAD(scratch + (s0 + 2 * k - j - e0) * B + v * VW);
                al[v] += tl.v[j] * s;
                ah[v] += th.v[j] * s;
            }
        EACH_VECTOR(v) {
            AT(lo + k * B + v * VW) = al[v];
            AT(hi + k * B + v * VW) = ah[v];
        }
    }
}

static void conv_inverse_fb(const wt_line *line, const float *lo, const float *hi, float *out,
                            real *scratch)
{
    const wt_wavelet *w = line->wavelet;
    long F = w->filter_len, n = (long)line->n, nc = (long)line->nlo;
    int per = is_periodization(line);
    long off = wt_inverse_offset(w, line->mode);
    /* coefficient positions needed: (o + off - j)/2 for o in [0,n), j in [0,F) */
    long c0 = (0 + off - (F - 1) - 1) / 2 - 1, c1 = (n - 1 + off) / 2 + 1;
    real *cl = scratch, *ch = scratch + (c1 - c0) * B;
    for (long c = c0; c < c1; c++) {
        long src = c;
        int valid = 1;
        if (per) {
            src = c % nc;
            if (src < 0)
                src += nc;
        } else if (c < 0 || c >= nc) {
            valid = 0;
        }
        real *dl = cl + (c - c0) * B, *dh = ch + (c - c0) * B;
        if (valid) {
            to_real(dl, lo + src * B, B);
            to_real(dh, hi + src * B, B);
        } else {
            memset(dl, 0, B * sizeof *dl);
            memset(dh, 0, B * sizeof *dh);
        }
    }
    taps tl, th;
    load_taps(&tl, w->rec_lo, (int)F);
    load_taps(&th, w->rec_hi, (int)F);
    for (long o = 0; o < n; o++) {
        lanes acc[NV] = {0};
        for (long j = (o + off) & 1; j < F; j += 2) {
            long c = (o + off - j) / 2 - c0;
            EACH_VECTOR(v)
            acc[v] += tl.v[j] * LOAD(cl + c * B + v * VW) + th.v[j] * LOAD(ch + c * B + v * VW);
        }
        EACH_VECTOR(v) AT(out + o * B + v * VW) = acc[v];
    }
}

/* ---------------------------------------------------------------------- */
/* Convolution, JPEG 2000 kinds: centred odd-length filters */

static void conv_forward_j2k(const wt_line *line, const float *in, float *lo, float *hi,
                             real *scratch)
{
    const wt_wavelet *w = line->wavelet;
    long n = (long)line->n, rl = w->support_lo / 2, rh = w->support_hi / 2;
    long r = rl > rh ? rl : rh;
    long e0 = -r - 1, e1 = 2 * (long)(line->nlo > line->nhi ? line->nlo : line->nhi) + r + 2;
    if (e1 < n + 1)
        e1 = n + 1;
    extend_signal(in, n, signal_mode(line), e0, e1, scratch);
    const real *base = scratch - e0 * B;
    taps tl, th;
    load_taps(&tl, w->dec_lo, w->support_lo);
    load_taps(&th, w->dec_hi, w->support_hi);
    for (long k = 0; k < (long)line->nlo; k++) {
        lanes acc[NV] = {0};
        for (long t = -rl; t <= rl; t++)
            EACH_VECTOR(v) acc[v] += tl.v[t + rl] * LOAD(base + (2 * k + t) * B + v * VW);
        EACH_VECTOR(v) AT(lo + k * B + v * VW) = acc[v];
    }
    for (long k = 0; k < (long)line->nhi; k++) {
        lanes acc[NV] = {0};
        for (long t = -rh; t <= rh; t++)
            EACH_VECTOR(v) acc[v] += th.v[t + rh] * LOAD(base + (2 * k + 1 + t) * B + v * VW);
        EACH_VECTOR(v) AT(hi + k * B + v * VW) = acc[v];
    }
}

/* Interleave lo/hi into y (length n, or the padded even length for
 * periodization) and extend it into ext over [e0, e1). */
static long interleave_extend(const wt_line *line, const float *lo, const float *hi, long e0,
                              long e1, real *ext)
{
    long len = (long)(line->nlo + line->nhi);
    real *base = ext - e0 * B;
    for (long k = 0; k < (long)line->nlo; k++)
        to_real(base + 2 * k * B, lo + k * B, B);
    for (long k = 0; k < (long)line->nhi; k++)
        to_real(base + (2 * k + 1) * B, hi + k * B, B);
    int mode = wt_interleaved_mode(line->mode);
    for (long i = e0; i < e1; i++) {
        if (i >= 0 && i < len)
            continue;
        int sign;
        long src = wt_fold_index((int)i, (int)len, mode, &sign);
        memcpy(base + i * B, base + src * B, B * sizeof *ext);
    }
    return len;
}

static void conv_inverse_j2k(const wt_line *line, const float *lo, const float *hi, float *out,
                             real *scratch)
{
    const wt_wavelet *w = line->wavelet;
    long n = (long)line->n, rl = w->support_hi / 2, rh = w->support_lo / 2;
    /* synthesis: rec_lo has the high-pass support length and vice versa */
    long r = rl > rh ? rl : rh;
    long len = (long)(line->nlo + line->nhi);
    long e0 = -r - 1, e1 = (len > n ? len : n) + r + 1;
    interleave_extend(line, lo, hi, e0, e1, scratch);
    const real *base = scratch - e0 * B;
    taps sl, sh;
    load_taps(&sl, w->rec_lo, w->support_hi);
    load_taps(&sh, w->rec_hi, w->support_lo);
    for (long i = 0; i < n; i++) {
        lanes acc[NV] = {0};
        for (long t = -rl; t <= rl; t++)
            if (((i - t) & 1) == 0)
                EACH_VECTOR(v) acc[v] += sl.v[t + rl] * LOAD(base + (i - t) * B + v * VW);
        for (long t = -rh; t <= rh; t++)
            if ((i - t) & 1)
                EACH_VECTOR(v) acc[v] += sh.v[t + rh] * LOAD(base + (i - t) * B + v * VW);
        EACH_VECTOR(v) AT(out + i * B + v * VW) = acc[v];
    }
}

/* ---------------------------------------------------------------------- */
/* Lifting */

/* Total reach of the steps (dwt_geometry.h). */
static long lifting_reach(const wt_lifting *L)
{
    return wt_lifting_reach(L);
}

/* Apply (sign=+1) or undo (sign=-1) one step over polyphase indices [m0, m1)
 * of buffers a and d (index m at (m - m0) * B). */
static void lifting_step(const wt_lifting_step *st, real *a, real *d, long count, real sign)
{
    real *dst = st->update ? a : d;
    const real *src = st->update ? d : a;
    long lo = st->offset < 0 ? -st->offset : 0;
    long hi = count - (st->offset + st->ntaps - 1 > 0 ? st->offset + st->ntaps - 1 : 0);
    real t[8];
    for (int i = 0; i < st->ntaps; i++)
        t[i] = sign * (real)st->taps[i];
    for (long m = lo; m < hi; m++) {
        lanes acc[NV] = {0};
        for (int i = 0; i < st->ntaps; i++)
            EACH_VECTOR(v) acc[v] += t[i] * LOAD(src + (m + st->offset + i) * B + v * VW);
        EACH_VECTOR(v) AT(dst + m * B + v * VW) += acc[v];
    }
}

/* Polyphase alignment (dwt_geometry.h): a[m] = x[2m + e],
 * lo[k] = scale_lo * a[k + t + shift_lo]. */
static void lifting_alignment(const wt_line *line, long *e, long *t)
{
    int ie, it;
    wt_lifting_alignment(line->wavelet, line->mode, &ie, &it);
    *e = ie;
    *t = it;
}

static void lifting_forward(const wt_line *line, const float *in, float *lo, float *hi,
                            real *scratch)
{
    const wt_lifting *L = line->wavelet->lifting;
    long n = (long)line->n, R = lifting_reach(L), e, t;
    lifting_alignment(line, &e, &t);
    long nout = (long)(line->nlo > line->nhi ? line->nlo : line->nhi);
    long smin = L->shift_lo < L->shift_hi ? L->shift_lo : L->shift_hi;
    long smax = L->shift_lo > L->shift_hi ? L->shift_lo : L->shift_hi;
    long m0 = t + smin - R, m1 = t + smax + nout + R;
    long e0 = 2 * m0 + e, e1 = 2 * m1 + e + 1;
    if (e0 > 0)
        e0 = 0;
    if (e1 < n + 1)
        e1 = n + 1;
    real *ext = scratch;
    extend_signal(in, n, signal_mode(line), e0, e1, ext);
    long count = m1 - m0;
    real *a = ext + (e1 - e0) * B, *d = a + count * B;
    const real *base = ext - e0 * B;
    for (long m = m0; m < m1; m++) {
        memcpy(a + (m - m0) * B, base + (2 * m + e) * B, B * sizeof *a);
        memcpy(d + (m - m0) * B, base + (2 * m + e + 1) * B, B * sizeof *d);
    }
    for (int s = 0; s < L->nsteps; s++)
        lifting_step(&L->steps[s], a, d, count, 1.0);
    real gl = (real)L->scale_lo, gh = (real)L->scale_hi;
    for (long k = 0; k < (long)line->nlo; k++)
        EACH_VECTOR(v) AT(lo + k * B + v * VW) = gl * LOAD(a + (k + t + L->shift_lo - m0) * B + v * VW);
    for (long k = 0; k < (long)line->nhi; k++)
        EACH_VECTOR(v) AT(hi + k * B + v * VW) = gh * LOAD(d + (k + t + L->shift_hi - m0) * B + v * VW);
}

static void lifting_inverse(const wt_line *line, const float *lo, const float *hi, float *out,
                            real *scratch)
{
    const wt_lifting *L = line->wavelet->lifting;
    long n = (long)line->n, R = lifting_reach(L), e, t;
    lifting_alignment(line, &e, &t);
    int per = is_periodization(line);
    int j2k = line->wavelet->kind == WT_KIND_JPEG2000;
    long m0 = (0 - e) / 2 - 1 - R, m1 = (n - e) / 2 + 1 + R, count = m1 - m0;
    real *a = scratch, *d = a + count * B;
    real il = (real)(1.0 / L->scale_lo), ih = (real)(1.0 / L->scale_hi);
    if (j2k) {
        /* extended interleaved coefficients give a[m] = y(2m), d[m] = y(2m+1) */
        real *ext = d + count * B;
        long e0 = 2 * m0, e1 = 2 * m1 + 1;
        interleave_extend(line, lo, hi, e0, e1, ext);
        const real *base = ext - e0 * B;
        for (long m = m0; m < m1; m++)
            EACH_VECTOR(v) {
                AT(a + (m - m0) * B + v * VW) = il * LOAD(base + 2 * m * B + v * VW);
                AT(d + (m - m0) * B + v * VW) = ih * LOAD(base + (2 * m + 1) * B + v * VW);
            }
    } else {
        long nlo = (long)line->nlo, nhi = (long)line->nhi;
        for (long m = m0; m < m1; m++) {
            long kl = m - t - L->shift_lo, kh = m - t - L->shift_hi;
            if (per) {
                kl = ((kl % nlo) + nlo) % nlo;
                kh = ((kh % nhi) + nhi) % nhi;
            }
            EACH_VECTOR(v) {
                lanes va = {0}, vd = {0};
                if (kl >= 0 && kl < nlo)
                    va = il * LOAD(lo + kl * B + v * VW);
                if (kh >= 0 && kh < nhi)
                    vd = ih * LOAD(hi + kh * B + v * VW);
                AT(a + (m - m0) * B + v * VW) = va;
                AT(d + (m - m0) * B + v * VW) = vd;
            }
        }
    }
    for (int s = L->nsteps - 1; s >= 0; s--)
        lifting_step(&L->steps[s], a, d, count, -1.0);
    for (long i = 0; i < n; i++) {
        long p = i - e; /* a[m] = x[2m + e] */
        const real *s = (p & 1) ? d + ((p - 1) / 2 - m0) * B : a + (p / 2 - m0) * B;
        to_float(out + i * B, s, B);
    }
}

/* ---------------------------------------------------------------------- */

#ifndef WT_LINE_VARIANT
size_t wt_line_scratch(const wt_line *line)
{
    /* generous: extension of 2n + 4F + margins, three buffers of it */
    size_t F = (size_t)line->wavelet->filter_len;
    size_t R = line->wavelet->lifting ? (size_t)lifting_reach(line->wavelet->lifting) : 0;
    size_t len = 2 * (line->n + line->nlo + line->nhi) + 4 * F + 8 * R + 64;
    return 3 * len * B * sizeof(real);
}
#endif

WT_LINE_API void wt_line_forward(const wt_line *line, const float *in, float *lo, float *hi, void *scratch)
{
    if (line->method == WT_METHOD_LIFTING)
        lifting_forward(line, in, lo, hi, scratch);
    else if (line->wavelet->kind == WT_KIND_JPEG2000)
        conv_forward_j2k(line, in, lo, hi, scratch);
    else
        conv_forward_fb(line, in, lo, hi, scratch);
}

WT_LINE_API void wt_line_inverse(const wt_line *line, const float *lo, const float *hi, float *out,
                     void *scratch)
{
    if (line->n == 1 && line->wavelet->kind == WT_KIND_JPEG2000 && !is_periodization(line)) {
        /* JPEG 2000: a one-sample signal is its own low-pass band */
        memcpy(out, lo, B * sizeof *out);
        return;
    }
    if (line->method == WT_METHOD_LIFTING)
        lifting_inverse(line, lo, hi, out, scratch);
    else if (line->wavelet->kind == WT_KIND_JPEG2000)
        conv_inverse_j2k(line, lo, hi, out, scratch);
    else
        conv_inverse_fb(line, lo, hi, out, scratch);
}

/* ---------------------------------------------------------------------- */
/* LeGall 5/3, integer to integer (JPEG 2000 reversible):
 *   d[m] -= floor((a[m] + a[m+1]) / 2);  a[m] += floor((d[m-1] + d[m] + 2) / 4) */

/* Fill a[m] = y(2m), d[m] = y(2m+1) for m in [m0, m1) from y (len samples)
 * extended as the interleaved sequence of the line's mode (dwt_geometry.h). */
static void split_extended_i32(const int32_t *y, long len, wt_mode line_mode, long m0, long m1,
                               int32_t *a, int32_t *d)
{
    int mode = wt_interleaved_mode(line_mode);
    for (long m = m0; m < m1; m++) {
        int sign;
        long ie = wt_fold_index((int)(2 * m), (int)len, mode, &sign);
        long io = wt_fold_index((int)(2 * m + 1), (int)len, mode, &sign);
        memcpy(a + (m - m0) * B, y + ie * B, B * sizeof *a);
        memcpy(d + (m - m0) * B, y + io * B, B * sizeof *d);
    }
}

/* The steps with sign +1 (forward) or -1 (undo), wt_lift53_step: 64-bit
 * sums saturated to int32, as on the GPU; where every input of the line
 * lies within WT_LIFT53_NARROW_MAX, wt_lift53_step32, equal there and in
 * 32-bit lanes (dwt_geometry.h). */
static void legall53_predict(int32_t *a, int32_t *d, long count, int sign, int narrow)
{
    if (narrow) {
        for (long i = 0; i < (count - 1) * B; i++)
            d[i] = wt_lift53_step32(d[i], a[i], a[i + B], 0, 1, -sign);
        return;
    }
    for (long m = 0; m + 1 < count; m++)
        for (int b = 0; b < B; b++)
            d[m * B + b] = wt_lift53_step(d[m * B + b], a[m * B + b], a[(m + 1) * B + b], 0, 1,
                                          -sign);
}

static void legall53_update(int32_t *a, const int32_t *d, long count, int sign, int narrow)
{
    if (narrow) {
        for (long i = B; i < count * B; i++)
            a[i] = wt_lift53_step32(a[i], d[i - B], d[i], 2, 2, sign);
        return;
    }
    for (long m = 1; m < count; m++)
        for (int b = 0; b < B; b++)
            a[m * B + b] = wt_lift53_step(a[m * B + b], d[(m - 1) * B + b], d[m * B + b], 2, 2,
                                          sign);
}

/* Whether all of x[0, count) lie within +-WT_LIFT53_NARROW_MAX. */
static int within_narrow(const int32_t *x, long count)
{
    int outside = 0;
    for (long i = 0; i < count; i++)
        outside |= x[i] > (int32_t)WT_LIFT53_NARROW_MAX || x[i] < -(int32_t)WT_LIFT53_NARROW_MAX;
    return !outside;
}

#ifdef WT_LINE_ONCE
uint32_t wt_lift53_narrow_max(void)
{
    return WT_LIFT53_NARROW_MAX;
}
#endif

WT_LINE_API void wt_line_forward_i32(const wt_line *line, const int32_t *in, int32_t *lo, int32_t *hi,
                         int32_t *scratch)
{
    long n = (long)line->n;
    int per = is_periodization(line);
    long len = n;
    int32_t *y = scratch; /* the signal, padded to even length for periodization */
    memcpy(y, in, (size_t)n * B * sizeof *y);
    if (per && (n & 1)) {
        memcpy(y + n * B, in + (n - 1) * B, B * sizeof *y);
        len++;
    }
    long nout = (long)line->nlo, m0 = -3, m1 = nout + 3, count = m1 - m0;
    int32_t *a = y + (len + 1) * B, *d = a + count * B;
    split_extended_i32(y, len, line->mode, m0, m1, a, d);
    int narrow = within_narrow(in, n * B);
    legall53_predict(a, d, count, 1, narrow);
    legall53_update(a, d, count, 1, narrow);
    for (long k = 0; k < (long)line->nlo; k++)
        memcpy(lo + k * B, a + (k - m0) * B, B * sizeof *lo);
    for (long k = 0; k < (long)line->nhi; k++)
        memcpy(hi + k * B, d + (k - m0) * B, B * sizeof *hi);
}

WT_LINE_API void wt_line_inverse_i32(const wt_line *line, const int32_t *lo, const int32_t *hi,
                         int32_t *out, int32_t *scratch)
{
    if (line->n == 1 && !is_periodization(line)) {
        memcpy(out, lo, B * sizeof *out); /* one sample: its own low-pass band */
        return;
    }
    long n = (long)line->n, nlo = (long)line->nlo, nhi = (long)line->nhi;
    long len = nlo + nhi;
    int32_t *y = scratch;
    for (long k = 0; k < nlo; k++)
        memcpy(y + 2 * k * B, lo + k * B, B * sizeof *y);
    for (long k = 0; k < nhi; k++)
        memcpy(y + (2 * k + 1) * B, hi + k * B, B * sizeof *y);
    long m0 = -3, m1 = (len + 1) / 2 + 3, count = m1 - m0;
    int32_t *a = y + (len + 1) * B, *d = a + count * B;
    split_extended_i32(y, len, line->mode, m0, m1, a, d);
    int narrow = within_narrow(lo, nlo * B) && within_narrow(hi, nhi * B);
    legall53_update(a, d, count, -1, narrow);
    legall53_predict(a, d, count, -1, narrow);
    for (long i = 0; i < n; i++) {
        const int32_t *s = (i & 1) ? d + ((i - 1) / 2 - m0) * B : a + (i / 2 - m0) * B;
        memcpy(out + i * B, s, B * sizeof *out);
    }
}
