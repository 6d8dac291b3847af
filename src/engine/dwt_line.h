/* One-dimensional wavelet transforms of a batch of lines: the reference
 * definition of every wavelet, mode and method.
 *
 * A batch holds WT_BATCH lines stored sample-major: v[i * WT_BATCH + b] is
 * sample i of line b, so the inner loops run over b and vectorise. */
#ifndef WT_DWT_LINE_H
#define WT_DWT_LINE_H

#include <stddef.h>
#include <stdint.h>

#include "dwt_geometry.h"
#include "wavetool.h"

#define WT_BATCH 16

/* Everything about one axis of one level. */
typedef struct wt_line {
    const wt_wavelet *wavelet;
    wt_mode mode;
    wt_method method; /* CONV or LIFTING, resolved */
    size_t n;         /* signal length */
    size_t nlo, nhi;  /* coefficient lengths */
} wt_line;

void wt_line_init(wt_line *line, const wt_params *params, size_t n);

/* Bytes of scratch one batch needs (8-byte aligned). */
size_t wt_line_scratch(const wt_line *line);

/* in: [n][B]; lo: [nlo][B]; hi: [nhi][B]. */
void wt_line_forward(const wt_line *line, const float *in, float *lo, float *hi, void *scratch);
/* lo, hi -> out: [n][B] (exactly n samples: the original length). */
void wt_line_inverse(const wt_line *line, const float *lo, const float *hi, float *out,
                     void *scratch);

/* Integer-to-integer lifting (legall53). */
void wt_line_forward_i32(const wt_line *line, const int32_t *in, int32_t *lo, int32_t *hi,
                         int32_t *scratch);
void wt_line_inverse_i32(const wt_line *line, const int32_t *lo, const int32_t *hi,
                         int32_t *out, int32_t *scratch);

/* The same for one line, not WT_BATCH interleaved (src/dwt_line_1.c): the
 * passes over fewer than WT_BATCH lines, whose buffers would otherwise hold
 * WT_BATCH copies of a 1xN image's one row. */
size_t wt_line_scratch_1(const wt_line *line);
void wt_line_forward_1(const wt_line *line, const float *in, float *lo, float *hi,
                       void *scratch);
void wt_line_inverse_1(const wt_line *line, const float *lo, const float *hi, float *out,
                       void *scratch);
void wt_line_forward_i32_1(const wt_line *line, const int32_t *in, int32_t *lo, int32_t *hi,
                           int32_t *scratch);
void wt_line_inverse_i32_1(const wt_line *line, const int32_t *lo, const int32_t *hi,
                           int32_t *out, int32_t *scratch);

/* Rows of a column pass (dwt_cols.c): @p width neighbouring lines whose
 * samples are rows of a plane, sample i of line b at sig[i * sig_step + b]
 * (lo, hi alike), filtered where they lie, row by row, without copying the
 * lines into batches; output rows [first, first + count) (forward: of lo
 * and hi, inverse: of sig). */
typedef struct wt_cols {
    float *sig, *lo, *hi;
    ptrdiff_t sig_step, lo_step, hi_step; /* elements from one row to the next */
    size_t width, first, count;
    int integer;      /* int32 samples (legall53's integer lifting) */
    size_t out_first; /* forward: output row k at lo + (k - out_first) * lo_step (hi
                       * alike): a band's rows in a buffer; 0 where they are the planes' */
    /* Inverse: where set, coefficient row k of lo (band 0) or hi (1) is
     * what this returns, not lo + k * lo_step (the fused inverse level
     * makes each with the row pass). The last wt_cols_coeff_rows rows of a
     * band that it returned stay valid: the passes ask for a band's rows
     * in increasing order (periodization's wrap aside), each as long as it
     * is one of those. Where @p into is set the row is made there (a whole
     * row; lifting's ring) and returned. */
    const float *(*coeff_row)(void *ctx, int band, size_t k, float *into);
    void *coeff_ctx;
    int sig_float; /* integer: sig holds floats, each sample converted as it is read
                    * (forward) or written (inverse), as wt_convert_samples does */
} wt_cols;

/* Coefficient rows of a band that an inverse column pass reads at once:
 * a filter bank's four outputs o .. o + 3 read (F + 1) / 2 + 1 rows of
 * each band, lifting loads one row at a time into its pipeline. */
static inline size_t wt_cols_coeff_rows(const wt_line *line)
{
    if (line->method == WT_METHOD_LIFTING && line->wavelet->lifting)
        return 1;
    return ((size_t)line->wavelet->filter_len + 1) / 2 + 1;
}

/* Whether the column and row kernels (wt_cols, wt_rows) take @p line:
 * float convolution by filter bank, lines of at least twice the filter
 * (every extension is then made of signal samples); others go through
 * batches. */
static inline int wt_direct_fit(const wt_line *line)
{
    const wt_wavelet *w = line->wavelet;
    return line->method == WT_METHOD_CONV && w->kind != WT_KIND_JPEG2000 && !w->integer &&
           line->n >= 2 * (size_t)w->filter_len && line->nlo == line->nhi;
}

/* How far past a line's ends a lifting pass reads its extension, at most
 * (dwt_lift.c: the steps' reach, the outputs' shifts, the filter banks'
 * longer outputs and periodization's start), and how far apart the outputs
 * of one row of lo and hi lie. */
static inline size_t wt_lift_shifts(const wt_lifting *L)
{
    return (size_t)(L->shift_lo < 0 ? -L->shift_lo : L->shift_lo) +
           (size_t)(L->shift_hi < 0 ? -L->shift_hi : L->shift_hi);
}

static inline size_t wt_lift_margin(const wt_line *line)
{
    const wt_wavelet *w = line->wavelet;
    return (size_t)w->filter_len + 2 * (size_t)wt_lifting_reach(w->lifting) +
           2 * wt_lift_shifts(w->lifting) + 8;
}

/* Whether the lifting passes of dwt_lift.c take @p line (float lifting of
 * any scheme; @p integer: the integer 5/3): lines long enough that every
 * extension is made of signal samples. */
static inline int wt_lift_fit(const wt_line *line, int integer)
{
    const wt_wavelet *w = line->wavelet;
    return line->method == WT_METHOD_LIFTING && w->lifting && integer == w->integer &&
           line->n >= wt_lift_margin(line) + 2;
}

/* Whether the column and row kernels take @p line, by filter bank
 * (wt_direct_fit) or by lifting (wt_lift_fit). */
static inline int wt_plane_fit(const wt_line *line, int integer)
{
    return (!integer && wt_direct_fit(line)) || wt_lift_fit(line, integer);
}

/* Elements from one row of a lifting pass's ring to the next: a multiple
 * of 16 that is not a multiple of 256, so that the rows of a power-of-two
 * wide plane do not share the first-level cache's sets. */
static inline size_t wt_lift_row_step(size_t width)
{
    size_t step = (width + 15) & ~(size_t)15;
    return step % 256 == 0 ? step + 16 : step;
}

/* Rows of a lifting column pass's scratch (dwt_lift.c): the two rings and
 * the extension rows at both ends, generous. */
static inline size_t wt_lift_scratch_rows(const wt_line *line)
{
    const wt_lifting *L = line->wavelet->lifting;
    size_t R = (size_t)wt_lifting_reach(L);
    return 2 * (2 * R + wt_lift_shifts(L) + 2) + 2 * wt_lift_margin(line) + 4;
}

/* Bytes of scratch of a strip of @p width lines: the extension rows at both
 * ends and a row of zeros; lifting: its state, rings and extension rows
 * (at least WT_COLS_STATE either way). */
#define WT_COLS_STATE 128
static inline size_t wt_cols_scratch(const wt_line *line, size_t width)
{
    if (line->method == WT_METHOD_LIFTING && line->wavelet->lifting)
        return WT_COLS_STATE + wt_lift_scratch_rows(line) * wt_lift_row_step(width) * sizeof(float);
    return WT_COLS_STATE + (2 * (size_t)line->wavelet->filter_len + 8) * width * sizeof(float);
}

/* Rows of a row pass (dwt_rows.c): lines [first, first + count) of a
 * plane, line b's samples contiguous from sig + b * sig_step (lo, hi
 * alike), filtered where they lie with vectors along the line. */
typedef struct wt_rows {
    float *sig, *lo, *hi;
    ptrdiff_t sig_step, lo_step, hi_step; /* elements from one line to the next */
    size_t first, count;
    int integer; /* int32 samples (legall53's integer lifting) */
} wt_rows;

/* Scratch of a row pass: a line's extension, split in even and odd samples,
 * or its padded coefficients (lifting: a[] and d[] with their margins). */
static inline size_t wt_rows_scratch(const wt_line *line)
{
    size_t lift = line->wavelet->lifting ? 2 * wt_lift_margin(line) : 0;
    return (line->n + 4 * (size_t)line->wavelet->filter_len + lift + 16) * sizeof(float);
}

/* The batch kernels a pass calls, dav1d's dsp_init pattern: the functions
 * above are the reference; dwt_line_avx2.c and dwt_line_avx512.c compile the
 * same C for those instruction sets (its loops over the WT_BATCH lanes become
 * 8- or 16-float vectors; C11 mode contracts no a*b+c into an FMA, so every
 * result equals the reference's bit for bit), and the rows' gather and
 * scatter (axis_dwt.c) transpose 8x8 blocks in registers. */
typedef struct wt_line_kernels {
    const char *name; /* "reference", "avx2", "avx512" */
    void (*forward)(const wt_line *line, const float *in, float *lo, float *hi, void *scratch);
    void (*inverse)(const wt_line *line, const float *lo, const float *hi, float *out,
                    void *scratch);
    void (*forward_i32)(const wt_line *line, const int32_t *in, int32_t *lo, int32_t *hi,
                        int32_t *scratch);
    void (*inverse_i32)(const wt_line *line, const int32_t *lo, const int32_t *hi,
                        int32_t *out, int32_t *scratch);
    /* WT_BATCH rows of @p len contiguous samples, @p stride apart, into a
     * batch (buf[i * WT_BATCH + b] = rows[b * stride + i]), and back. */
    void (*gather_rows)(const uint32_t *rows, ptrdiff_t stride, size_t len, uint32_t *buf);
    void (*scatter_rows)(const uint32_t *buf, size_t len, uint32_t *rows, ptrdiff_t stride);
    /* Column passes of a strip, lines that wt_plane_fit takes (NULL in the
     * reference, whose passes gather the columns into batches); the lifting
     * passes keep a pipeline's state in the first WT_COLS_STATE bytes of
     * @p scratch (wt_cols_scratch bytes), zero when it is allocated. */
    void (*cols_forward)(const wt_line *line, const wt_cols *strip, void *scratch);
    void (*cols_inverse)(const wt_line *line, const wt_cols *strip, void *scratch);
    /* Row passes of lines that wt_plane_fit takes (NULL in the reference,
     * whose passes transpose the rows into batches). */
    void (*rows_forward)(const wt_line *line, const wt_rows *rows, void *scratch);
    void (*rows_inverse)(const wt_line *line, const wt_rows *rows, void *scratch);
    /* The undecimated passes' sums (axis_filter.c): out[x] (+)= sum_k c[k]
     * src[k][x], x < len; the taps four at a time, (c0 s0 + c1 s1 + c2 s2 +
     * c3 s3), each group then each tap left over added to out in turn (the
     * first stored where !accumulate; n = 0: zeros). */
    void (*filter_taps)(float *out, const float *const *src, const float *c, int n, size_t len,
                        int accumulate); /* n <= WT_FILTER_TAPS_MAX */
} wt_line_kernels;

/* Taps of filter_taps at most (undecimated_geometry.h's WT_UTAPS). */
#define WT_FILTER_TAPS_MAX 128

typedef enum wt_cpu_isa { WT_ISA_REFERENCE, WT_ISA_AVX2, WT_ISA_AVX512, WT_ISA_COUNT } wt_cpu_isa;

/* The kernels of @p isa, or NULL where this build or this CPU lacks them. */
const wt_line_kernels *wt_line_kernels_of(wt_cpu_isa isa);
/* The fastest kernels this CPU runs; the reference where WT_CPU_SCALAR=1. */
const wt_line_kernels *wt_line_kernels_best(void);

/* The variants' tables (dwt_line_avx2.c, dwt_line_avx512.c). */
extern const wt_line_kernels wt_line_kernels_avx2, wt_line_kernels_avx512;

/* wt_fold_index and the rest of the geometry: dwt_geometry.h */

#endif
