/* Column passes of the instruction-set kernels (dwt_line.h: wt_cols): the
 * lines of a strip are neighbouring columns of a plane, so a row of the
 * plane is one sample of every line, already sample-major. Each output row
 * is made from the filter's input rows where they lie in the plane, with
 * vectors across the row; only the rows past the ends (the extension) are
 * made, once a strip, into scratch. Nothing is gathered or scattered.
 *
 * Included by dwt_line_avx2.c and dwt_line_avx512.c after dwt_line.c, whose
 * lanes, taps and extension rules it uses: every output sample is the same
 * operations in the same order as dwt_line.c's (acc = 0, acc += tap * x
 * tap after tap), so a column pass equals the reference's bit for bit;
 * test_kernels_equal_reference checks it. */

_Static_assert(sizeof(real) == sizeof(float), "the column passes read the plane as real");

/* Vectors of VW lanes an inner step: enough sums in flight to hide the
 * adds' latency. */
#define COLS_UNROLL 4

/* ---- forward: lo[k] = sum_j dec_lo[j] x[s0 + 2k - j], hi alike ------------ */

/* lo[c], hi[c] for c in [c0, c0 + VECS * VW). */
#define FORWARD_STEP(VECS)                                                                   \
    do {                                                                                     \
        lanes al[VECS] = {0}, ah[VECS] = {0};                                                \
        for (int j = 0; j < F; j++)                                                          \
            for (int v = 0; v < (VECS); v++) {                                               \
                lanes s = LOAD(src[j] + c + v * VW);                                         \
                al[v] += tl->v[j] * s;                                                       \
                ah[v] += th->v[j] * s;                                                       \
            }                                                                                \
        for (int v = 0; v < (VECS); v++) {                                                   \
            AT(lo + c + v * VW) = al[v];                                                     \
            AT(hi + c + v * VW) = ah[v];                                                     \
        }                                                                                    \
    } while (0)

static void forward_row(const real *const *src, int F, const taps *tl, const taps *th,
                        float *lo, float *hi, long width)
{
    long c = 0;
    for (; c + COLS_UNROLL * VW <= width; c += COLS_UNROLL * VW)
        FORWARD_STEP(COLS_UNROLL);
    for (; c + VW <= width; c += VW)
        FORWARD_STEP(1);
    for (; c < width; c++) {
        real al = 0, ah = 0;
        for (int j = 0; j < F; j++) {
            al += tl->v[j] * src[j][c];
            ah += th->v[j] * src[j][c];
        }
        lo[c] = al;
        hi[c] = ah;
    }
}

/* Row p of a strip's signal: the plane's rows in [0, n), periodization's
 * padding at n (a copy of row n - 1) and the extension rows before
 * (head, from e0) and after (tail, from the padded length). */
typedef struct strip_rows {
    const float *sig;
    ptrdiff_t step;
    long n, padded, e0;
    const real *head, *tail;
    long width;
} strip_rows;

static const real *strip_row(const strip_rows *r, long p)
{
    if (p < 0)
        return r->head + (p - r->e0) * r->width;
    if (p < r->padded)
        return r->sig + (p < r->n ? p : r->n - 1) * r->step;
    return r->tail + (p - r->padded) * r->width;
}

static void extend_row(const strip_rows *r, wt_mode mode, long i)
{
    ext_rule rule = extension_rule(r->padded, mode, i);
    apply_rule(&rule, (real *)strip_row(r, i), strip_row(r, rule.p), strip_row(r, rule.q),
               r->width);
}

/* The extension rows of [p0, p1) (those before 0 and from the padded
 * length on) into scratch: extend_signal's values, the rules reading only
 * signal rows (the line is at least twice the filter, wt_cols_fit). */
static void extend_strip(strip_rows *r, wt_mode mode, long p0, long p1, real *scratch)
{
    r->e0 = p0 < 0 ? p0 : 0;
    r->head = scratch;
    r->tail = scratch + -r->e0 * r->width;
    for (long i = r->e0; i < 0; i++)
        extend_row(r, mode, i);
    for (long i = r->padded; i < p1; i++)
        extend_row(r, mode, i);
}

static void cols_forward(const wt_line *line, const wt_cols *strip, void *scratch)
{
    const wt_wavelet *w = line->wavelet;
    long F = w->filter_len, n = (long)line->n, s0 = forward_start(line);
    long k0 = (long)strip->first, k1 = k0 + (long)strip->count;
    strip_rows r = {strip->sig, strip->sig_step, n,
                    n + (is_periodization(line) && (n & 1)), /* padded to even */
                    0, NULL, NULL, (long)strip->width};
    extend_strip(&r, line->mode, s0 + 2 * k0 - (F - 1), s0 + 2 * (k1 - 1) + 1, scratch);
    taps tl, th;
    load_taps(&tl, w->dec_lo, (int)F);
    load_taps(&th, w->dec_hi, (int)F);
    const real *src[128];
    for (long k = k0; k < k1; k++) {
        for (long j = 0; j < F; j++)
            src[j] = strip_row(&r, s0 + 2 * k - j);
        forward_row(src, (int)F, &tl, &th, strip->lo + k * strip->lo_step,
                    strip->hi + k * strip->hi_step, r.width);
    }
}

/* ---- inverse: x[o] = sum rec_lo[j] lo[c] + rec_hi[j] hi[c], c = (o + off - j) / 2 */

/* out[c] for c in [c0, c0 + VECS * VW) from the terms' rows. */
#define INVERSE_STEP(VECS)                                                                   \
    do {                                                                                     \
        lanes acc[VECS] = {0};                                                               \
        for (int t = 0; t < terms; t++)                                                      \
            for (int v = 0; v < (VECS); v++)                                                 \
                acc[v] += tl[t] * LOAD(cl[t] + c + v * VW) + th[t] * LOAD(ch[t] + c + v * VW); \
        for (int v = 0; v < (VECS); v++)                                                     \
            AT(out + c + v * VW) = acc[v];                                                   \
    } while (0)

static void inverse_row(const real *const *cl, const real *const *ch, const real *tl,
                        const real *th, int terms, float *out, long width)
{
    long c = 0;
    for (; c + COLS_UNROLL * VW <= width; c += COLS_UNROLL * VW)
        INVERSE_STEP(COLS_UNROLL);
    for (; c + VW <= width; c += VW)
        INVERSE_STEP(1);
    for (; c < width; c++) {
        real acc = 0;
        for (int t = 0; t < terms; t++)
            acc += tl[t] * cl[t][c] + th[t] * ch[t][c];
        out[c] = acc;
    }
}

/* Coefficient row c of a band: periodic for periodization, else zeros
 * outside [0, nc) (conv_inverse_fb's finite coefficients). */
static const real *coeff_row(const float *band, ptrdiff_t step, long nc, int periodic, long c,
                             const real *zeros)
{
    if (periodic)
        c = ((c % nc) + nc) % nc;
    else if (c < 0 || c >= nc)
        return zeros;
    return band + c * step;
}

static void cols_inverse(const wt_line *line, const wt_cols *strip, void *scratch)
{
    const wt_wavelet *w = line->wavelet;
    long F = w->filter_len, nc = (long)line->nlo;
    long off = wt_inverse_offset(w, line->mode);
    int per = is_periodization(line);
    real *zeros = scratch;
    memset(zeros, 0, strip->width * sizeof *zeros);
    taps tl, th;
    load_taps(&tl, w->rec_lo, (int)F);
    load_taps(&th, w->rec_hi, (int)F);
    const real *cl[64], *ch[64];
    real ul[64], uh[64];
    for (long o = (long)strip->first; o < (long)(strip->first + strip->count); o++) {
        int terms = 0;
        for (long j = (o + off) & 1; j < F; j += 2, terms++) {
            long c = (o + off - j) / 2;
            cl[terms] = coeff_row(strip->lo, strip->lo_step, nc, per, c, zeros);
            ch[terms] = coeff_row(strip->hi, strip->hi_step, nc, per, c, zeros);
            ul[terms] = tl.v[j];
            uh[terms] = th.v[j];
        }
        inverse_row(cl, ch, ul, uh, terms, strip->sig + o * strip->sig_step, (long)strip->width);
    }
}
