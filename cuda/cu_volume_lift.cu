/* Lifting passes of the CUDA engine's volumes (cu_volume.cu's
 * cu_vpass_run sends them here): one DWT level along one axis of dense
 * (C, z, y, x) device arrays by a wavelet's lifting scheme, float (cdf97,
 * dd137, haar, db3, ...) or legall53's int32 steps, with
 * src/engine/dwt_line.c's arithmetic line for line (its lifting_forward,
 * lifting_inverse, wt_line_forward_i32 and wt_line_inverse_i32): the
 * polyphase halves a[m] = x(2m + e), d[m] = x(2m + e + 1) of the extended
 * line over [m0, m0 + count), the steps in order (inverse: undone
 * backwards), the scaled halves out.
 *
 * One thread lifts one line; lines are numbered (outer, inner), so
 * neighbouring threads take neighbouring x of the z and y passes. The
 * halves live in a device scratch laid out [m][line] (neighbouring lines'
 * values side by side), for as many lines at a time as CU_VLIFT_SCRATCH
 * and half of the free device memory allow. legall53 runs the 64-bit
 * saturating step (wt_lift53_step), which the CPU engine's 32-bit step
 * equals wherever it takes that one. */
#include <stdint.h>
#include <string.h>

#include "cu_engine.h"
#include "cu_extend.cuh"
#include "transform.h"
extern "C" {
#include "dwt_line.h"
}

#define CU_VLIFT_THREADS 128

typedef struct cu_vstep {
    int update, offset, ntaps;
    float taps[8]; /* with the direction's sign */
} cu_vstep;

/* One axis of one level, as the kernels see it. */
typedef struct cu_vlift {
    int n, nlo, nhi;
    int mode;     /* the level's mode */
    int sig_mode; /* forward: the signal's extension */
    int j2k;
    int e, t, shift_lo, shift_hi; /* polyphase alignment */
    int m0, count;                /* the halves' span */
    float g_lo, g_hi;             /* forward: the scales; inverse: their inverses */
    int nsteps;
    cu_vstep steps[8]; /* in the order they run */
} cu_vlift;

/* A chunk of lines: line l of the chunk is line first + l of the pass,
 * (outer o, inner q) = divmod(first + l, inner). */
typedef struct cu_vlines {
    size_t first, count, inner;
} cu_vlines;

WT_DEV size_t line_base(const cu_vlines &L, size_t l, int len)
{
    const size_t g = L.first + l, o = g / L.inner, q = g % L.inner;
    return o * (size_t)len * L.inner + q;
}

/* Apply one float step (its taps carry the direction's sign) to the halves
 * of line l (index m at [m * lines + l]). */
WT_DEV void lift_step(const cu_vstep &st, float *a, float *d, int count, size_t lines, size_t l)
{
    float *dst = st.update ? a : d;
    const float *src = st.update ? d : a;
    const int lo = st.offset < 0 ? -st.offset : 0;
    const int reach = st.offset + st.ntaps - 1;
    const int hi = count - (reach > 0 ? reach : 0);
    for (int m = lo; m < hi; m++) {
        float acc = 0.0f;
        for (int i = 0; i < st.ntaps; i++)
            acc += st.taps[i] * src[(size_t)(m + st.offset + i) * lines + l];
        dst[(size_t)m * lines + l] += acc;
    }
}

WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_VLIFT_THREADS)
    vlift_forward(const WT_GRID_CONST cu_vlift A, const WT_GRID_CONST cu_vlines L,
                  const float *__restrict__ sig, float *__restrict__ lo, float *__restrict__ hi,
                  float *__restrict__ scratch)
{
    for (size_t l = (size_t)blockIdx.x * blockDim.x + threadIdx.x; l < L.count;
         l += (size_t)gridDim.x * blockDim.x) {
        float *a = scratch, *d = scratch + (size_t)A.count * L.count;
        const float *line = sig + line_base(L, l, A.n);
        for (int m = 0; m < A.count; m++) {
            const int x = 2 * (m + A.m0) + A.e;
            a[(size_t)m * L.count + l] = signal_at(line, L.inner, A.n, A.sig_mode, x);
            d[(size_t)m * L.count + l] = signal_at(line, L.inner, A.n, A.sig_mode, x + 1);
        }
        for (int s = 0; s < A.nsteps; s++)
            lift_step(A.steps[s], a, d, A.count, L.count, l);
        float *out_lo = lo + line_base(L, l, A.nlo), *out_hi = hi + line_base(L, l, A.nhi);
        for (int k = 0; k < A.nlo; k++)
            out_lo[(size_t)k * L.inner] =
                A.g_lo * a[(size_t)(k + A.t + A.shift_lo - A.m0) * L.count + l];
        for (int k = 0; k < A.nhi; k++)
            out_hi[(size_t)k * L.inner] =
                A.g_hi * d[(size_t)(k + A.t + A.shift_hi - A.m0) * L.count + l];
    }
}

/* Coefficient @p k of a band of @p len (periodization: periodic; else 0
 * outside), scaled. */
WT_DEV float coef_at(const float *band, size_t stride, int len, int k, int periodic, float g)
{
    if (periodic)
        k = wt_floor_mod(k, len);
    return k >= 0 && k < len ? g * band[(size_t)k * stride] : 0.0f;
}

/* Position @p i of a JPEG 2000 inverse's interleaved coefficients (lo at
 * even, hi at odd positions), extended as the level's mode says. */
template <typename T>
WT_DEV T interleaved(const T *lo, const T *hi, size_t stride, int len, int mode, int i)
{
    int sign;
    const int f = wt_fold_index(i, len, wt_interleaved_mode(mode), &sign);
    return (f & 1 ? hi : lo)[(size_t)(f >> 1) * stride];
}

WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_VLIFT_THREADS)
    vlift_inverse(const WT_GRID_CONST cu_vlift A, const WT_GRID_CONST cu_vlines L,
                  const float *__restrict__ lo, const float *__restrict__ hi,
                  float *__restrict__ sig, float *__restrict__ scratch)
{
    for (size_t l = (size_t)blockIdx.x * blockDim.x + threadIdx.x; l < L.count;
         l += (size_t)gridDim.x * blockDim.x) {
        float *a = scratch, *d = scratch + (size_t)A.count * L.count;
        const float *in_lo = lo + line_base(L, l, A.nlo), *in_hi = hi + line_base(L, l, A.nhi);
        float *out = sig + line_base(L, l, A.n);
        if (A.j2k && A.n == 1 && A.mode != WT_MODE_PERIODIZATION) {
            out[0] = in_lo[0]; /* a one-sample signal is its own low-pass band */
            continue;
        }
        const int per = A.mode == WT_MODE_PERIODIZATION, len = A.nlo + A.nhi;
        for (int m = 0; m < A.count; m++) {
            const int mm = m + A.m0;
            float va, vd;
            if (A.j2k) {
                va = A.g_lo * interleaved(in_lo, in_hi, L.inner, len, A.mode, 2 * mm);
                vd = A.g_hi * interleaved(in_lo, in_hi, L.inner, len, A.mode, 2 * mm + 1);
            } else {
                va = coef_at(in_lo, L.inner, A.nlo, mm - A.t - A.shift_lo, per, A.g_lo);
                vd = coef_at(in_hi, L.inner, A.nhi, mm - A.t - A.shift_hi, per, A.g_hi);
            }
            a[(size_t)m * L.count + l] = va;
            d[(size_t)m * L.count + l] = vd;
        }
        for (int s = 0; s < A.nsteps; s++)
            lift_step(A.steps[s], a, d, A.count, L.count, l);
        for (int i = 0; i < A.n; i++) {
            const int p = i - A.e; /* a[m] = x(2m + e) */
            const float *h = p & 1 ? d + (size_t)((p - 1) / 2 - A.m0) * L.count
                                   : a + (size_t)(p / 2 - A.m0) * L.count;
            out[(size_t)i * L.inner] = h[l];
        }
    }
}

/* ---- legall53, integer to integer --------------------------------------------------- */

/* predict: d[m] -/+= floor((a[m] + a[m+1]) / 2), m in [0, count - 1);
 * update: a[m] +/-= floor((d[m-1] + d[m] + 2) / 4), m in [1, count). */
WT_DEV void lift53_predict(const int32_t *a, int32_t *d, int count, size_t lines, size_t l,
                           int sign)
{
    for (int m = 0; m + 1 < count; m++)
        d[m * lines + l] =
            wt_lift53_step(d[m * lines + l], a[m * lines + l], a[(m + 1) * lines + l], 0, 1, -sign);
}

WT_DEV void lift53_update(int32_t *a, const int32_t *d, int count, size_t lines, size_t l,
                          int sign)
{
    for (int m = 1; m < count; m++)
        a[m * lines + l] =
            wt_lift53_step(a[m * lines + l], d[(m - 1) * lines + l], d[m * lines + l], 2, 2, sign);
}

/* Sample @p i of a line extended as wt_line_forward_i32 does (the
 * interleaved sequence's folding; periodization pads an odd line with its
 * last sample). */
WT_DEV int32_t sample53(const cu_vlift &A, const int32_t *line, size_t stride, int i)
{
    const int len = A.mode == WT_MODE_PERIODIZATION ? A.n + (A.n & 1) : A.n;
    int sign;
    const int x = wt_fold_index(i, len, wt_interleaved_mode(A.mode), &sign);
    return line[(size_t)(x < A.n ? x : A.n - 1) * stride];
}

WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_VLIFT_THREADS)
    vlift53_forward(const WT_GRID_CONST cu_vlift A, const WT_GRID_CONST cu_vlines L,
                    const int32_t *__restrict__ sig, int32_t *__restrict__ lo,
                    int32_t *__restrict__ hi, int32_t *__restrict__ scratch)
{
    for (size_t l = (size_t)blockIdx.x * blockDim.x + threadIdx.x; l < L.count;
         l += (size_t)gridDim.x * blockDim.x) {
        int32_t *a = scratch, *d = scratch + (size_t)A.count * L.count;
        const int32_t *line = sig + line_base(L, l, A.n);
        for (int m = 0; m < A.count; m++) {
            a[(size_t)m * L.count + l] = sample53(A, line, L.inner, 2 * (m + A.m0));
            d[(size_t)m * L.count + l] = sample53(A, line, L.inner, 2 * (m + A.m0) + 1);
        }
        lift53_predict(a, d, A.count, L.count, l, 1);
        lift53_update(a, d, A.count, L.count, l, 1);
        int32_t *out_lo = lo + line_base(L, l, A.nlo), *out_hi = hi + line_base(L, l, A.nhi);
        for (int k = 0; k < A.nlo; k++)
            out_lo[(size_t)k * L.inner] = a[(size_t)(k - A.m0) * L.count + l];
        for (int k = 0; k < A.nhi; k++)
            out_hi[(size_t)k * L.inner] = d[(size_t)(k - A.m0) * L.count + l];
    }
}

WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_VLIFT_THREADS)
    vlift53_inverse(const WT_GRID_CONST cu_vlift A, const WT_GRID_CONST cu_vlines L,
                    const int32_t *__restrict__ lo, const int32_t *__restrict__ hi,
                    int32_t *__restrict__ sig, int32_t *__restrict__ scratch)
{
    for (size_t l = (size_t)blockIdx.x * blockDim.x + threadIdx.x; l < L.count;
         l += (size_t)gridDim.x * blockDim.x) {
        int32_t *a = scratch, *d = scratch + (size_t)A.count * L.count;
        const int32_t *in_lo = lo + line_base(L, l, A.nlo), *in_hi = hi + line_base(L, l, A.nhi);
        int32_t *out = sig + line_base(L, l, A.n);
        if (A.n == 1 && A.mode != WT_MODE_PERIODIZATION) {
            out[0] = in_lo[0];
            continue;
        }
        const int len = A.nlo + A.nhi;
        for (int m = 0; m < A.count; m++) {
            a[(size_t)m * L.count + l] =
                interleaved(in_lo, in_hi, L.inner, len, A.mode, 2 * (m + A.m0));
            d[(size_t)m * L.count + l] =
                interleaved(in_lo, in_hi, L.inner, len, A.mode, 2 * (m + A.m0) + 1);
        }
        lift53_update(a, d, A.count, L.count, l, -1);
        lift53_predict(a, d, A.count, L.count, l, -1);
        for (int i = 0; i < A.n; i++) {
            const int32_t *h = i & 1 ? d + (size_t)((i - 1) / 2 - A.m0) * L.count
                                     : a + (size_t)(i / 2 - A.m0) * L.count;
            out[(size_t)i * L.inner] = h[l];
        }
    }
}

/* ---- tiled: a block lifts CU_VLT_LINES lines in shared memory -----------------------
 *
 * The per-line kernels above walk each line serially on one thread and keep
 * the halves in global scratch: every step reads and writes the scratch,
 * and the x pass's threads read and write lines n apart (no coalescing).
 * Here a block (32 x 8 threads) takes 32 consecutive lines of the pass
 * whole: their halves come into shared memory (the extension evaluated at
 * the ends), each step runs over every (line, m) of the block at once (a
 * barrier between steps), and the scaled halves go out. Loads and stores
 * are coalesced on both kinds of pass: x lines (inner 1) a warp a line,
 * the lanes along it; z and y lines (inner > 1) the lanes across the 32
 * lines, which are neighbours in memory. The halves are laid out
 * [line][pitch] with an odd pitch, so the lanes of a warp at one m (or
 * along m) fall in distinct banks. One read and one write of the pass's
 * samples; lines whose halves do not fit the block's shared memory take the
 * per-line kernels. */

#define CU_VLT_LINES 32
#define CU_VLT_ROWS 8
#define CU_VLT_THREADS (CU_VLT_LINES * CU_VLT_ROWS)

/* The pass as the tiled kernels see it: its lines (outer x inner), and the
 * halves' pitch in shared memory (A.count, made odd). */
typedef struct cu_vltile {
    size_t lines, inner;
    int pitch;
} cu_vltile;

/* A block's shared memory: its lines' outer and inner indices, then the
 * halves a[line][pitch] and d[line][pitch] (16 values apart from a's end:
 * a[l][m] and d[l][m] in different banks). */
template <typename T> struct vlt_block {
    size_t *o, *q;
    T *a, *d;
    int nl; /* lines of this block (the last block: fewer) */
};

static size_t vlt_smem_bytes(int pitch)
{
    return 2 * CU_VLT_LINES * sizeof(size_t) + (2 * (size_t)CU_VLT_LINES * pitch + 16) * 4;
}

/* This block's lines and halves in @p smem; its (o, q) computed (a barrier
 * after). */
template <typename T> WT_DEV vlt_block<T> vlt_begin(const cu_vltile &L, void *smem)
{
    vlt_block<T> B;
    B.o = (size_t *)smem;
    B.q = B.o + CU_VLT_LINES;
    B.a = (T *)(B.q + CU_VLT_LINES);
    B.d = B.a + (size_t)CU_VLT_LINES * L.pitch + 16;
    const size_t first = (size_t)blockIdx.x * CU_VLT_LINES;
    B.nl = (int)(L.lines - first < CU_VLT_LINES ? L.lines - first : CU_VLT_LINES);
    for (int l = (int)(threadIdx.y * blockDim.x + threadIdx.x); l < B.nl;
         l += (int)(blockDim.x * blockDim.y)) {
        B.o[l] = (first + l) / L.inner;
        B.q[l] = (first + l) % L.inner;
    }
    WT_SYNC();
    return B;
}

/* Position @p j of line @p l's polyphase halves: a[j / 2] (even), d (odd). */
template <typename T> WT_DEV void vlt_half(const vlt_block<T> &B, int pitch, int l, int j, T v)
{
    T *half = j & 1 ? B.d : B.a; /* not (c ? d : a)[i]: g++ 12 -fsanitize=undefined -O2 drops
                                  * i's j >> 1 there (the emulation's ASan build) */
    half[l * pitch + (j >> 1)] = v;
}

/* Element @p i of line @p l of an array @p len long along the axis. */
template <typename T>
WT_DEV size_t vlt_at(const vlt_block<T> &B, const cu_vltile &L, int len, int l, int i)
{
    return (B.o[l] * (size_t)len + (size_t)i) * L.inner + B.q[l];
}

/* f(l, i) for every line l of the block and i < @p n, coalesced: @p ROWS
 * (x lines, inner 1) a warp a line, the lanes along it; else the lanes
 * across the lines. */
template <bool ROWS, typename F> WT_DEV void vlt_for(int nl, int n, F f)
{
    if (ROWS) {
        for (int l = (int)threadIdx.y; l < nl; l += (int)blockDim.y)
            for (int i = (int)threadIdx.x; i < n; i += (int)blockDim.x)
                f(l, i);
    } else {
        for (int i = (int)threadIdx.y; i < n; i += (int)blockDim.y)
            for (int l = (int)threadIdx.x; l < nl; l += (int)blockDim.x)
                f(l, i);
    }
}

/* put(l, i, get(l, i)) over vlt_for's (l, i), CU_VLT_BATCH loads a thread
 * issued before their values are stored (bytes in flight: a block's
 * loads are otherwise one a thread at a time). */
#define CU_VLT_BATCH 8
template <bool ROWS, typename T, typename G, typename P>
WT_DEV void vlt_load(int nl, int n, G get, P put)
{
    /* vlt_for's order: lines from l0 by dl, positions from i0 by di */
    const int l0 = (int)(ROWS ? threadIdx.y : threadIdx.x), dl = (int)(ROWS ? blockDim.y : blockDim.x);
    const int i0 = (int)(ROWS ? threadIdx.x : threadIdx.y), di = (int)(ROWS ? blockDim.x : blockDim.y);
    for (int l = l0; l < nl; l += dl)
        for (int i = i0; i < n; i += CU_VLT_BATCH * di) {
            T v[CU_VLT_BATCH];
#pragma unroll
            for (int u = 0; u < CU_VLT_BATCH; u++)
                if (i + u * di < n)
                    v[u] = get(l, i + u * di);
#pragma unroll
            for (int u = 0; u < CU_VLT_BATCH; u++)
                if (i + u * di < n)
                    put(l, i + u * di, v[u]);
        }
}

/* f(l, m) for every line l of the block and m in [@p m_lo, @p m_hi), the
 * lanes across the lines (distinct banks: the pitch is odd). */
template <typename F> WT_DEV void vlt_for_m(int nl, int m_lo, int m_hi, F f)
{
    const int n = CU_VLT_LINES * (m_hi - m_lo);
    for (int e = (int)(threadIdx.y * blockDim.x + threadIdx.x); e < n;
         e += (int)(blockDim.x * blockDim.y)) {
        const int l = e % CU_VLT_LINES;
        if (l < nl)
            f(l, m_lo + e / CU_VLT_LINES);
    }
}

/* One float step over the block's halves (lift_step's range), then a
 * barrier. */
WT_DEV void vlt_step(const cu_vstep &st, const vlt_block<float> &B, int count, int pitch)
{
    float *dst = st.update ? B.a : B.d;
    const float *src = st.update ? B.d : B.a;
    const int reach = st.offset + st.ntaps - 1;
    vlt_for_m(B.nl, st.offset < 0 ? -st.offset : 0, count - (reach > 0 ? reach : 0),
              [&](int l, int m) {
                  const float *s = src + l * pitch + m + st.offset;
                  float acc = 0.0f;
                  for (int i = 0; i < st.ntaps; i++)
                      acc += st.taps[i] * s[i];
                  dst[l * pitch + m] += acc;
              });
    WT_SYNC();
}

/* legall53's predict and update (lift53_predict, lift53_update) over the
 * block's halves, each followed by a barrier. */
WT_DEV void vlt_predict53(const vlt_block<int32_t> &B, int count, int pitch, int sign)
{
    vlt_for_m(B.nl, 0, count - 1, [&](int l, int m) {
        int32_t *d = B.d + l * pitch + m;
        const int32_t *a = B.a + l * pitch + m;
        *d = wt_lift53_step(*d, a[0], a[1], 0, 1, -sign);
    });
    WT_SYNC();
}

WT_DEV void vlt_update53(const vlt_block<int32_t> &B, int count, int pitch, int sign)
{
    vlt_for_m(B.nl, 1, count, [&](int l, int m) {
        int32_t *a = B.a + l * pitch + m;
        const int32_t *d = B.d + l * pitch + m;
        *a = wt_lift53_step(*a, d[-1], d[0], 2, 2, sign);
    });
    WT_SYNC();
}

/* Sample @p i of a line from the lifted halves (a[m] = x(2m + e)). */
template <typename T>
WT_DEV T vlt_sample(const vlt_block<T> &B, int pitch, int l, int i, int e, int m0)
{
    const int p = i - e;
    return p & 1 ? B.d[l * pitch + (p - 1) / 2 - m0] : B.a[l * pitch + p / 2 - m0];
}

/* A one-sample line that is its own low-pass band (JPEG 2000 and
 * legall53 but in periodization): copied. */
template <bool ROWS, typename T>
WT_DEV void vlt_copy_one(const vlt_block<T> &B, const cu_vltile &L, int nlo, const T *lo, T *sig)
{
    vlt_for<ROWS>(B.nl, 1, [&](int l, int i) { sig[vlt_at(B, L, 1, l, i)] = lo[vlt_at(B, L, nlo, l, i)]; });
}

/* What the float schemes and legall53 (int32) do differently in the
 * tiled kernels' common shape (vlt_forward, vlt_inverse): each overload
 * one type's part, the arithmetic of the per-line kernels above. */

/* Forward: sample j of a block line's halves (x(2 m0 + e + j)), extended. */
WT_DEV float vlt_signal(const cu_vlift &A, const cu_vltile &L, const float *line, int j)
{
    const int x = 2 * A.m0 + A.e + j;
    return x >= 0 && x < A.n ? line[(size_t)x * L.inner]
                             : signal_at(line, L.inner, A.n, A.sig_mode, x);
}
WT_DEV int32_t vlt_signal(const cu_vlift &A, const cu_vltile &L, const int32_t *line, int j)
{
    return sample53(A, line, L.inner, 2 * A.m0 + j);
}

/* Inverse: half j & 1 at m = j / 2 + m0 of a block line, from its bands. */
WT_DEV float vlt_coef(const cu_vlift &A, const cu_vltile &L, const float *lo, const float *hi,
                      int j)
{
    const int mm = (j >> 1) + A.m0, per = A.mode == WT_MODE_PERIODIZATION;
    if (A.j2k)
        return (j & 1 ? A.g_hi : A.g_lo) *
               interleaved(lo, hi, L.inner, A.nlo + A.nhi, A.mode, 2 * mm + (j & 1));
    return j & 1 ? coef_at(hi, L.inner, A.nhi, mm - A.t - A.shift_hi, per, A.g_hi)
                 : coef_at(lo, L.inner, A.nlo, mm - A.t - A.shift_lo, per, A.g_lo);
}
WT_DEV int32_t vlt_coef(const cu_vlift &A, const cu_vltile &L, const int32_t *lo,
                        const int32_t *hi, int j)
{
    return interleaved(lo, hi, L.inner, A.nlo + A.nhi, A.mode, 2 * A.m0 + j);
}

/* The lifting steps over the block's halves, forward or (@p inverse)
 * backward. */
WT_DEV void vlt_lift(const cu_vlift &A, const vlt_block<float> &B, int pitch, int inverse)
{
    (void)inverse; /* vlift_of gives each direction its steps */
    for (int s = 0; s < A.nsteps; s++)
        vlt_step(A.steps[s], B, A.count, pitch);
}
WT_DEV void vlt_lift(const cu_vlift &A, const vlt_block<int32_t> &B, int pitch, int inverse)
{
    if (inverse) {
        vlt_update53(B, A.count, pitch, -1);
        vlt_predict53(B, A.count, pitch, -1);
    } else {
        vlt_predict53(B, A.count, pitch, 1);
        vlt_update53(B, A.count, pitch, 1);
    }
}

/* Forward: coefficient k of band @p p (0 lo, 1 hi) from a block line's
 * half (@p half: its row), scaled. */
WT_DEV float vlt_band(const cu_vlift &A, const float *half, int k, int p)
{
    return p ? A.g_hi * half[k + A.t + A.shift_hi - A.m0]
             : A.g_lo * half[k + A.t + A.shift_lo - A.m0];
}
WT_DEV int32_t vlt_band(const cu_vlift &A, const int32_t *half, int k, int p)
{
    (void)p;
    return half[k - A.m0];
}

/* Inverse: a one-sample line is its own low-pass band (JPEG 2000 kinds;
 * legall53 always), and where the halves start (x(2m + e) in a). */
WT_DEV int vlt_own_band(const cu_vlift &A, const float *)
{
    return A.j2k && A.n == 1 && A.mode != WT_MODE_PERIODIZATION;
}
WT_DEV int vlt_own_band(const cu_vlift &A, const int32_t *)
{
    return A.n == 1 && A.mode != WT_MODE_PERIODIZATION;
}
WT_DEV int vlt_even(const cu_vlift &A, const float *)
{
    return A.e;
}
WT_DEV int vlt_even(const cu_vlift &, const int32_t *)
{
    return 0;
}

template <bool ROWS, typename T>
WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_VLT_THREADS)
    vlt_forward(const WT_GRID_CONST cu_vlift A, const WT_GRID_CONST cu_vltile L,
                const T *__restrict__ sig, T *__restrict__ lo, T *__restrict__ hi)
{
    WT_DYN_SMEM(float, smem);
    const vlt_block<T> B = vlt_begin<T>(L, smem);
    const int pitch = L.pitch;
    vlt_load<ROWS, T>(
        B.nl, 2 * A.count,
        [&](int l, int j) { return vlt_signal(A, L, sig + vlt_at(B, L, A.n, l, 0), j); },
        [&](int l, int j, T v) { vlt_half(B, pitch, l, j, v); });
    WT_SYNC();
    vlt_lift(A, B, pitch, 0);
    vlt_for<ROWS>(B.nl, A.nlo, [&](int l, int k) {
        lo[vlt_at(B, L, A.nlo, l, k)] = vlt_band(A, B.a + l * pitch, k, 0);
    });
    vlt_for<ROWS>(B.nl, A.nhi, [&](int l, int k) {
        hi[vlt_at(B, L, A.nhi, l, k)] = vlt_band(A, B.d + l * pitch, k, 1);
    });
}

template <bool ROWS, typename T>
WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_VLT_THREADS)
    vlt_inverse(const WT_GRID_CONST cu_vlift A, const WT_GRID_CONST cu_vltile L,
                const T *__restrict__ lo, const T *__restrict__ hi, T *__restrict__ sig)
{
    WT_DYN_SMEM(float, smem);
    const vlt_block<T> B = vlt_begin<T>(L, smem);
    const int pitch = L.pitch;
    if (vlt_own_band(A, sig)) {
        vlt_copy_one<ROWS>(B, L, A.nlo, lo, sig);
        return;
    }
    vlt_load<ROWS, T>(
        B.nl, 2 * A.count,
        [&](int l, int j) {
            return vlt_coef(A, L, lo + vlt_at(B, L, A.nlo, l, 0), hi + vlt_at(B, L, A.nhi, l, 0),
                            j);
        },
        [&](int l, int j, T v) { vlt_half(B, pitch, l, j, v); });
    WT_SYNC();
    vlt_lift(A, B, pitch, 1);
    const int e = vlt_even(A, sig);
    vlt_for<ROWS>(B.nl, A.n, [&](int l, int i) {
        sig[vlt_at(B, L, A.n, l, i)] = vlt_sample(B, pitch, l, i, e, A.m0);
    });
}

/* ---- host side ---------------------------------------------------------------------- */

/* The float scheme of @p line in one direction (dwt_line.c's spans). */
static cu_vlift vlift_of(const wt_line *line, int inverse)
{
    const wt_wavelet *w = line->wavelet;
    const wt_lifting *S = w->lifting;
    cu_vlift A;
    memset(&A, 0, sizeof A);
    A.n = (int)line->n;
    A.nlo = (int)line->nlo;
    A.nhi = (int)line->nhi;
    A.mode = (int)line->mode;
    A.sig_mode = wt_signal_mode(w, line->mode);
    A.j2k = w->kind == WT_KIND_JPEG2000;
    if (w->integer) { /* wt_line_forward_i32 / wt_line_inverse_i32 */
        A.m0 = -3;
        A.count = (inverse ? (A.nlo + A.nhi + 1) / 2 : A.nlo) + 6;
        return A;
    }
    wt_lifting_alignment(w, line->mode, &A.e, &A.t);
    const int R = wt_lifting_reach(S);
    A.shift_lo = S->shift_lo;
    A.shift_hi = S->shift_hi;
    if (inverse) {
        A.m0 = (0 - A.e) / 2 - 1 - R;
        A.count = (A.n - A.e) / 2 + 1 + R - A.m0;
        A.g_lo = (float)(1.0 / S->scale_lo);
        A.g_hi = (float)(1.0 / S->scale_hi);
    } else {
        const int nout = A.nlo > A.nhi ? A.nlo : A.nhi;
        const int smin = S->shift_lo < S->shift_hi ? S->shift_lo : S->shift_hi;
        const int smax = S->shift_lo > S->shift_hi ? S->shift_lo : S->shift_hi;
        A.m0 = A.t + smin - R;
        A.count = A.t + smax + nout + R - A.m0;
        A.g_lo = (float)S->scale_lo;
        A.g_hi = (float)S->scale_hi;
    }
    A.nsteps = S->nsteps;
    for (int s = 0; s < S->nsteps; s++) {
        const wt_lifting_step *src = &S->steps[inverse ? S->nsteps - 1 - s : s];
        cu_vstep *st = &A.steps[s];
        st->update = src->update;
        st->offset = src->offset;
        st->ntaps = src->ntaps;
        for (int i = 0; i < src->ntaps; i++) /* dwt_line.c: sign * (real)tap */
            st->taps[i] = inverse ? -(float)src->taps[i] : (float)src->taps[i];
    }
    return A;
}

static wt_status vlift_launch(cu_engine *ce, const cu_vlift &A, const cu_vlines &L,
                              const wt_vpass *p, void *scratch)
{
    size_t blocks = (L.count + CU_VLIFT_THREADS - 1) / CU_VLIFT_THREADS;
    const size_t cap = (size_t)ce->sms * 32;
    const dim3 grid((unsigned)(blocks < cap ? blocks : cap)), block(CU_VLIFT_THREADS);
    if (p->dtype == WT_INT32 && p->inverse)
        WT_LAUNCH(vlift53_inverse, grid, block, 0, ce->stream, A, L, (const int32_t *)p->lo,
                  (const int32_t *)p->hi, (int32_t *)p->sig, (int32_t *)scratch);
    else if (p->dtype == WT_INT32)
        WT_LAUNCH(vlift53_forward, grid, block, 0, ce->stream, A, L, (const int32_t *)p->sig,
                  (int32_t *)p->lo, (int32_t *)p->hi, (int32_t *)scratch);
    else if (p->inverse)
        WT_LAUNCH(vlift_inverse, grid, block, 0, ce->stream, A, L, (const float *)p->lo,
                  (const float *)p->hi, (float *)p->sig, (float *)scratch);
    else
        WT_LAUNCH(vlift_forward, grid, block, 0, ce->stream, A, L, (const float *)p->sig,
                  (float *)p->lo, (float *)p->hi, (float *)scratch);
    CU_CHECK_CE(ce, cudaGetLastError());
    return WT_OK;
}

/* One tiled kernel: its shared memory allowed, launched. */
template <typename K, typename... Args>
static wt_status vlt_go(cu_engine *ce, K kernel, size_t lines, size_t smem, Args... args)
{
    CU_CHECK_CE(ce, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem));
    const dim3 grid((unsigned)((lines + CU_VLT_LINES - 1) / CU_VLT_LINES)),
        block(CU_VLT_LINES, CU_VLT_ROWS);
    WT_LAUNCH(kernel, grid, block, smem, ce->stream, args...);
    CU_CHECK_CE(ce, cudaGetLastError());
    return WT_OK;
}

/* The tiled kernel of @p p's type and direction (@p ROWS: x lines). */
template <bool ROWS, typename T>
static wt_status vlt_launch_as(cu_engine *ce, const cu_vlift &A, const cu_vltile &L,
                               const wt_vpass *p, size_t smem)
{
    if (p->inverse)
        return vlt_go(ce, vlt_inverse<ROWS, T>, L.lines, smem, A, L, (const T *)p->lo,
                      (const T *)p->hi, (T *)p->sig);
    return vlt_go(ce, vlt_forward<ROWS, T>, L.lines, smem, A, L, (const T *)p->sig, (T *)p->lo,
                  (T *)p->hi);
}

template <bool ROWS>
static wt_status vlt_launch(cu_engine *ce, const cu_vlift &A, const cu_vltile &L,
                            const wt_vpass *p, size_t smem)
{
    return p->dtype == WT_INT32 ? vlt_launch_as<ROWS, int32_t>(ce, A, L, p, smem)
                                : vlt_launch_as<ROWS, float>(ce, A, L, p, smem);
}

/* The tiled kernels where a block's halves fit its shared memory (and the
 * policy's vol_lift_tile allows; 0: the per-line kernels, to compare). */
static int vlt_plan(const cu_engine *ce, const cu_vlift &A, size_t outer, size_t inner,
                    cu_vltile *L, size_t *smem)
{
    L->lines = outer * inner;
    L->inner = inner;
    L->pitch = A.count | 1;
    *smem = vlt_smem_bytes(L->pitch);
    return ce->pol.vol_lift_tile && *smem <= ce->smem_limit &&
           (L->lines + CU_VLT_LINES - 1) / CU_VLT_LINES <= 0x7fffffffu;
}

/* Tiled lifting passes launched so far on lines along x and across them
 * (wt_cuda_volume_lift_tiles: tests see that both run). */
static long vlt_launches[2];

extern "C" long wt_cuda_volume_lift_tiles(int rows)
{
    return vlt_launches[rows != 0];
}

wt_status cu_vlift_pass(cu_engine *ce, const wt_vpass *p)
{
    const cu_vlift A = vlift_of(p->line, p->inverse);
    size_t outer, inner;
    cu_vaxis_extents(p->shape, p->axis, p->channels, &outer, &inner);
    const size_t lines = outer * inner, line_bytes = 2 * (size_t)A.count * 4;
    if (lines == 0 || (p->inverse ? A.n : A.nlo + A.nhi) == 0)
        return WT_OK; /* nothing to compute (an empty band's pass) */
    cu_vltile T;
    size_t smem;
    if (vlt_plan(ce, A, outer, inner, &T, &smem)) {
        vlt_launches[inner == 1]++;
        return inner == 1 ? vlt_launch<true>(ce, A, T, p, smem)
                          : vlt_launch<false>(ce, A, T, p, smem);
    }
    const size_t half = cu_device_free_bytes(ce) / 2;
    const size_t budget = half < CU_VLIFT_SCRATCH ? half : CU_VLIFT_SCRATCH;
    size_t chunk = budget / line_bytes;
    chunk = chunk < lines ? chunk : lines;
    if (chunk == 0)
        return wt_error_set(WT_ERR_DEVICE_NOMEM,
                            "GPU out of memory: a lifting pass needs %zu bytes of scratch",
                            line_bytes);
    void *scratch = NULL;
    WT_TRY(cu_device_alloc(ce, &scratch, chunk * line_bytes));
    wt_status st = WT_OK;
    for (size_t first = 0; first < lines && st == WT_OK; first += chunk) {
        const cu_vlines L = {first, chunk < lines - first ? chunk : lines - first, inner};
        st = vlift_launch(ce, A, L, p, scratch);
    }
    /* the scratch goes back once the stream has used it */
    const wt_status done = cu_fail_check(cudaStreamSynchronize(ce->stream),
                                         "cudaStreamSynchronize");
    cu_device_free(ce, scratch, chunk * line_bytes);
    return st == WT_OK ? done : st;
}
