/* The CPU engine's DWT in place: the float planes of an image at the start
 * of a buffer of its pyramid's size become the pyramid (forward) and back
 * (inverse), with a spare of one first-level band (a quarter of the planes)
 * and a strip of a few MB, where the regular path (dwt_cpu.c) holds the
 * planes, the pyramid and a work area as large as the planes besides.
 *
 * Each level runs the passes of dwt_cpu.c (wt_axis_dwt_forward along y then
 * x, the inverse backwards) on strips of 64 lines or a multiple, as blocks of
 * the same lines, so the coefficients are bit for bit those of the regular
 * path. Forward, one level of C planes h x w at the buffer's start:
 *   1. each plane moves to the y pass's shape: (lo_h + hi_h) x w (Y);
 *   2. y pass by strips of columns through the strip buffer, written back
 *      over the columns it read;
 *   3. Y's lo and hi rows move apart to rows of lo_w + hi_w (Z);
 *   4. x pass by strips of rows: the low halves (A from lo rows, H from hi
 *      rows) packed in place, the high halves (V, D) through the spare
 *      after them: per channel [A][V][H][D];
 *   5. D, V then H of every channel gathered through the spare to their
 *      places at the end of the level's region (wt_pyramid_offset), the rest
 *      packed each time: A ends at the start, the next level's planes.
 * The inverse undoes the steps in the opposite order. A level whose lo_w
 * exceeds its input's width (lines shorter than the filter) and the coarser
 * ones go through the engine's regular transform on a copy of their part of
 * the buffer (small: the pyramid of an image that narrow). Float32
 * pyramids only. */
#include <stdlib.h>
#include <string.h>

#include "axis_view.h"
#include "dwt_line.h"
#include "engine_impl.h"

/* Strips are multiples of STRIP_LINES lines, starting at multiples of it
 * (the blocks of WT_BATCH lines of the regular pass, whatever the kernels'
 * vector width up to that). */
#define STRIP_LINES 64
#define STRIP_MIN_ELEMS ((size_t)1 << 16) /* 256 KB of float32 */

/* The buffer, its spare and strip, and how a level's passes run. */
typedef struct inplace {
    float *buf;
    float *spare, *strip;
    size_t strip_elems;
    const wt_params *params;
    int threads;
} inplace;

/* The shapes of one level: input planes C x h x w; output bands lo/hi. */
typedef struct level_shape {
    int level, channels;
    size_t h, w, lo_h, hi_h, lo_w, hi_w;
} level_shape;

static level_shape shape_of(const wt_pyramid *pyr, int level)
{
    return (level_shape){.level = level,
                         .channels = pyr->channels,
                         .h = pyr->lo_h[level - 1],
                         .w = pyr->lo_w[level - 1],
                         .lo_h = pyr->lo_h[level],
                         .hi_h = pyr->hi_h[level],
                         .lo_w = pyr->lo_w[level],
                         .hi_w = pyr->hi_w[level]};
}

/* Rows of the y pass's output and samples of the x pass's output rows. */
static size_t y_rows(const level_shape *s) { return s->lo_h + s->hi_h; }
static size_t x_cols(const level_shape *s) { return s->lo_w + s->hi_w; }

/* A level fits in place when the x pass's low halves are no longer than its
 * input rows, so that they pack over the rows already read. */
static int fits_in_place(const level_shape *s) { return s->lo_w <= s->w; }

/* A strided 2-D view of one channel: rows x cols, rows @p stride apart. */
static wt_array_view strided(float *data, size_t rows, size_t cols, size_t stride)
{
    wt_array_view v = wt_view_image(data, WT_FLOAT32, 1, rows, cols);
    v.strides[0] = (ptrdiff_t)stride;
    return v;
}

/* Lines per strip: a multiple of STRIP_LINES of @p line_elems each that the
 * strip buffer holds (it holds at least one such strip). */
static size_t strip_lines(const inplace *t, size_t line_elems)
{
    size_t n = t->strip_elems / (line_elems ? line_elems : 1);
    n -= n % STRIP_LINES;
    return n ? n : STRIP_LINES;
}

/* ---- the y pass ------------------------------------------------------------------ */

/* Plane c at c x (h x w) to or from its place in Y, c x ((lo_h + hi_h) x w):
 * moving up from the last, down from the first, so nothing is overwritten
 * before it moves. */
static void spread_planes(const inplace *t, const level_shape *s, int to_y)
{
    size_t plane = s->h * s->w, yplane = y_rows(s) * s->w;
    for (int i = 1; i < s->channels; i++) {
        size_t c = to_y ? (size_t)(s->channels - i) : (size_t)i;
        float *p = t->buf + c * plane, *y = t->buf + c * yplane;
        memmove(to_y ? y : p, to_y ? p : y, plane * sizeof(float));
    }
}

/* Rows @p rows x @p cols between the strip buffer (dense) and the buffer at
 * @p at (rows @p stride apart). */
static void strip_copy(float *at, size_t stride, float *strip, size_t rows, size_t cols,
                       int to_strip)
{
    for (size_t r = 0; r < rows; r++) {
        float *row = at + r * stride, *srow = strip + r * cols;
        memcpy(to_strip ? srow : row, to_strip ? row : srow, cols * sizeof(float));
    }
}

/* The y pass of every plane by strips of columns: forward, the plane's
 * columns (h) into the strip's lo and hi rows, written back as Y's columns;
 * inverse, Y's columns into the strip, back into the plane's. */
static wt_status y_pass(const inplace *t, const level_shape *s, int inverse)
{
    wt_line line;
    wt_line_init(&line, t->params, s->h);
    size_t yh = y_rows(s), step = strip_lines(t, yh);
    wt_status st = WT_OK;
    for (int c = 0; c < s->channels && st == WT_OK; c++) {
        float *plane = t->buf + (size_t)c * yh * s->w;
        for (size_t x0 = 0; x0 < s->w && st == WT_OK; x0 += step) {
            size_t cols = s->w - x0 < step ? s->w - x0 : step;
            wt_array_view sig = strided(plane + x0, s->h, cols, s->w);
            wt_array_view lo = wt_view_image(t->strip, WT_FLOAT32, 1, s->lo_h, cols);
            wt_array_view hi = wt_view_image(t->strip + s->lo_h * cols, WT_FLOAT32, 1, s->hi_h,
                                             cols);
            if (inverse) {
                strip_copy(plane + x0, s->w, t->strip, yh, cols, 1);
                st = wt_axis_dwt_inverse(&line, &lo, &hi, &sig, 0, t->threads);
            } else {
                st = wt_axis_dwt_forward(&line, &sig, &lo, &hi, 0, t->threads);
                strip_copy(plane + x0, s->w, t->strip, yh, cols, 0);
            }
        }
    }
    return st;
}

/* ---- the x pass ------------------------------------------------------------------ */

/* Where channel @p c's lo (part 0) or hi (part 1) rows start in Z, and how many. */
static float *z_part(const inplace *t, const level_shape *s, int c, int part, size_t *rows)
{
    *rows = part ? s->hi_h : s->lo_h;
    return t->buf + (size_t)c * y_rows(s) * x_cols(s) + (part ? s->lo_h * x_cols(s) : 0);
}

static float *y_part(const inplace *t, const level_shape *s, int c, int part)
{
    return t->buf + (size_t)c * y_rows(s) * s->w + (part ? s->lo_h * s->w : 0);
}

/* Y's parts (rows of w) to or from their places in Z (rows of lo_w + hi_w),
 * the farthest first on the way up, the nearest first on the way down. */
static void spread_parts(const inplace *t, const level_shape *s, int to_z)
{
    int n = 2 * s->channels;
    for (int i = 0; i < n; i++) {
        int k = to_z ? n - 1 - i : i, c = k / 2, part = k % 2;
        size_t rows;
        float *z = z_part(t, s, c, part, &rows), *y = y_part(t, s, c, part);
        memmove(to_z ? z : y, to_z ? y : z, rows * s->w * sizeof(float));
    }
}

/* The x pass of @p rows rows of w at @p part (their place in Z): forward,
 * the strips from the first, low halves packed at @p part and high halves
 * into the spare, then after them; inverse, the high halves into the spare,
 * the strips from the last (rows of w never reach low halves still unread). */
static wt_status x_pass_part(const inplace *t, const level_shape *s, const wt_line *line,
                             float *part, size_t rows, int inverse)
{
    size_t step = strip_lines(t, x_cols(s)), nstrips = (rows + step - 1) / step;
    float *high = part + rows * s->lo_w;
    if (inverse)
        memcpy(t->spare, high, rows * s->hi_w * sizeof(float));
    wt_status st = WT_OK;
    for (size_t i = 0; i < nstrips && st == WT_OK; i++) {
        size_t r0 = (inverse ? nstrips - 1 - i : i) * step;
        size_t n = rows - r0 < step ? rows - r0 : step;
        wt_array_view sig = wt_view_image(inverse ? t->strip : part + r0 * s->w, WT_FLOAT32,
                                          1, n, s->w);
        wt_array_view lo = wt_view_image(inverse ? part + r0 * s->lo_w : t->strip, WT_FLOAT32,
                                         1, n, s->lo_w);
        wt_array_view hi = wt_view_image(inverse ? t->spare + r0 * s->hi_w
                                                 : t->strip + n * s->lo_w,
                                         WT_FLOAT32, 1, n, s->hi_w);
        if (inverse) {
            st = wt_axis_dwt_inverse(line, &lo, &hi, &sig, 1, t->threads);
            memcpy(part + r0 * s->w, t->strip, n * s->w * sizeof(float));
        } else {
            st = wt_axis_dwt_forward(line, &sig, &lo, &hi, 1, t->threads);
            memcpy(part + r0 * s->lo_w, t->strip, n * s->lo_w * sizeof(float));
            memcpy(t->spare + r0 * s->hi_w, t->strip + n * s->lo_w,
                   n * s->hi_w * sizeof(float));
        }
    }
    if (!inverse && st == WT_OK)
        memcpy(high, t->spare, rows * s->hi_w * sizeof(float));
    return st;
}

static wt_status x_pass(const inplace *t, const level_shape *s, int inverse)
{
    wt_line line;
    wt_line_init(&line, t->params, s->w);
    wt_status st = WT_OK;
    for (int k = 0; k < 2 * s->channels && st == WT_OK; k++) {
        size_t rows;
        float *part = z_part(t, s, k / 2, k % 2, &rows);
        st = x_pass_part(t, s, &line, part, rows, inverse);
    }
    return st;
}

/* ---- the bands to their places ------------------------------------------------ */

/* Z's pieces per channel in memory order, and where each one is now. */
static const wt_band piece_band[4] = {WT_BAND_A, WT_BAND_V, WT_BAND_H, WT_BAND_D};

typedef struct pieces {
    size_t at[WT_MAX_CHANNELS][4]; /* element offsets in the buffer */
    size_t elems[4];               /* of one channel's piece */
    int present[4];
} pieces;

static void pieces_of_z(const level_shape *s, pieces *p)
{
    p->elems[0] = s->lo_h * s->lo_w; /* A */
    p->elems[1] = s->lo_h * s->hi_w; /* V */
    p->elems[2] = s->hi_h * s->lo_w; /* H */
    p->elems[3] = s->hi_h * s->hi_w; /* D */
    for (int c = 0; c < s->channels; c++) {
        size_t at = (size_t)c * y_rows(s) * x_cols(s);
        for (int k = 0; k < 4; k++) {
            p->at[c][k] = at;
            at += p->elems[k];
        }
    }
    for (int k = 0; k < 4; k++)
        p->present[k] = 1;
}

/* The present pieces packed from the buffer's start in memory order (down,
 * first to last) or moved from there to the places that leave room for the
 * newly present piece (up, last to first); @p at holds where they go. */
static void repack(const inplace *t, const level_shape *s, pieces *p, int up)
{
    size_t to[WT_MAX_CHANNELS][4], next = 0;
    for (int c = 0; c < s->channels; c++)
        for (int k = 0; k < 4; k++) {
            to[c][k] = next;
            next += p->present[k] ? p->elems[k] : 0;
        }
    int n = 4 * s->channels;
    for (int i = 0; i < n; i++) {
        int j = up ? n - 1 - i : i, c = j / 4, k = j % 4;
        if (!p->present[k])
            continue;
        memmove(t->buf + to[c][k], t->buf + p->at[c][k], p->elems[k] * sizeof(float));
        p->at[c][k] = to[c][k];
    }
}

/* Piece @p k of every channel between its places and the spare, channel after channel. */
static void spare_copy(const inplace *t, const level_shape *s, const pieces *p, int k,
                       int to_spare)
{
    for (int c = 0; c < s->channels; c++) {
        float *piece = t->buf + p->at[c][k], *sp = t->spare + (size_t)c * p->elems[k];
        memcpy(to_spare ? sp : piece, to_spare ? piece : sp, p->elems[k] * sizeof(float));
    }
}

/* The order the details leave Z in: each one's place (D, then V, then H:
 * the pyramid's order backwards) is past all that is still packed. */
static const int gather_order[3] = {3, 1, 2};

/* Forward: D, V, H to their pyramid places, A packed at the start. */
static void gather_bands(const inplace *t, const level_shape *s, const wt_pyramid *pyr)
{
    pieces p;
    pieces_of_z(s, &p);
    for (int i = 0; i < 3; i++) {
        int k = gather_order[i];
        spare_copy(t, s, &p, k, 1);
        p.present[k] = 0;
        repack(t, s, &p, 0);
        size_t band = wt_pyramid_offset(pyr, s->level, piece_band[k], 0);
        memcpy(t->buf + band, t->spare, (size_t)s->channels * p.elems[k] * sizeof(float));
    }
}

/* Inverse: A at the start and H, V, D at their pyramid places back into Z. */
static void scatter_bands(const inplace *t, const level_shape *s, const wt_pyramid *pyr)
{
    pieces p;
    pieces_of_z(s, &p);
    for (int k = 1; k < 4; k++)
        p.present[k] = 0;
    for (int c = 0; c < s->channels; c++)
        p.at[c][0] = (size_t)c * p.elems[0];
    for (int i = 2; i >= 0; i--) {
        int k = gather_order[i];
        size_t band = wt_pyramid_offset(pyr, s->level, piece_band[k], 0);
        memcpy(t->spare, t->buf + band, (size_t)s->channels * p.elems[k] * sizeof(float));
        p.present[k] = 1;
        repack(t, s, &p, 1);
        spare_copy(t, s, &p, k, 0);
    }
}

/* ---- levels ---------------------------------------------------------------------- */

static wt_status level_forward(const inplace *t, const wt_pyramid *pyr, const level_shape *s)
{
    spread_planes(t, s, 1);
    wt_status st = y_pass(t, s, 0);
    if (st != WT_OK)
        return st;
    spread_parts(t, s, 1);
    st = x_pass(t, s, 0);
    if (st == WT_OK)
        gather_bands(t, s, pyr);
    return st;
}

static wt_status level_inverse(const inplace *t, const wt_pyramid *pyr, const level_shape *s)
{
    scatter_bands(t, s, pyr);
    wt_status st = x_pass(t, s, 1);
    if (st != WT_OK)
        return st;
    spread_parts(t, s, 0);
    st = y_pass(t, s, 1);
    if (st == WT_OK)
        spread_planes(t, s, 0);
    return st;
}

/* Levels @p first..L of @p pyr by the engine's regular transform: their
 * pyramid is the buffer's first sub.total elements (wt_pyramid_offset puts
 * the coarser levels first), their planes the buffer's first C x h x w. */
static wt_status regular_levels(wt_engine *e, const inplace *t, const wt_pyramid *pyr,
                                int first, int inverse)
{
    wt_params p = *t->params;
    p.levels = pyr->levels - first + 1;
    wt_pyramid sub;
    wt_status st = wt_pyramid_alloc(&sub, &p, pyr->lo_h[first - 1], pyr->lo_w[first - 1],
                                    pyr->channels);
    if (st != WT_OK)
        return st;
    if (inverse) {
        memcpy(sub.data, t->buf, sub.total * sizeof(float));
        st = e->ops->inverse(e, &p, &sub, t->buf);
    } else {
        st = e->ops->forward(e, &p, t->buf, &sub);
        if (st == WT_OK)
            memcpy(t->buf, sub.data, sub.total * sizeof(float));
    }
    wt_pyramid_free(&sub);
    return st;
}

/* The first level not done in place (L + 1: none). */
static int first_regular_level(const wt_pyramid *pyr)
{
    for (int l = 1; l <= pyr->levels; l++) {
        level_shape s = shape_of(pyr, l);
        if (!fits_in_place(&s))
            return l;
    }
    return pyr->levels + 1;
}

/* Lines of a strip: 128 a thread (a column pass hands out groups of up to 8
 * batches of 16), 64 at least. */
static size_t strip_target(int threads)
{
    return 2 * STRIP_LINES * (size_t)(threads > 1 ? threads : 1);
}

static size_t at_most(size_t n, size_t cap) { return n < cap ? n : cap; }

/* Spare: the largest band of any level done in place, all channels (the
 * first level's, unless none is). Strip: strip_target lines of either pass
 * (fewer where the image has fewer) within an eighth of the spare, yet
 * STRIP_LINES lines at least, and STRIP_MIN_ELEMS. */
static wt_status inplace_open(inplace *t, const wt_params *p, const wt_pyramid *pyr, int done,
                              int threads)
{
    size_t spare = 1, strip = STRIP_MIN_ELEMS, least = STRIP_MIN_ELEMS;
    size_t lines = strip_target(threads);
    for (int l = 1; l < done; l++) {
        level_shape s = shape_of(pyr, l);
        size_t big_h = s.lo_h > s.hi_h ? s.lo_h : s.hi_h, big_w = s.lo_w > s.hi_w ? s.lo_w : s.hi_w;
        size_t band = big_h * big_w * (size_t)s.channels;
        size_t y_line = y_rows(&s), x_line = x_cols(&s);
        size_t wanted = at_most(s.w, lines) * y_line, wanted_x = at_most(big_h, lines) * x_line;
        size_t needed = at_most(s.w, STRIP_LINES) * y_line,
               needed_x = at_most(big_h, STRIP_LINES) * x_line;
        spare = band > spare ? band : spare;
        strip = wanted > strip ? wanted : strip;
        strip = wanted_x > strip ? wanted_x : strip;
        least = needed > least ? needed : least;
        least = needed_x > least ? needed_x : least;
    }
    strip = at_most(strip, spare / 8 > least ? spare / 8 : least);
    *t = (inplace){.buf = pyr->data, .strip_elems = strip, .params = p, .threads = threads};
    t->spare = malloc(spare * sizeof(float));
    t->strip = malloc(t->strip_elems * sizeof(float));
    if (t->spare && t->strip)
        return WT_OK;
    free(t->spare);
    free(t->strip);
    return wt_error_set(WT_ERR_NOMEM, "out of memory for the transform's work space");
}

static void inplace_close(inplace *t)
{
    free(t->spare);
    free(t->strip);
}

wt_status wt_cpu_transform_in_place(wt_engine *e, const wt_params *p, wt_pyramid *pyr,
                                    int inverse)
{
    if (pyr->dtype != WT_FLOAT32 || pyr->levels == 0)
        return pyr->dtype == WT_FLOAT32
                   ? WT_OK /* the coefficients are the samples */
                   : wt_error_set(WT_ERR_INVALID, "the transform in place takes float32 only");
    int done = first_regular_level(pyr); /* levels 1..done-1 in place */
    inplace t;
    wt_status st = inplace_open(&t, p, pyr, done, e->threads);
    if (st != WT_OK)
        return st;
    if (inverse && done <= pyr->levels)
        st = regular_levels(e, &t, pyr, done, 1);
    for (int i = 1; i < done && st == WT_OK; i++) {
        level_shape s = shape_of(pyr, inverse ? done - i : i);
        st = inverse ? level_inverse(&t, pyr, &s) : level_forward(&t, pyr, &s);
    }
    if (!inverse && done <= pyr->levels && st == WT_OK)
        st = regular_levels(e, &t, pyr, done, 0);
    inplace_close(&t);
    return st;
}
