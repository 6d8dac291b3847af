/* Row passes of the instruction-set kernels (dwt_line.h: wt_rows): each
 * line is a contiguous row, filtered with vectors along it, no transposes.
 *
 * Forward: the row's extension split once into its even and odd samples,
 * so that lo[k .. k + VW) for tap j are VW neighbours of one of them.
 * Inverse: the even and odd outputs of VW neighbouring coefficient
 * positions, interleaved on the way out.
 *
 * Included by dwt_line_avx2.c and dwt_line_avx512.c after dwt_line.c and
 * dwt_cols.c: every output is the same operations in the same order as
 * dwt_line.c's, so a row pass equals the reference bit for bit
 * (test_kernels_equal_reference). */

/* Shuffles of two vectors a, b (lanes 0..VW-1 and VW..2VW-1): the even and
 * odd samples of a then b; e0 o0 e1 o1 ... of two vectors e, o, and the
 * second half of it; a's last lane then b's but its last (AFTER_LAST: the
 * samples one position back of b's), a's but its first then b's first
 * (BEFORE_FIRST: one position on of a's). */
#if VW == 8
#define EVEN_LANES 0, 2, 4, 6, 8, 10, 12, 14
#define ODD_LANES 1, 3, 5, 7, 9, 11, 13, 15
#define LOW_INTERLEAVE 0, 8, 1, 9, 2, 10, 3, 11
#define HIGH_INTERLEAVE 4, 12, 5, 13, 6, 14, 7, 15
#define AFTER_LAST 7, 8, 9, 10, 11, 12, 13, 14
#define BEFORE_FIRST 1, 2, 3, 4, 5, 6, 7, 8
#elif VW == 16
#define EVEN_LANES 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define ODD_LANES 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#define LOW_INTERLEAVE 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23
#define HIGH_INTERLEAVE 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31
#define AFTER_LAST 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30
#define BEFORE_FIRST 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
#else
#error "dwt_rows.c: vectors of 8 or 16 floats"
#endif

/* Lanes of a and b picked by constant indices: clang and GCC 12 spell it
 * __builtin_shufflevector; older GCC only has __builtin_shuffle. */
#if defined(__clang__) || __GNUC__ >= 12
#define SHUFFLE2(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
typedef int lane_index __attribute__((vector_size(VW * sizeof(int))));
#define SHUFFLE2(a, b, ...) __builtin_shuffle(a, b, (lane_index){__VA_ARGS__})
#endif

/* ---- forward ------------------------------------------------------------- */

/* The extension of a row over [e0, e1), split: even[i] = ext(e0 + 2i),
 * odd[i] = ext(e0 + 2i + 1) (e0 odd: the samples at odd positions in
 * even[]). */
typedef struct split_row {
    real *even, *odd;
    long e0;
} split_row;

/* Sample p of the extension (p in [e0, e1)), for the rules' few samples. */
static real *split_at(const split_row *r, long p)
{
    long q = p - r->e0;
    return (q & 1) ? r->odd + q / 2 : r->even + q / 2;
}

/* The signal's samples [0, n) into even/odd: whole vector pairs split by
 * shuffles (samples p and p + 1 of a pair go to split_at(0) + p / 2 and
 * split_at(1) + p / 2 for either parity of e0), the rest one by one. */
static void split_signal(const float *x, long n, const split_row *r)
{
    long p = 0;
    real *ev = split_at(r, 0), *od = split_at(r, 1);
    for (; p + 2 * VW <= n; p += 2 * VW) {
        lanes a = LOAD(x + p), b = LOAD(x + p + VW);
        AT(ev + p / 2) = SHUFFLE2(a, b, EVEN_LANES);
        AT(od + p / 2) = SHUFFLE2(a, b, ODD_LANES);
    }
    for (; p < n; p++)
        *split_at(r, p) = x[p];
}

/* The row x (n samples; @p padded: periodization's even length, its last
 * sample repeated) extended by @p mode over [e0, e1) (e0 <= 0, e1 >=
 * padded) into r, split. */
static void split_extend(const float *x, long n, long padded, wt_mode mode, long e0, long e1,
                         const split_row *r)
{
    split_signal(x, n, r);
    if (padded > n)
        *split_at(r, n) = x[n - 1];
    for (long i = -1; i >= e0; i--) { /* extend_signal's order: outward */
        ext_rule rule = extension_rule(padded, mode, i);
        apply_rule(&rule, split_at(r, i), split_at(r, rule.p), split_at(r, rule.q), 1);
    }
    for (long i = padded; i < e1; i++) {
        ext_rule rule = extension_rule(padded, mode, i);
        apply_rule(&rule, split_at(r, i), split_at(r, rule.p), split_at(r, rule.q), 1);
    }
}

static void rows_forward_one(const wt_line *line, const taps *tl, const taps *th,
                             const float *x, float *lo, float *hi, real *scratch)
{
    long F = tl->len, n = (long)line->n, s0 = forward_start(line), nout = (long)line->nlo;
    long padded = n + (is_periodization(line) && (n & 1));
    long e0 = s0 - (F - 1) < 0 ? s0 - (F - 1) : 0, e1 = s0 + 2 * (nout - 1) + 1;
    e0 -= e0 & 1; /* even: a sample's parity is its position's */
    if (e1 < padded)
        e1 = padded;
    long half = (e1 - e0 + 1) / 2 + 1;
    split_row r = {scratch, scratch + half, e0};
    split_extend(x, n, padded, line->mode, e0, e1, &r);
    /* tap j of output k reads sample s0 + 2k - j: element k of src[j] */
    const real *src[128];
    for (long j = 0; j < F; j++)
        src[j] = split_at(&r, s0 - j);
    forward_row(src, (int)F, (int)F, tl, th, lo, hi, nout); /* one sweep: no shared sets */
}

static void rows_forward(const wt_line *line, const wt_rows *rows, void *scratch)
{
    taps tl, th;
    load_taps(&tl, line->wavelet->dec_lo, line->wavelet->filter_len);
    load_taps(&th, line->wavelet->dec_hi, line->wavelet->filter_len);
    for (size_t b = rows->first; b < rows->first + rows->count; b++)
        rows_forward_one(line, &tl, &th, rows->sig + (ptrdiff_t)b * rows->sig_step,
                         rows->lo + (ptrdiff_t)b * rows->lo_step,
                         rows->hi + (ptrdiff_t)b * rows->hi_step, scratch);
}

/* ---- inverse ------------------------------------------------------------- */

/* Coefficients c in [c0, c1) of a band into dst: periodic for
 * periodization, else zeros outside [0, nc); the inside copied at once
 * (one sample at a time, periodization's rows took 4 times the forward). */
static void pad_coeffs(const float *band, long nc, int periodic, long c0, long c1, real *dst)
{
    for (long c = c0; c < c1; c++) {
        if (c >= 0 && c < nc) {
            long run = (c1 < nc ? c1 : nc) - c;
            memcpy(dst + (c - c0), band + c, (size_t)run * sizeof *dst);
            c += run - 1;
        } else {
            dst[c - c0] = periodic ? band[((c % nc) + nc) % nc] : 0;
        }
    }
}

/* out[2m + parity] for m in [m0, m0 + VECS * VW): the terms of one parity. */
#define PARITY_SUMS(acc, VECS, parity)                                                        \
    for (int t = 0; t < terms[parity]; t++)                                                   \
        for (int v = 0; v < (VECS); v++)                                                      \
            acc[v] += ul[parity][t] * LOAD(cl[parity][t] + m + v * VW) +                      \
                      uh[parity][t] * LOAD(ch[parity][t] + m + v * VW)

/* The same, both parities from one load of each coefficient (their terms
 * read the same coefficients: shared). */
#define SHARED_SUMS(even, odd, VECS)                                                          \
    for (int t = 0; t < terms[0]; t++)                                                        \
        for (int v = 0; v < (VECS); v++) {                                                    \
            lanes l = LOAD(cl[0][t] + m + v * VW), h = LOAD(ch[0][t] + m + v * VW);           \
            even[v] += ul[0][t] * l + uh[0][t] * h;                                           \
            odd[v] += ul[1][t] * l + uh[1][t] * h;                                            \
        }

/* Vectors of outputs of one parity an inverse step (the sums in flight). */
#define ROWS_UNROLL 2

/* out[2m, 2 (m + VECS * VW)): both parities, interleaved. */
#define INTERLEAVED_STEP(VECS, SHARED)                                                        \
    do {                                                                                      \
        lanes even[VECS] = {0}, odd[VECS] = {0};                                              \
        if (SHARED) {                                                                         \
            SHARED_SUMS(even, odd, VECS);                                                     \
        } else {                                                                              \
            PARITY_SUMS(even, VECS, 0);                                                       \
            PARITY_SUMS(odd, VECS, 1);                                                        \
        }                                                                                     \
        for (int v = 0; v < (VECS); v++) {                                                    \
            AT(out + 2 * (m + v * VW)) = SHUFFLE2(even[v], odd[v], LOW_INTERLEAVE);           \
            AT(out + 2 * (m + v * VW) + VW) = SHUFFLE2(even[v], odd[v], HIGH_INTERLEAVE);     \
        }                                                                                     \
    } while (0)

static void rows_inverse_one(const wt_line *line, const taps *tl, const taps *th,
                             const float *lo, const float *hi, float *out, real *scratch)
{
    long F = tl->len, n = (long)line->n, nc = (long)line->nlo;
    long off = wt_inverse_offset(line->wavelet, line->mode);
    int per = is_periodization(line);
    /* output 2m + parity, tap j of that parity: coefficient m + (parity + off - j) / 2 */
    long d[2][64], first = 0, last = 0; /* the coefficients the outputs read */
    real ul[2][64], uh[2][64];
    int terms[2] = {0, 0};
    for (int parity = 0; parity < 2; parity++)
        for (long j = (parity + off) & 1; j < F; j += 2, terms[parity]++) {
            long t = terms[parity], m_last = (n - 1 - parity) / 2;
            d[parity][t] = (parity + off - j) / 2;
            ul[parity][t] = tl->v[j];
            uh[parity][t] = th->v[j];
            first = d[parity][t] < first ? d[parity][t] : first;
            if (n - 1 - parity >= 0 && m_last + d[parity][t] > last)
                last = m_last + d[parity][t];
        }
    /* the bands' rows where they lie where the outputs read within them
     * (every mode but periodization); else the coefficients padded */
    const real *pl = lo, *ph = hi;
    long c0 = 0;
    if (first < 0 || last >= nc) {
        c0 = (0 + off - (F - 1) - 1) / 2 - 1;
        long c1 = (n - 1 + off) / 2 + 1;
        pad_coeffs(lo, nc, per, c0, c1, scratch);
        pad_coeffs(hi, nc, per, c0, c1, scratch + (c1 - c0));
        pl = scratch;
        ph = scratch + (c1 - c0);
    }
    const real *cl[2][64], *ch[2][64];
    for (int parity = 0; parity < 2; parity++)
        for (int t = 0; t < terms[parity]; t++) {
            cl[parity][t] = pl + (d[parity][t] - c0);
            ch[parity][t] = ph + (d[parity][t] - c0);
        }
    /* off even (every mode but periodization): term t of both parities
     * reads coefficient m - t + off / 2 */
    int shared = terms[0] == terms[1];
    for (int t = 0; t < terms[0] && shared; t++)
        shared = cl[0][t] == cl[1][t];
    long m = 0;
    if (shared) {
        for (; 2 * (m + ROWS_UNROLL * VW) <= n; m += ROWS_UNROLL * VW)
            INTERLEAVED_STEP(ROWS_UNROLL, 1);
    } else {
        for (; 2 * (m + ROWS_UNROLL * VW) <= n; m += ROWS_UNROLL * VW)
            INTERLEAVED_STEP(ROWS_UNROLL, 0);
    }
    for (; 2 * (m + VW) <= n; m += VW)
        INTERLEAVED_STEP(1, 0);
    for (long o = 2 * m; o < n; o++) {
        int parity = (int)(o & 1);
        long mm = o / 2;
        real acc = 0;
        for (int t = 0; t < terms[parity]; t++)
            acc += ul[parity][t] * cl[parity][t][mm] + uh[parity][t] * ch[parity][t][mm];
        out[o] = acc;
    }
}

static void rows_inverse(const wt_line *line, const wt_rows *rows, void *scratch)
{
    taps tl, th;
    load_taps(&tl, line->wavelet->rec_lo, line->wavelet->filter_len);
    load_taps(&th, line->wavelet->rec_hi, line->wavelet->filter_len);
    for (size_t b = rows->first; b < rows->first + rows->count; b++)
        rows_inverse_one(line, &tl, &th, rows->lo + (ptrdiff_t)b * rows->lo_step,
                         rows->hi + (ptrdiff_t)b * rows->hi_step,
                         rows->sig + (ptrdiff_t)b * rows->sig_step, scratch);
}
