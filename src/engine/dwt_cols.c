/* Column passes of the instruction-set kernels (dwt_line.h: wt_cols): the
 * lines of a strip are neighbouring columns of a plane, so a row of the
 * plane is one sample of every line, already sample-major. Each output row
 * is made from the filter's input rows where they lie in the plane, with
 * vectors across the row; only the rows past the ends (the extension) that
 * a job's output rows need are made, into scratch. Nothing is gathered or
 * scattered.
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

/* A loaded vector kept in a register: GCC otherwise folds the load into
 * each multiply that uses it (the lo and the hi tap), two loads of the same
 * vector where the load ports, not the multiplies, bound the forward step. */
#define IN_REGISTER(x) __asm__("" : "+v"(x))

/* ---- forward: lo[k] = sum_j dec_lo[j] x[s0 + 2k - j], hi alike ------------ */

/* Column chunks and taps a sweep of a long filter: the rows a sweep reads
 * and the rows it writes stay within the 8 ways of the first-level cache,
 * where the rows of a plane a power of two wide share its sets (sym8's 16
 * rows evicted each other: its inverse took 1.6 times as long at 4096
 * columns as at 4112). The sums go on from the outputs between sweeps: the
 * same operations in the same order (a float stored and loaded is the
 * float). */
#define COLS_CHUNK 512
#define SWEEP_ROWS 6

/* lo[c], hi[c] for c in [c, c + VECS * VW), taps [j0, j1), going on from
 * lo and hi where @p resume. */
#define FORWARD_STEP(VECS)                                                                   \
    do {                                                                                     \
        lanes al[VECS], ah[VECS];                                                            \
        for (int v = 0; v < (VECS); v++) {                                                   \
            al[v] = resume ? LOAD(lo + c + v * VW) : (lanes){0};                             \
            ah[v] = resume ? LOAD(hi + c + v * VW) : (lanes){0};                             \
        }                                                                                    \
        for (int j = j0; j < j1; j++)                                                        \
            for (int v = 0; v < (VECS); v++) {                                               \
                lanes s = LOAD(src[j] + c + v * VW);                                         \
                IN_REGISTER(s);                                                              \
                al[v] += tl->v[j] * s;                                                       \
                ah[v] += th->v[j] * s;                                                       \
            }                                                                                \
        for (int v = 0; v < (VECS); v++) {                                                   \
            AT(lo + c + v * VW) = al[v];                                                     \
            AT(hi + c + v * VW) = ah[v];                                                     \
        }                                                                                    \
    } while (0)

static void forward_taps(const real *const *src, int j0, int j1, int resume, const taps *tl,
                         const taps *th, float *lo, float *hi, long c, long c1)
{
    for (; c + COLS_UNROLL * VW <= c1; c += COLS_UNROLL * VW)
        FORWARD_STEP(COLS_UNROLL);
    for (; c + VW <= c1; c += VW)
        FORWARD_STEP(1);
    for (; c < c1; c++) {
        real al = resume ? lo[c] : 0, ah = resume ? hi[c] : 0;
        for (int j = j0; j < j1; j++) {
            al += tl->v[j] * src[j][c];
            ah += th->v[j] * src[j][c];
        }
        lo[c] = al;
        hi[c] = ah;
    }
}

/* lo[c], hi[c] for c in [0, width): sum_j tl[j] src[j][c], th alike, in
 * sweeps of @p sweep taps. */
static void forward_row(const real *const *src, int F, int sweep, const taps *tl,
                        const taps *th, float *lo, float *hi, long width)
{
    if (sweep >= F) {
        forward_taps(src, 0, F, 0, tl, th, lo, hi, 0, width);
        return;
    }
    for (long c0 = 0; c0 < width; c0 += COLS_CHUNK) {
        long c1 = width - c0 < COLS_CHUNK ? width : c0 + COLS_CHUNK;
        for (int j0 = 0; j0 < F; j0 += sweep)
            forward_taps(src, j0, j0 + sweep < F ? j0 + sweep : F, j0 > 0, tl, th, lo, hi, c0,
                         c1);
    }
}

/* Output rows k and k + 1 at once: rows[i] is input row s0 + 2k + 2 - i
 * (i in [0, F + 2)), tap i of row k + 1 and tap i - 2 of row k, so the F - 2
 * rows both read are loaded once for the two; each output's taps still go
 * 0 .. F - 1 in order from acc = 0. Vectors of VW lanes a step: the four
 * sums of each in registers with the four taps (AVX2's 16). */
#define PAIR_UNROLL 2
#define PAIR_AHEAD 64

/* The sums of tap @p j of @p which's outputs (0: row k + 1, 1: row k) with
 * the step's input row vectors s. */
#define PAIR_TAP(which, j)                                                                    \
    do {                                                                                      \
        for (int v = 0; v < PAIR_UNROLL; v++) {                                              \
            al[which][v] += tl->v[j] * s[v];                                                  \
            ah[which][v] += th->v[j] * s[v];                                                  \
        }                                                                                     \
    } while (0)

static void forward_pair_step(const real *const *rows, int F, const taps *tl, const taps *th,
                              float *const *lo, float *const *hi, long c)
{
    lanes al[2][PAIR_UNROLL] = {{{0}}}, ah[2][PAIR_UNROLL] = {{{0}}};
    for (int i = 0; i < F + 2; i++) {
        lanes s[PAIR_UNROLL];
        __builtin_prefetch(rows[i] + c + PAIR_AHEAD);
        for (int v = 0; v < PAIR_UNROLL; v++) {
            s[v] = LOAD(rows[i] + c + v * VW);
            IN_REGISTER(s[v]);
        }
        if (i < F)
            PAIR_TAP(0, i);
        if (i >= 2)
            PAIR_TAP(1, i - 2);
    }
    for (int which = 0; which < 2; which++)
        for (int v = 0; v < PAIR_UNROLL; v++) {
            AT(lo[which] + c + v * VW) = al[which][v];
            AT(hi[which] + c + v * VW) = ah[which][v];
        }
}

/* Outputs [c, c1) of rows k + 1 and k one row at a time. */
static void forward_pair_apart(const real *const *rows, int F, const taps *tl, const taps *th,
                               float *const *lo, float *const *hi, long c, long c1)
{
    for (int which = 0; which < 2; which++)
        forward_taps(rows + 2 * which, 0, F, 0, tl, th, lo[which], hi[which], c, c1);
}

/* The columns of @p row before the first that starts a cache line (at most
 * @p width): the steps start there (the rows a step reads share the
 * first-level cache's sets: a step across two lines missed both again the
 * next step). */
static long line_start(const real *row, long width)
{
    long c = (long)((64 - ((uintptr_t)row & 63)) & 63) / (long)sizeof(real);
    return c < width ? c : width;
}

/* lo[0], hi[0] (row k + 1) and lo[1], hi[1] (row k) over [0, width). The
 * steps start where the plane's rows start a cache line (line_start); the
 * columns before and after one row at a time. */
static void forward_pair(const real *const *rows, int F, const taps *tl, const taps *th,
                         float *const *lo, float *const *hi, long width)
{
    long c = line_start(rows[F / 2], width);
    forward_pair_apart(rows, F, tl, th, lo, hi, 0, c);
    for (; c + PAIR_UNROLL * VW <= width; c += PAIR_UNROLL * VW)
        forward_pair_step(rows, F, tl, th, lo, hi, c);
    forward_pair_apart(rows, F, tl, th, lo, hi, c, width);
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
 * signal rows (the line is at least twice the filter, wt_direct_fit). */
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
    const real *src[130];
    for (long k = k0; k < k1; k++) {
        long out = k - (long)strip->out_first;
        float *lo = strip->lo + out * strip->lo_step, *hi = strip->hi + out * strip->hi_step;
        if (F > 2 && k + 1 < k1) { /* haar's two rows read no row in common */
            for (long i = 0; i < F + 2; i++)
                src[i] = strip_row(&r, s0 + 2 * k + 2 - i);
            float *los[2] = {lo + strip->lo_step, lo}, *his[2] = {hi + strip->hi_step, hi};
            forward_pair(src, (int)F, &tl, &th, los, his, r.width);
            k++;
            continue;
        }
        for (long j = 0; j < F; j++)
            src[j] = strip_row(&r, s0 + 2 * k - j);
        forward_row(src, (int)F, SWEEP_ROWS, &tl, &th, lo, hi, r.width);
    }
}

/* ---- inverse: x[o] = sum rec_lo[j] lo[c] + rec_hi[j] hi[c], c = (o + off - j) / 2 */

/* An output row's terms: term t is tap u[t] of coefficient row cl[t] plus
 * tap v[t] of ch[t]. Outputs o and o + 1 with o + off even read the same
 * rows (term t of each: coefficient (o + off) / 2 - t), so they are summed
 * together from one load of each row (one of them has one term fewer for an
 * odd filter length). */
typedef struct out_terms {
    float *out;
    int terms;
    real ul[64], uh[64];
} out_terms;

/* out[c] for c in [c, c + VECS * VW) of the outputs o[0 .. PAIR] from terms
 * [t0, t1), going on from out where @p resume; pair[1]'s terms end at t2. */
#define INVERSE_STEP(VECS, PAIR)                                                             \
    do {                                                                                     \
        lanes acc[2][VECS];                                                                  \
        for (int p = 0; p <= (PAIR); p++)                                                    \
            for (int v = 0; v < (VECS); v++)                                                 \
                acc[p][v] = resume ? LOAD(o[p].out + c + v * VW) : (lanes){0};              \
        for (int t = t0; t < t1; t++)                                                        \
            for (int v = 0; v < (VECS); v++) {                                               \
                lanes l = LOAD(cl[t] + c + v * VW), h = LOAD(ch[t] + c + v * VW);            \
                acc[0][v] += o[0].ul[t] * l + o[0].uh[t] * h;                                \
                if ((PAIR) && t < t2)                                                        \
                    acc[PAIR][v] += o[PAIR].ul[t] * l + o[PAIR].uh[t] * h;                   \
            }                                                                                \
        for (int p = 0; p <= (PAIR); p++)                                                    \
            for (int v = 0; v < (VECS); v++)                                                 \
                AT(o[p].out + c + v * VW) = acc[p][v];                                       \
    } while (0)

/* Columns [c, c1) of the outputs o[0 .. pair] from terms [t0, t1). */
static void inverse_terms(const real *const *cl, const real *const *ch, const out_terms *o,
                          int pair, int t0, int t1, int resume, long c, long c1)
{
    int t2 = pair && o[1].terms < t1 ? o[1].terms : t1;
    if (pair) {
        for (; c + COLS_UNROLL * VW <= c1; c += COLS_UNROLL * VW)
            INVERSE_STEP(COLS_UNROLL, 1);
        for (; c + VW <= c1; c += VW)
            INVERSE_STEP(1, 1);
    } else {
        for (; c + COLS_UNROLL * VW <= c1; c += COLS_UNROLL * VW)
            INVERSE_STEP(COLS_UNROLL, 0);
        for (; c + VW <= c1; c += VW)
            INVERSE_STEP(1, 0);
    }
    for (; c < c1; c++)
        for (int p = 0; p <= pair; p++) {
            real acc = resume ? o[p].out[c] : 0;
            for (int t = t0; t < (p ? t2 : t1); t++)
                acc += o[p].ul[t] * cl[t][c] + o[p].uh[t] * ch[t][c];
            o[p].out[c] = acc;
        }
}

/* The outputs o[0 .. pair] for c in [0, width), in sweeps of @p sweep
 * terms; the steps from where the coefficient rows start a cache line (the
 * columns before in one sweep, like the forward's pairs). */
static void inverse_rows(const real *const *cl, const real *const *ch, const out_terms *o,
                         int pair, int sweep, long width)
{
    int terms = o[0].terms;
    long a = line_start(cl[terms / 2], width);
    inverse_terms(cl, ch, o, pair, 0, terms, 0, 0, a);
    if (terms <= sweep) {
        inverse_terms(cl, ch, o, pair, 0, terms, 0, a, width);
        return;
    }
    for (long c0 = a; c0 < width; c0 += COLS_CHUNK) {
        long c1 = width - c0 < COLS_CHUNK ? width : c0 + COLS_CHUNK;
        for (int t0 = 0; t0 < terms; t0 += sweep)
            inverse_terms(cl, ch, o, pair, t0, t0 + sweep < terms ? t0 + sweep : terms, t0 > 0,
                          c0, c1);
    }
}

/* Outputs o[0], o[1] (rows o0, o0 + 1) and o[2], o[3] (o0 + 2, o0 + 3) at
 * once, an even filter length (every output has the same terms): cl[i],
 * ch[i] are coefficient rows m + 1 - i (i in [0, terms]), term i - 1 of
 * o[0], o[1] and term i of o[2], o[3], so the rows both pairs read are
 * loaded once for the four; each output's terms still go 0 .. terms - 1 in
 * order from acc = 0. Vectors of VW lanes a step (a cache line with AVX2),
 * the steps from where the rows start a line. */
#define QUAD_UNROLL 2

/* Term @p t of output @p p on the step's coefficient vectors l, h. */
#define QUAD_TERM(p, t)                                                                       \
    do {                                                                                      \
        for (int v = 0; v < QUAD_UNROLL; v++)                                                \
            acc[p][v] += o[p].ul[t] * l[v] + o[p].uh[t] * h[v];                               \
    } while (0)

/* The step's vectors of coefficient rows cl[i], ch[i]. */
#define QUAD_LOAD(i)                                                                          \
    do {                                                                                      \
        for (int v = 0; v < QUAD_UNROLL; v++) {                                              \
            l[v] = LOAD(cl[i] + c + v * VW);                                                  \
            h[v] = LOAD(ch[i] + c + v * VW);                                                  \
            IN_REGISTER(l[v]);                                                                \
            IN_REGISTER(h[v]);                                                                \
        }                                                                                     \
    } while (0)

static void inverse_quad_step(const real *const *cl, const real *const *ch, const out_terms *o,
                              long c)
{
    lanes acc[4][QUAD_UNROLL] = {{{0}}}, l[QUAD_UNROLL], h[QUAD_UNROLL];
    int terms = o[0].terms;
    QUAD_LOAD(0);
    QUAD_TERM(2, 0);
    QUAD_TERM(3, 0);
    for (int i = 1; i < terms; i++) {
        QUAD_LOAD(i);
        QUAD_TERM(0, i - 1);
        QUAD_TERM(1, i - 1);
        QUAD_TERM(2, i);
        QUAD_TERM(3, i);
    }
    QUAD_LOAD(terms);
    QUAD_TERM(0, terms - 1);
    QUAD_TERM(1, terms - 1);
    for (int p = 0; p < 4; p++)
        for (int v = 0; v < QUAD_UNROLL; v++)
            AT(o[p].out + c + v * VW) = acc[p][v];
}

/* The four outputs over [0, width); the columns before the first line and
 * after the last step a pair at a time. */
static void inverse_quad(const real *const *cl, const real *const *ch, const out_terms *o,
                         long width)
{
    int terms = o[0].terms;
    long c = line_start(cl[terms / 2], width), c0 = c;
    for (; c + QUAD_UNROLL * VW <= width; c += QUAD_UNROLL * VW)
        inverse_quad_step(cl, ch, o, c);
    for (int q = 0; q < 2; q++) {
        inverse_terms(cl + 1 - q, ch + 1 - q, o + 2 * q, 1, 0, terms, 0, 0, c0);
        inverse_terms(cl + 1 - q, ch + 1 - q, o + 2 * q, 1, 0, terms, 0, c, width);
    }
}

/* Coefficient row c of band @p band (0: lo, 1: hi): periodic for
 * periodization, else zeros outside [0, nc) (conv_inverse_fb's finite
 * coefficients); the strip's coeff_row makes it where set. */
static const real *coeff_row(const wt_cols *strip, int band, long nc, int periodic, long c,
                             const real *zeros)
{
    if (periodic)
        c = ((c % nc) + nc) % nc;
    else if (c < 0 || c >= nc)
        return zeros;
    if (strip->coeff_row)
        return strip->coeff_row(strip->coeff_ctx, band, (size_t)c, NULL);
    return band ? strip->hi + c * strip->hi_step : strip->lo + c * strip->lo_step;
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
    /* the plane's rows in sweeps of SWEEP_ROWS (a plane a power of two wide
     * shares the first-level cache's sets); a ring's made rows lie apart in
     * the sets (wt_lift_row_step): one sweep (sym8 inverse 8% faster) */
    int sweep = strip->coeff_row ? (int)F : SWEEP_ROWS / 2;
    long end = (long)(strip->first + strip->count);
    out_terms o[4];
    for (long o0 = (long)strip->first; o0 < end;) {
        long j0 = (o0 + off) & 1, m = (o0 + off - j0) / 2;
        int pair = j0 == 0 && o0 + 1 < end;
        int quad = F > 2 && !(F & 1) && pair && o0 + 3 < end && m - F / 2 >= 0 && m + 1 < nc;
        /* term t: tap j0 + 2t (output o0 + 1: tap 1 + 2t) of coefficient
         * m - t (outputs o0 + 2, o0 + 3: m + 1 - t), asked for from the
         * lowest row up (wt_cols.coeff_row); four outputs where their rows
         * are the band's and the filter even (haar's two pairs read no row
         * in common) */
        for (int p = 0; p <= pair + 2 * quad; p++) {
            long j = j0 + (p & 1);
            o[p].out = strip->sig + (o0 + p) * strip->sig_step;
            o[p].terms = (int)((F - j + 1) / 2);
            for (int t = 0; t < o[p].terms; t++) {
                o[p].ul[t] = tl.v[j + 2 * t];
                o[p].uh[t] = th.v[j + 2 * t];
            }
        }
        for (int t = o[0].terms - 1 + quad; t >= 0; t--) {
            long c = m + quad - t;
            cl[t] = coeff_row(strip, 0, nc, per, c, zeros);
            ch[t] = coeff_row(strip, 1, nc, per, c, zeros);
        }
        if (quad)
            inverse_quad(cl, ch, o, (long)strip->width);
        else
            inverse_rows(cl, ch, o, pair, sweep, (long)strip->width);
        o0 += 1 + pair + 2 * quad;
    }
}
