/* Host side of the level operators: translate a wavelet, mode and method
 * into the window/steps/filter form of cu_plan.h, following dwt_line.c
 * position by position (see the comments there for the definitions; the
 * geometry both use is dwt_geometry.h). */
#include <string.h>

#include "cu_plan.h"
#include "cu_tuning.h"
#include "dwt_geometry.h"

static int imax(int a, int b)
{
    return a > b ? a : b;
}

static int imin(int a, int b)
{
    return a < b ? a : b;
}

/* floor(a / 2) for any sign */
static int half_floor(int a)
{
    return a >= 0 ? a / 2 : -((-a + 1) / 2);
}

static void set_phase(cu_axis *ax, int phase, int off, int len, const double *taps)
{
    float *f = phase ? ax->f1 : ax->f0;
    double *g = phase ? ax->g1 : ax->g0;
    for (int i = 0; i < len; i++) {
        f[i] = (float)taps[i];
        g[i] = taps[i];
    }
    if (phase) {
        ax->off1 = off;
        ax->len1 = len;
    } else {
        ax->off0 = off;
        ax->len0 = len;
    }
}

/* A dense tap array over window offsets [0, CU_MAXF * 2): trim the unused
 * ends and store it as one phase. */
static wt_status set_dense_phase(cu_axis *ax, int phase, const double *dense, const char *used,
                                 int size)
{
    int lo = size, hi = -1;
    for (int i = 0; i < size; i++)
        if (used[i]) {
            lo = imin(lo, i);
            hi = imax(hi, i);
        }
    if (hi < lo) {
        set_phase(ax, phase, 0, 0, dense);
        return WT_OK;
    }
    if (hi - lo + 1 > CU_MAXF)
        return wt_error_set(WT_ERR_UNSUPPORTED, "CUDA engine: filter of %d taps is too long",
                            hi - lo + 1);
    set_phase(ax, phase, lo, hi - lo + 1, dense + lo);
    return WT_OK;
}

static void conv_halo(cu_axis *ax)
{
    int need = imax(ax->off0 + ax->len0, ax->off1 + ax->len1) - 2;
    need = imax(need, 0);
    ax->halo = imax(ax->halo, need + (need & 1));
}

/* Lifting steps, forward order (sign +1) or undone in reverse (sign -1). */
static void set_steps(cu_axis *ax, const wt_wavelet *w, int inverse)
{
    const wt_lifting *L = w->lifting;
    ax->nsteps = L->nsteps;
    for (int s = 0; s < L->nsteps; s++) {
        const wt_lifting_step *src = &L->steps[inverse ? L->nsteps - 1 - s : s];
        cu_step *dst = &ax->steps[s];
        memset(dst, 0, sizeof *dst);
        dst->update = src->update;
        dst->offset = src->offset;
        dst->ntaps = src->ntaps;
        for (int i = 0; i < src->ntaps; i++)
            dst->taps[i] = inverse ? -(float)src->taps[i] : (float)src->taps[i];
        if (w->integer) {
            /* legall53: predict d -= floor((a[m] + a[m+1]) / 2),
             * update a += floor((d[m-1] + d[m] + 2) / 4) */
            dst->ibias = src->update ? 2 : 0;
            dst->ishift = src->update ? 2 : 1;
            dst->isign = (src->update ? 1 : -1) * (inverse ? -1 : 1);
        }
    }
}

static wt_status forward_axis(cu_axis *ax, const wt_params *p, int n)
{
    const wt_wavelet *w = p->wavelet;
    int j2k = w->kind == WT_KIND_JPEG2000;
    ax->ext = wt_signal_mode(w, p->mode);
    ax->n = n;
    if (p->method == WT_METHOD_LIFTING) {
        const wt_lifting *L = w->lifting;
        int R = wt_lifting_reach(L), e, t;
        wt_lifting_alignment(w, p->mode, &e, &t);
        int smin = imin(L->shift_lo, L->shift_hi), smax = imax(L->shift_lo, L->shift_hi);
        ax->win_a = 2 * (t + smin - R) + e;
        ax->halo = 2 * (smax - smin + 2 * R);
        set_steps(ax, w, 0);
        set_phase(ax, 0, 2 * (L->shift_lo - smin + R), 1, &L->scale_lo);
        set_phase(ax, 1, 2 * (L->shift_hi - smin + R) + 1, 1, &L->scale_hi);
    } else if (j2k) {
        int rl = w->support_lo / 2, rh = w->support_hi / 2, r = imax(rl, rh);
        ax->win_a = -r;
        if (w->support_lo > CU_MAXF || w->support_hi > CU_MAXF)
            return wt_error_set(WT_ERR_UNSUPPORTED, "CUDA engine: filter too long");
        set_phase(ax, 0, r - rl, w->support_lo, w->dec_lo);
        set_phase(ax, 1, 1 + r - rh, w->support_hi, w->dec_hi);
    } else {
        int F = w->filter_len, s0 = wt_forward_start(w, p->mode);
        if (F > CU_MAXF)
            return wt_error_set(WT_ERR_UNSUPPORTED, "CUDA engine: filter too long");
        double rlo[CU_MAXF], rhi[CU_MAXF];
        for (int i = 0; i < F; i++) {
            rlo[i] = w->dec_lo[F - 1 - i];
            rhi[i] = w->dec_hi[F - 1 - i];
        }
        ax->win_a = s0 - (F - 1);
        set_phase(ax, 0, 0, F, rlo);
        set_phase(ax, 1, 0, F, rhi);
    }
    conv_halo(ax);
    return WT_OK;
}

#define DENSE (4 * CU_MAXF)

/* Filter-bank synthesis: x[o] = sum_j rec_lo[j] lo[(o+off-j)/2] + rec_hi[j] hi[...]. */
static wt_status inverse_fb_conv(cu_axis *ax, const wt_wavelet *w, wt_mode mode)
{
    int F = w->filter_len, off = wt_inverse_offset(w, mode);
    int b = half_floor(off - F + 1), c = off - 2 * b;
    ax->win_a = 2 * b;
    for (int ph = 0; ph < 2; ph++) {
        double dense[DENSE] = {0};
        char used[DENSE] = {0};
        for (int j = 0; j < F; j++) {
            if (((j - ph - off) & 1) != 0)
                continue;
            int i = ph + c - j;
            if (i < 0 || i + 1 >= DENSE)
                return wt_error_set(WT_ERR_UNSUPPORTED, "CUDA engine: filter too long");
            dense[i] = w->rec_lo[j];
            dense[i + 1] = w->rec_hi[j];
            used[i] = used[i + 1] = 1;
        }
        wt_status st = set_dense_phase(ax, ph, dense, used, DENSE);
        if (st != WT_OK)
            return st;
    }
    return WT_OK;
}

/* JPEG 2000 synthesis on the interleaved, extended sequence y:
 * x[i] = sum_t sl[t+rl] y(i-t) [i-t even] + sh[t+rh] y(i-t) [i-t odd]. */
static wt_status inverse_j2k_conv(cu_axis *ax, const wt_wavelet *w)
{
    int rl = w->support_hi / 2, rh = w->support_lo / 2, r = imax(rl, rh);
    ax->win_a = 2 * half_floor(-r);
    for (int ph = 0; ph < 2; ph++) {
        double dense[DENSE] = {0};
        char used[DENSE] = {0};
        for (int t = -r; t <= r; t++) {
            int i = ph - t - ax->win_a, even = ((ph - t) & 1) == 0;
            if (i < 0 || i >= DENSE)
                return wt_error_set(WT_ERR_UNSUPPORTED, "CUDA engine: filter too long");
            if (even && t >= -rl && t <= rl) {
                dense[i] = w->rec_lo[t + rl];
                used[i] = 1;
            } else if (!even && t >= -rh && t <= rh) {
                dense[i] = w->rec_hi[t + rh];
                used[i] = 1;
            }
        }
        wt_status st = set_dense_phase(ax, ph, dense, used, DENSE);
        if (st != WT_OK)
            return st;
    }
    return WT_OK;
}

static wt_status inverse_axis(cu_axis *ax, const wt_params *p, int n)
{
    const wt_wavelet *w = p->wavelet;
    int per = p->mode == WT_MODE_PERIODIZATION, j2k = w->kind == WT_KIND_JPEG2000;
    const double one = 1.0;
    ax->n = (int)wt_coeff_len((size_t)n, w, p->mode, 0);
    ax->n1 = (int)wt_coeff_len((size_t)n, w, p->mode, 1);
    ax->sa = ax->sd = 1.0f;
    if (j2k && !per && n == 1) { /* a one-sample signal is its own low-pass band */
        ax->ext = CU_COEF_ZERO;
        set_phase(ax, 0, 0, 1, &one);
        return WT_OK;
    }
    ax->ext = per ? (j2k ? CU_COEF_J2K_PERIODIC : CU_COEF_PERIODIC)
                  : (j2k ? CU_COEF_J2K_REFLECT : CU_COEF_ZERO);
    if (p->method == WT_METHOD_LIFTING) {
        const wt_lifting *L = w->lifting;
        int R = wt_lifting_reach(L), e, t;
        wt_lifting_alignment(w, p->mode, &e, &t);
        ax->sa = (float)(1.0 / L->scale_lo);
        ax->sd = (float)(1.0 / L->scale_hi);
        if (!j2k) {
            ax->da = -t - L->shift_lo;
            ax->dd = -t - L->shift_hi;
        }
        /* pairs m from u0 - R - 1; x[i] = window[i - e - 2 * m0] */
        ax->win_a = -2 * (R + 1);
        ax->halo = 4 * R + 4;
        set_steps(ax, w, 1);
        set_phase(ax, 0, 0 - e + 2 * R + 2, 1, &one);
        set_phase(ax, 1, 1 - e + 2 * R + 2, 1, &one);
    } else {
        wt_status st = j2k ? inverse_j2k_conv(ax, w) : inverse_fb_conv(ax, w, p->mode);
        if (st != WT_OK)
            return st;
    }
    conv_halo(ax);
    return WT_OK;
}

wt_status cu_axis_init(cu_axis *ax, const wt_params *p, size_t n, int inverse)
{
    memset(ax, 0, sizeof *ax);
    if (n > (size_t)1 << 30)
        return wt_error_set(WT_ERR_LIMIT, "CUDA engine: axis of %zu samples is too long", n);
    ax->inverse = inverse;
    const wt_wavelet *w = p->wavelet;
    if (inverse) {
        ax->count0 = (int)((n + 1) / 2);
        ax->count1 = (int)(n / 2);
    } else {
        ax->count0 = (int)wt_coeff_len(n, w, p->mode, 0);
        ax->count1 = (int)wt_coeff_len(n, w, p->mode, 1);
    }
    ax->pairs = imax(ax->count0, ax->count1);
    return inverse ? inverse_axis(ax, p, (int)n) : forward_axis(ax, p, (int)n);
}

size_t cu_level_smem(const cu_level *lv, int inverse, size_t elem_size)
{
    size_t win = (size_t)lv->wy * (size_t)lv->wx;
    size_t mid = inverse ? (size_t)lv->wy * 2 * (size_t)lv->tx : 2 * (size_t)lv->ty * (size_t)lv->wx;
    return (win + mid) * elem_size;
}

static int pow2_at_least(int v)
{
    int p = 1;
    while (p < v && p < CU_TILE_MAX)
        p *= 2;
    return p;
}

void cu_level_window(cu_level *lv)
{
    lv->wy = 2 * lv->ty + lv->ax[0].halo;
    lv->wx = 2 * lv->tx + lv->ax[1].halo;
}

wt_status cu_level_tiles(cu_level *lv, int inverse, size_t elem_size, size_t smem_limit)
{
    int ty = pow2_at_least(lv->ax[0].pairs), tx = pow2_at_least(lv->ax[1].pairs);
    for (;;) {
        lv->ty = ty;
        lv->tx = tx;
        cu_level_window(lv);
        if (cu_level_smem(lv, inverse, elem_size) <= smem_limit)
            return WT_OK;
        if (ty == 1 && tx == 1)
            return wt_error_set(WT_ERR_UNSUPPORTED,
                                "CUDA engine: a level needs more shared memory than the "
                                "device has (%zu bytes)",
                                smem_limit);
        if (ty >= tx && ty > 1)
            ty /= 2;
        else
            tx /= 2;
    }
}
