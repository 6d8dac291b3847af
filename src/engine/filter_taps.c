/* The undecimated passes' sums of the instruction-set kernels (dwt_line.h:
 * filter_taps): the reference's groups of four taps and the taps left over,
 * added in the same order, but for VW outputs at a time in registers, so
 * each output is loaded and stored once for all the taps (the reference
 * sweeps over out once a group). Every output is the same operations in
 * the same order as the reference's, so the passes equal it bit for bit.
 *
 * Included by dwt_line_avx2.c and dwt_line_avx512.c after dwt_line.c. */

/* out[x .. x + VECS * VW): the groups, then the taps left over. */
#define FILTER_STEP(VECS)                                                                    \
    do {                                                                                     \
        lanes sum[VECS];                                                                     \
        int started = accumulate;                                                            \
        for (int v = 0; v < (VECS); v++)                                                     \
            sum[v] = started ? LOAD(out + x + v * VW) : (lanes){0};                          \
        int k = 0;                                                                           \
        for (; k + 4 <= n; k += 4, started = 1)                                              \
            for (int v = 0; v < (VECS); v++) {                                               \
                size_t at = x + v * VW;                                                      \
                lanes g = c[k] * LOAD(src[k] + at) + c[k + 1] * LOAD(src[k + 1] + at) +      \
                          c[k + 2] * LOAD(src[k + 2] + at) + c[k + 3] * LOAD(src[k + 3] + at); \
                sum[v] = started ? sum[v] + g : g;                                           \
            }                                                                                \
        for (; k < n; k++, started = 1)                                                      \
            for (int v = 0; v < (VECS); v++) {                                               \
                lanes g = c[k] * LOAD(src[k] + x + v * VW);                                  \
                sum[v] = started ? sum[v] + g : g;                                           \
            }                                                                                \
        for (int v = 0; v < (VECS); v++)                                                     \
            AT(out + x + v * VW) = sum[v];                                                   \
    } while (0)

/* The sums with @p n taps, a constant where the caller's is (the loops over
 * them unroll); @p src and @p c are the caller's locals, which the stores
 * through AT (may_alias) cannot change, so they stay in registers. */
static inline __attribute__((always_inline)) void
filter_taps_n(float *out, const float *const *src, const float *c, int n, size_t len,
              int accumulate)
{
    size_t x = 0;
    for (; x + 2 * VW <= len; x += 2 * VW)
        FILTER_STEP(2);
    for (; x + VW <= len; x += VW)
        FILTER_STEP(1);
    for (; x < len; x++) {
        int started = accumulate, k = 0;
        float sum = started ? out[x] : 0;
        for (; k + 4 <= n; k += 4, started = 1) {
            float g = c[k] * src[k][x] + c[k + 1] * src[k + 1][x] + c[k + 2] * src[k + 2][x] +
                      c[k + 3] * src[k + 3][x];
            sum = started ? sum + g : g;
        }
        for (; k < n; k++, started = 1) {
            float g = c[k] * src[k][x];
            sum = started ? sum + g : g;
        }
        out[x] = sum;
    }
}

static void filter_taps(float *out, const float *const *src_in, const float *c_in, int n,
                        size_t len, int accumulate)
{
    const float *src[WT_FILTER_TAPS_MAX];
    float c[WT_FILTER_TAPS_MAX];
    for (int k = 0; k < n; k++) {
        src[k] = src_in[k];
        c[k] = c_in[k];
    }
    switch (n) { /* the undecimated filters' common lengths: db2..db4, B3 */
    case 2: filter_taps_n(out, src, c, 2, len, accumulate); break;
    case 4: filter_taps_n(out, src, c, 4, len, accumulate); break;
    case 5: filter_taps_n(out, src, c, 5, len, accumulate); break;
    case 6: filter_taps_n(out, src, c, 6, len, accumulate); break;
    case 8: filter_taps_n(out, src, c, 8, len, accumulate); break;
    default: filter_taps_n(out, src, c, n, len, accumulate); break;
    }
}
