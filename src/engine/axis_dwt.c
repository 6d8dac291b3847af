/* One DWT level along any axis of a strided view (axis_view.h): the lines
 * are gathered WT_BATCH at a time into a sample-major batch, transformed by
 * the 1-D kernel of dwt_line.c (the pass's function pointer: forward or
 * inverse, float or integer) and scattered back. A block's lines are
 * neighbours along the view's most contiguous other axis, so a batch of
 * columns reads WT_BATCH adjacent samples per row. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "axis_view.h"
#include "dwt_line.h"
#include "wavetool_hooks.h"

#define B WT_BATCH

/* buf[i * B + b] = line (l0 + b) sample i, lines past the last repeat it.
 * Sample-outer order: B sequential read streams, contiguous writes; B whole
 * rows through the kernels' transposes. */
static void gather(const wt_line_kernels *k, wt_lines src, size_t l0, size_t nlines, size_t len,
                   uint32_t *buf)
{
    const uint32_t *s = src.base;
    if (src.sample_step == 1 && l0 + B <= nlines) { /* rows */
        k->gather_rows(s + (ptrdiff_t)l0 * src.line_step, src.line_step, len, buf);
        return;
    }
    const uint32_t *row[B];
    for (size_t b = 0; b < B; b++)
        row[b] = s + (ptrdiff_t)(l0 + b < nlines ? l0 + b : nlines - 1) * src.line_step;
    if (src.line_step == 1 && l0 + B <= nlines) { /* columns: B adjacent samples */
        for (size_t i = 0; i < len; i++)
            memcpy(buf + i * B, row[0] + (ptrdiff_t)i * src.sample_step, B * sizeof *buf);
        return;
    }
    for (size_t i = 0; i < len; i++)
        for (size_t b = 0; b < B; b++)
            buf[i * B + b] = row[b][(ptrdiff_t)i * src.sample_step];
}

static void scatter(const wt_line_kernels *k, wt_lines dst, size_t l0, size_t nlines, size_t len,
                    const uint32_t *buf)
{
    uint32_t *d = dst.base;
    size_t nb = nlines - l0 < B ? nlines - l0 : B;
    if (dst.sample_step == 1 && nb == B) { /* rows */
        k->scatter_rows(buf, len, d + (ptrdiff_t)l0 * dst.line_step, dst.line_step);
        return;
    }
    if (dst.line_step == 1 && nb == B) {
        for (size_t i = 0; i < len; i++)
            memcpy(d + l0 + (ptrdiff_t)i * dst.sample_step, buf + i * B, B * sizeof *buf);
        return;
    }
    uint32_t *row[B];
    for (size_t b = 0; b < nb; b++)
        row[b] = d + (ptrdiff_t)(l0 + b) * dst.line_step;
    for (size_t b = nb; b < B; b++)
        row[b] = row[0];
    if (nb == B) {
        for (size_t i = 0; i < len; i++)
            for (size_t b = 0; b < B; b++)
                row[b][(ptrdiff_t)i * dst.sample_step] = buf[i * B + b];
        return;
    }
    for (size_t i = 0; i < len; i++)
        for (size_t b = 0; b < nb; b++)
            row[b][(ptrdiff_t)i * dst.sample_step] = buf[i * B + b];
}

/* The 1-D transform of one batch of B lines, sig <-> (lo, hi), by the
 * pass's kernels (dwt_line.h: the reference or an instruction set's). */
static void batch_kernel(const wt_line_kernels *k, const wt_line *line, int inverse, int integer,
                         void *sig, void *lo, void *hi, void *scratch)
{
    if (!inverse && !integer)
        k->forward(line, sig, lo, hi, scratch);
    else if (!inverse)
        k->forward_i32(line, sig, lo, hi, scratch);
    else if (!integer)
        k->inverse(line, lo, hi, sig, scratch);
    else
        k->inverse_i32(line, lo, hi, sig, scratch);
}

/* The same for one line (dwt_line_1.c's kernels, WT_LANES 1). */
typedef void (*line_kernel)(const wt_line *line, void *sig, void *lo, void *hi, void *scratch);

static void forward_f32_1(const wt_line *line, void *sig, void *lo, void *hi, void *scratch)
{
    wt_line_forward_1(line, sig, lo, hi, scratch);
}

static void forward_i32_1(const wt_line *line, void *sig, void *lo, void *hi, void *scratch)
{
    wt_line_forward_i32_1(line, sig, lo, hi, scratch);
}

static void inverse_f32_1(const wt_line *line, void *sig, void *lo, void *hi, void *scratch)
{
    wt_line_inverse_1(line, lo, hi, sig, scratch);
}

static void inverse_i32_1(const wt_line *line, void *sig, void *lo, void *hi, void *scratch)
{
    wt_line_inverse_i32_1(line, lo, hi, sig, scratch);
}

/* Line @p k of @p src into @p buf, one sample after the other; and back. */
static void line_in(wt_lines src, size_t k, size_t len, uint32_t *buf)
{
    const uint32_t *s = (const uint32_t *)src.base + (ptrdiff_t)k * src.line_step;
    for (size_t i = 0; i < len; i++)
        buf[i] = s[(ptrdiff_t)i * src.sample_step];
}

static void line_out(wt_lines dst, size_t k, size_t len, const uint32_t *buf)
{
    uint32_t *d = (uint32_t *)dst.base + (ptrdiff_t)k * dst.line_step;
    for (size_t i = 0; i < len; i++)
        d[(ptrdiff_t)i * dst.sample_step] = buf[i];
}

/* One pass along one axis over all lines of three views. */
typedef struct dwt_pass {
    const wt_line *line;
    const wt_line_kernels *batch; /* passes of B lines a batch */
    line_kernel kernel;           /* passes of one line at a time */
    int inverse, integer;
    size_t group;                 /* batches a job */
    wt_axis_walk walk;
    const wt_array_view *sig, *lo, *hi;
    atomic_int out_of_memory; /* a worker could not get its line buffers */
} dwt_pass;

/* A job's batches: in a column pass (neighbouring lines are neighbouring
 * samples) up to WT_GROUP neighbouring batches, so each row is read and
 * written WT_GROUP * B samples at a time (8 cache lines of one page, where a
 * lone batch takes one line of a new page a row), within WT_GROUP_BYTES of
 * buffers (long columns: fewer); else one. */
#define WT_GROUP 8
#define WT_GROUP_BYTES ((size_t)16 << 20)

static size_t batches_per_job(const wt_array_view *sig, const wt_axis_walk *walk,
                              size_t batch_bytes)
{
    size_t batches = (walk->nlines + B - 1) / B;
    size_t group = WT_GROUP_BYTES / (batch_bytes ? batch_bytes : 1);
    group = group < 1 ? 1 : (group > WT_GROUP ? WT_GROUP : group);
    if (group > batches)
        group = batches;
    return walk->inner >= 0 && sig->strides[walk->inner] == 1 && group > 1 ? group : 1;
}

/* Rows ahead that a column group's copies ask the caches for: the rows are
 * a page or more apart, where the hardware prefetchers do not follow. */
#define PREFETCH_ROWS 8

static void prefetch_span(const uint32_t *p, size_t elems, int for_write)
{
    for (size_t e = 0; e < elems; e += 64 / sizeof *p)
        if (for_write)
            __builtin_prefetch(p + e, 1);
        else
            __builtin_prefetch(p + e, 0);
}

/* Batches [first, first + count) of one block's lines to buffers
 * buf + k * buf_step, and back: whole groups of columns row by row. */
static void gather_batches(const dwt_pass *ps, wt_lines src, size_t first, size_t count,
                           size_t len, uint32_t *buf, size_t buf_step)
{
    size_t nlines = ps->walk.nlines;
    if (src.line_step == 1 && count > 1 && (first + count) * B <= nlines) {
        for (size_t i = 0; i < len; i++) {
            const uint32_t *row = (const uint32_t *)src.base + (ptrdiff_t)i * src.sample_step;
            if (i + PREFETCH_ROWS < len)
                prefetch_span(row + PREFETCH_ROWS * src.sample_step + first * B, count * B, 0);
            for (size_t k = 0; k < count; k++)
                memcpy(buf + k * buf_step + i * B, row + (first + k) * B, B * sizeof *buf);
        }
        return;
    }
    for (size_t k = 0; k < count; k++)
        gather(ps->batch, src, (first + k) * B, nlines, len, buf + k * buf_step);
}

static void scatter_batches(const dwt_pass *ps, wt_lines dst, size_t first, size_t count,
                            size_t len, const uint32_t *buf, size_t buf_step)
{
    size_t nlines = ps->walk.nlines;
    if (dst.line_step == 1 && count > 1 && (first + count) * B <= nlines) {
        for (size_t i = 0; i < len; i++) {
            uint32_t *row = (uint32_t *)dst.base + (ptrdiff_t)i * dst.sample_step;
            if (i + PREFETCH_ROWS < len)
                prefetch_span(row + PREFETCH_ROWS * dst.sample_step + first * B, count * B, 1);
            for (size_t k = 0; k < count; k++)
                memcpy(row + (first + k) * B, buf + k * buf_step + i * B, B * sizeof *buf);
        }
        return;
    }
    for (size_t k = 0; k < count; k++)
        scatter(ps->batch, dst, (first + k) * B, nlines, len, buf + k * buf_step);
}

/* A batch's buffers in a job's memory: batch k's at mem + k * step. */
typedef struct batch_layout {
    size_t step, lo, hi; /* elements: a batch; lo's and hi's offsets in it */
} batch_layout;

static batch_layout batch_layout_of(const wt_line *ln)
{
    size_t lo = ln->n * B + B, hi = lo + ln->nlo * B + B;
    return (batch_layout){(hi + ln->nhi * B + 2 * B) & ~(size_t)1, lo, hi}; /* 8-byte aligned */
}

/* Job @p job: batches of block job / groups, from (job % groups) * group. */
static void run_job(const dwt_pass *ps, size_t job, uint32_t *mem, const batch_layout *bl,
                    void *scratch)
{
    const wt_line *ln = ps->line;
    size_t batches = (ps->walk.nlines + B - 1) / B;
    size_t groups = (batches + ps->group - 1) / ps->group;
    size_t block = job / groups, first = (job % groups) * ps->group;
    size_t count = batches - first < ps->group ? batches - first : ps->group;
    wt_lines s = wt_axis_block(ps->sig, &ps->walk, block);
    wt_lines l = wt_axis_block(ps->lo, &ps->walk, block);
    wt_lines h = wt_axis_block(ps->hi, &ps->walk, block);
    if (!ps->inverse) {
        gather_batches(ps, s, first, count, ln->n, mem, bl->step);
    } else {
        gather_batches(ps, l, first, count, ln->nlo, mem + bl->lo, bl->step);
        gather_batches(ps, h, first, count, ln->nhi, mem + bl->hi, bl->step);
    }
    for (size_t k = 0; k < count; k++) {
        uint32_t *b = mem + k * bl->step;
        batch_kernel(ps->batch, ln, ps->inverse, ps->integer, b, b + bl->lo, b + bl->hi, scratch);
    }
    if (!ps->inverse) {
        scatter_batches(ps, l, first, count, ln->nlo, mem + bl->lo, bl->step);
        scatter_batches(ps, h, first, count, ln->nhi, mem + bl->hi, bl->step);
    } else {
        scatter_batches(ps, s, first, count, ln->n, mem, bl->step);
    }
}

static void run_batches(void *ctx, size_t begin, size_t end)
{
    dwt_pass *ps = ctx;
    batch_layout bl = batch_layout_of(ps->line);
    uint32_t *mem = malloc(ps->group * bl.step * 4 + wt_line_scratch(ps->line));
    if (!mem) {
        atomic_store(&ps->out_of_memory, 1);
        return;
    }
    for (size_t job = begin; job < end; job++)
        run_job(ps, job, mem, &bl, mem + ps->group * bl.step);
    free(mem);
}

/* A pass whose blocks hold fewer than B lines (1xN and Nx1 images; one job a
 * block): each line alone in buffers of one line, where a batch's would hold
 * B copies of it (a 1x4000000 row took 16 times its size). */
static void run_lines(void *ctx, size_t begin, size_t end)
{
    dwt_pass *ps = ctx;
    const wt_line *ln = ps->line;
    size_t len = (ln->n + ln->nlo + ln->nhi + 4) & ~(size_t)1; /* keep 8-byte alignment */
    uint32_t *mem = malloc(len * 4 + wt_line_scratch_1(ln));
    if (!mem) {
        atomic_store(&ps->out_of_memory, 1);
        return;
    }
    uint32_t *sig = mem, *lo = sig + ln->n + 1, *hi = lo + ln->nlo + 1;
    for (size_t block = begin; block < end; block++) {
        wt_lines s = wt_axis_block(ps->sig, &ps->walk, block);
        wt_lines l = wt_axis_block(ps->lo, &ps->walk, block);
        wt_lines h = wt_axis_block(ps->hi, &ps->walk, block);
        for (size_t k = 0; k < ps->walk.nlines; k++) {
            if (!ps->inverse) {
                line_in(s, k, ln->n, sig);
                ps->kernel(ln, sig, lo, hi, mem + len);
                line_out(l, k, ln->nlo, lo);
                line_out(h, k, ln->nhi, hi);
            } else {
                line_in(l, k, ln->nlo, lo);
                line_in(h, k, ln->nhi, hi);
                ps->kernel(ln, sig, lo, hi, mem + len);
                line_out(s, k, ln->n, sig);
            }
        }
    }
    free(mem);
}

/* ---- column passes where the columns lie (dwt_cols.c) --------------------- */

/* Output rows a job of a column pass: the plane's whole rows (the widest
 * strips run at the copy rate: narrow ones read a few cache lines of a new
 * page a row), split in runs of rows for the threads. */
#define COLS_JOB_ROWS 32

/* A worker's scratch of a column pass, its head zero (dwt_line.h). */
static void *cols_scratch_new(const dwt_pass *ps)
{
    void *scratch = malloc(wt_cols_scratch(ps->line, ps->walk.nlines));
    if (scratch)
        memset(scratch, 0, WT_COLS_STATE);
    return scratch;
}

/* Whether the pass's lines are columns the kernels filter where they lie:
 * neighbouring lines neighbouring samples in all three views. */
static int cols_pass_fits(const dwt_pass *ps)
{
    int inner = ps->walk.inner;
    return ps->batch->cols_forward && wt_plane_fit(ps->line, ps->integer) && inner >= 0 &&
           ps->sig->strides[inner] == 1 && ps->lo->strides[inner] == 1 &&
           ps->hi->strides[inner] == 1;
}

static size_t cols_out_rows(const dwt_pass *ps)
{
    return ps->inverse ? ps->line->n : ps->line->nlo;
}

static size_t cols_jobs_per_block(const dwt_pass *ps)
{
    return (cols_out_rows(ps) + COLS_JOB_ROWS - 1) / COLS_JOB_ROWS;
}

/* Output rows [first, first + count) of block @p block of a column pass. */
static void cols_job(const dwt_pass *ps, size_t block, size_t first, size_t count,
                     void *scratch)
{
    wt_lines s = wt_axis_block(ps->sig, &ps->walk, block);
    wt_lines l = wt_axis_block(ps->lo, &ps->walk, block);
    wt_lines h = wt_axis_block(ps->hi, &ps->walk, block);
    wt_cols cols = {s.base,        l.base,          h.base, s.sample_step, l.sample_step,
                    h.sample_step, ps->walk.nlines, first,  count,         ps->integer,
                    0,             NULL,            NULL,   0};
    if (ps->inverse)
        ps->batch->cols_inverse(ps->line, &cols, scratch);
    else
        ps->batch->cols_forward(ps->line, &cols, scratch);
}

static void run_cols(void *ctx, size_t begin, size_t end)
{
    dwt_pass *ps = ctx;
    void *scratch = cols_scratch_new(ps);
    if (!scratch) {
        atomic_store(&ps->out_of_memory, 1);
        return;
    }
    size_t jobs = cols_jobs_per_block(ps), rows = cols_out_rows(ps);
    for (size_t job = begin; job < end; job++) {
        size_t first = job % jobs * COLS_JOB_ROWS;
        cols_job(ps, job / jobs, first, rows - first < COLS_JOB_ROWS ? rows - first : COLS_JOB_ROWS,
                 scratch);
    }
    free(scratch);
}

/* ---- row passes where the rows lie (dwt_rows.c) ---------------------------- */

/* Lines a job of a row pass. */
#define ROWS_JOB_LINES 16

/* Whether the pass's lines are rows the kernels filter where they lie:
 * contiguous in all three views. */
static int rows_pass_fits(const dwt_pass *ps)
{
    int axis = ps->walk.axis;
    return ps->batch->rows_forward && wt_plane_fit(ps->line, ps->integer) &&
           ps->sig->strides[axis] == 1 && ps->lo->strides[axis] == 1 &&
           ps->hi->strides[axis] == 1;
}

static size_t rows_jobs_per_block(const dwt_pass *ps)
{
    return (ps->walk.nlines + ROWS_JOB_LINES - 1) / ROWS_JOB_LINES;
}

/* Lines [first, first + count) of block @p block of a row pass. */
static void rows_job(const dwt_pass *ps, size_t block, size_t first, size_t count,
                     void *scratch)
{
    wt_lines s = wt_axis_block(ps->sig, &ps->walk, block);
    wt_lines l = wt_axis_block(ps->lo, &ps->walk, block);
    wt_lines h = wt_axis_block(ps->hi, &ps->walk, block);
    wt_rows rows = {s.base,      l.base, h.base, s.line_step, l.line_step,
                    h.line_step, first,  count,  ps->integer};
    if (ps->inverse)
        ps->batch->rows_inverse(ps->line, &rows, scratch);
    else
        ps->batch->rows_forward(ps->line, &rows, scratch);
}

static void run_rows(void *ctx, size_t begin, size_t end)
{
    dwt_pass *ps = ctx;
    void *scratch = malloc(wt_rows_scratch(ps->line));
    if (!scratch) {
        atomic_store(&ps->out_of_memory, 1);
        return;
    }
    size_t jobs = rows_jobs_per_block(ps), nlines = ps->walk.nlines;
    for (size_t job = begin; job < end; job++) {
        size_t first = job % jobs * ROWS_JOB_LINES;
        rows_job(ps, job / jobs, first,
                 nlines - first < ROWS_JOB_LINES ? nlines - first : ROWS_JOB_LINES, scratch);
    }
    free(scratch);
}

/* The pass of @p line along @p axis over the lines of three views. */
static void pass_init(dwt_pass *ps, const wt_line *line, int inverse, const wt_array_view *sig,
                      const wt_array_view *lo, const wt_array_view *hi, int axis)
{
    static const line_kernel one_line_kernels[2][2] = {{forward_f32_1, forward_i32_1},
                                                       {inverse_f32_1, inverse_i32_1}};
    ps->walk = wt_axis_walk_of(sig, axis);
    ps->integer = lo->dtype == WT_INT32; /* the coefficients' (an inverse's sig may be float) */
    ps->line = line;
    ps->batch = wt_line_kernels_best();
    ps->kernel = one_line_kernels[inverse][ps->integer];
    ps->inverse = inverse;
    ps->group = batches_per_job(sig, &ps->walk, batch_layout_of(line).step * 4);
    ps->sig = sig;
    ps->lo = lo;
    ps->hi = hi;
    atomic_init(&ps->out_of_memory, 0);
}

static wt_status pass_status(const dwt_pass *ps)
{
    return atomic_load(&ps->out_of_memory)
               ? wt_error_set(WT_ERR_NOMEM, "out of memory for the transform's line buffers")
               : WT_OK;
}

static wt_status run_pass(const wt_line *line, int inverse, const wt_array_view *sig,
                          const wt_array_view *lo, const wt_array_view *hi, int axis, int threads)
{
    dwt_pass ps;
    pass_init(&ps, line, inverse, sig, lo, hi, axis);
    const wt_axis_walk walk = ps.walk;
    const int one_line = walk.nlines < B;
    size_t batches = (walk.nlines + B - 1) / B;
    size_t jobs = one_line ? walk.nblocks : (batches + ps.group - 1) / ps.group * walk.nblocks;
    if (jobs == 0 || walk.nlines == 0 || line->n == 0)
        return WT_OK;
    if (cols_pass_fits(&ps))
        wt_parallel_for(threads, cols_jobs_per_block(&ps) * walk.nblocks, run_cols, &ps);
    else if (rows_pass_fits(&ps))
        wt_parallel_for(threads, rows_jobs_per_block(&ps) * walk.nblocks, run_rows, &ps);
    else
        wt_parallel_for(threads, jobs, one_line ? run_lines : run_batches, &ps);
    return pass_status(&ps);
}

wt_status wt_axis_dwt_forward(const wt_line *line, const wt_array_view *sig,
                              const wt_array_view *lo, const wt_array_view *hi, int axis,
                              int threads)
{
    return run_pass(line, 0, sig, lo, hi, axis, threads);
}

wt_status wt_axis_dwt_inverse(const wt_line *line, const wt_array_view *lo,
                              const wt_array_view *hi, const wt_array_view *sig, int axis,
                              int threads)
{
    return run_pass(line, 1, sig, lo, hi, axis, threads);
}

/* ---- one separable level over every axis --------------------------------- */

static size_t view_elems(const wt_array_view *v)
{
    size_t n = (size_t)v->channels;
    for (int k = 0; k < v->rank; k++)
        n *= v->shape[k];
    return n;
}

/* Shape of array i of the 2^(k+1) that the passes along axes 0..k make of
 * @p src: low- or high-pass along axis j as bit (k - j) of i says. */
static void split_shape(const wt_array_view *src, const wt_line *lines, int k, int i,
                        size_t *shape)
{
    for (int j = 0; j < src->rank; j++)
        shape[j] = j > k ? src->shape[j] : ((i >> (k - j)) & 1) ? lines[j].nhi : lines[j].nlo;
}

/* Dense views of those arrays, one after another from @p mem. */
static void split_views(const wt_array_view *src, const wt_line *lines, int k, void *mem,
                        wt_array_view *out)
{
    uint32_t *p = mem;
    for (int i = 0; i < 1 << (k + 1); i++) {
        size_t shape[WT_VIEW_MAX_RANK];
        split_shape(src, lines, k, i, shape);
        out[i] = wt_view_dense(p, src->dtype, src->channels, src->rank, shape);
        p += view_elems(&out[i]);
    }
}

size_t wt_axis_level_tmp(const wt_array_view *src, const wt_line *lines, int k)
{
    size_t n = 0;
    for (int i = 0; i < 1 << (k + 1); i++) {
        size_t shape[WT_VIEW_MAX_RANK], elems = (size_t)src->channels;
        split_shape(src, lines, k, i, shape);
        for (int j = 0; j < src->rank; j++)
            elems *= shape[j];
        n += elems;
    }
    return n;
}

/* The arrays before the pass along axis k + 1 of a level of @p sig: sig
 * itself (k < 0), the bands (k = rank - 1), else the split arrays in
 * tmp[k & 1]. */
static void arrays_after(const wt_array_view *sig, const wt_line *lines,
                         const wt_array_view *bands, void *const tmp[2], int k,
                         wt_array_view *out)
{
    if (k < 0)
        out[0] = *sig;
    else if (k == sig->rank - 1)
        memcpy(out, bands, ((size_t)1 << sig->rank) * sizeof *out);
    else
        split_views(sig, lines, k, tmp[k & 1], out);
}

/* ---- a 2-D forward level in bands of rows ---------------------------------- */

/* Rows of lo and of hi a band: the column pass's output rows of a band
 * (2 x 8 rows of 16 KB at 4096 columns) go to a worker's buffer, which
 * stays in the second-level cache while the band's row passes read it: the
 * y pass's arrays are never written to memory. */
#define FUSED_BAND_ROWS 8

/* The passes of a 2-D forward level: y (the plane into the lo and hi rows
 * of a band), then x (lo rows into A, V; hi rows into H, D). */
typedef struct fused_level {
    dwt_pass cols, rows[2];
} fused_level;

static size_t fused_bands(const fused_level *f)
{
    return (f->cols.line->nlo + FUSED_BAND_ROWS - 1) / FUSED_BAND_ROWS;
}

/* Band rows [first, first + count) of block @p block: the column pass into
 * @p buf (lo rows, then hi rows, width apart), the row passes from it. */
static void fused_band(const fused_level *f, size_t block, size_t first, size_t count,
                       float *buf, void *cs, void *rs)
{
    const dwt_pass *c = &f->cols;
    size_t width = c->walk.nlines, nhi = c->line->nhi;
    float *lo = buf, *hi = buf + FUSED_BAND_ROWS * width;
    wt_lines s = wt_axis_block(c->sig, &c->walk, block);
    wt_cols cols = {s.base, lo,    hi,    s.sample_step, (ptrdiff_t)width, (ptrdiff_t)width,
                    width,  first, count, c->integer,   first,            NULL,
                    NULL,   c->integer && c->sig->dtype != WT_INT32};
    c->batch->cols_forward(c->line, &cols, cs);
    /* the JPEG 2000 kinds: one hi row fewer for odd heights */
    size_t counts[2] = {count, first < nhi ? (nhi - first < count ? nhi - first : count) : 0};
    float *from[2] = {lo, hi};
    for (int b = 0; b < 2; b++) {
        const dwt_pass *r = &f->rows[b];
        wt_lines l = wt_axis_block(r->lo, &r->walk, block);
        wt_lines h = wt_axis_block(r->hi, &r->walk, block);
        wt_rows rows = {from[b],
                        (float *)l.base + (ptrdiff_t)first * l.line_step,
                        (float *)h.base + (ptrdiff_t)first * h.line_step,
                        (ptrdiff_t)width,
                        l.line_step,
                        h.line_step,
                        0,
                        counts[b],
                        r->integer};
        if (counts[b])
            r->batch->rows_forward(r->line, &rows, rs);
    }
}

static void run_fused(void *ctx, size_t begin, size_t end)
{
    fused_level *f = ctx;
    void *cs = cols_scratch_new(&f->cols);
    void *rs = malloc(wt_rows_scratch(f->rows[0].line));
    float *buf = malloc(2 * FUSED_BAND_ROWS * f->cols.walk.nlines * sizeof *buf);
    size_t bands = fused_bands(f), nlo = f->cols.line->nlo;
    for (size_t job = begin; job < end && cs && rs && buf; job++) {
        size_t block = job / bands, first = job % bands * FUSED_BAND_ROWS;
        size_t count = nlo - first < FUSED_BAND_ROWS ? nlo - first : FUSED_BAND_ROWS;
        fused_band(f, block, first, count, buf, cs, rs);
    }
    if (!cs || !rs || !buf)
        atomic_store(&f->cols.out_of_memory, 1);
    free(cs);
    free(rs);
    free(buf);
}

/* A forward level of an image by bands of rows where both passes filter
 * the lines where they lie; *done = 0 where they do not. */
static wt_status fused_forward(const wt_line *lines, const wt_array_view *sig,
                               const wt_array_view *split, const wt_array_view *bands,
                               int threads, int *done)
{
    fused_level f;
    pass_init(&f.cols, &lines[0], 0, sig, &split[0], &split[1], 0);
    pass_init(&f.rows[0], &lines[1], 0, &split[0], &bands[0], &bands[1], 1);
    pass_init(&f.rows[1], &lines[1], 0, &split[1], &bands[2], &bands[3], 1);
    *done = sig->rank == 2 && cols_pass_fits(&f.cols) && rows_pass_fits(&f.rows[0]) &&
            rows_pass_fits(&f.rows[1]) && f.cols.walk.nblocks == f.rows[0].walk.nblocks;
    if (!*done)
        return WT_OK;
    wt_parallel_for(threads, fused_bands(&f) * f.cols.walk.nblocks, run_fused, &f);
    return pass_status(&f.cols);
}

/* ---- a 2-D inverse level by made coefficient rows ------------------------- */

/* The inverse's passes: x (A, V into the lo rows; H, D into the hi rows),
 * then y (lo and hi rows into the plane). The column pass asks for the
 * coefficient rows in increasing order (wt_cols.coeff_row), so a worker
 * makes each with the row pass when it is first asked for, into a ring of
 * its own that holds the rows one output reads (a filter bank's (F + 1) / 2
 * a band, lifting's one) and carries them from job to job: the arrays
 * between the passes are never written, and no two workers write one row
 * (the rows at their jobs' boundaries are made by both). */
typedef struct made_rows {
    const fused_level *f;
    size_t block;   /* the plane whose rows the ring holds */
    size_t rows;    /* ring rows a band */
    size_t step;    /* elements from one ring row to the next */
    float *mem;     /* band b's slot i: mem + (b * rows + i) * step */
    size_t *held;   /* band b's slot i holds row held[b * rows + i] - 1 (0: none) */
    size_t next[2]; /* a band's slot to fill next: the oldest */
    void *scratch;  /* the row pass's */
} made_rows;

static void made_rows_free(made_rows *m)
{
    free(m->mem);
    free(m->held);
    free(m->scratch);
}

static int made_rows_new(made_rows *m, const fused_level *f)
{
    const wt_line *x = f->rows[0].line;
    *m = (made_rows){.f = f, .block = SIZE_MAX, .rows = wt_cols_coeff_rows(f->cols.line),
                     .step = wt_lift_row_step(x->n)}; /* rows apart in the L1 sets */
    m->mem = malloc(2 * m->rows * m->step * sizeof *m->mem);
    m->held = calloc(2 * m->rows, sizeof *m->held);
    m->scratch = malloc(wt_rows_scratch(x));
    if (m->mem && m->held && m->scratch)
        return 1;
    made_rows_free(m);
    return 0;
}

/* The rows of plane @p block from now on. */
static void made_rows_of_block(made_rows *m, size_t block)
{
    if (block == m->block)
        return;
    m->block = block;
    memset(m->held, 0, 2 * m->rows * sizeof *m->held);
}

/* Coefficient row k of band (lo, hi) of the worker's plane, made by the
 * row pass into @p into. */
static void make_row(const made_rows *m, int band, size_t k, float *into)
{
    const dwt_pass *r = &m->f->rows[band];
    wt_lines l = wt_axis_block(r->lo, &r->walk, m->block);
    wt_lines h = wt_axis_block(r->hi, &r->walk, m->block);
    wt_rows rows = {into,
                    (float *)l.base + (ptrdiff_t)k * l.line_step,
                    (float *)h.base + (ptrdiff_t)k * h.line_step,
                    0,
                    l.line_step,
                    h.line_step,
                    0,
                    1,
                    r->integer};
    r->batch->rows_inverse(r->line, &rows, m->scratch);
}

/* wt_cols.coeff_row: the row made into @p into; else the ring's, or made
 * into the band's oldest slot. */
static const float *made_row(void *ctx, int band, size_t k, float *into)
{
    made_rows *m = ctx;
    if (into) {
        make_row(m, band, k, into);
        return into;
    }
    size_t *held = m->held + band * m->rows;
    float *ring = m->mem + band * m->rows * m->step;
    for (size_t i = 0; i < m->rows; i++)
        if (held[i] == k + 1)
            return ring + i * m->step;
    size_t slot = m->next[band];
    m->next[band] = (slot + 1) % m->rows;
    held[slot] = k + 1;
    make_row(m, band, k, ring + slot * m->step);
    return ring + slot * m->step;
}

static void run_fused_inverse(void *ctx, size_t begin, size_t end)
{
    fused_level *f = ctx;
    const dwt_pass *c = &f->cols;
    void *cs = cols_scratch_new(c);
    made_rows maker;
    int made = made_rows_new(&maker, f);
    size_t jobs = cols_jobs_per_block(c), rows = cols_out_rows(c);
    int sig_float = c->integer && c->sig->dtype != WT_INT32; /* converted as written */
    for (size_t job = begin; job < end && cs && made; job++) {
        made_rows_of_block(&maker, job / jobs);
        size_t first = job % jobs * COLS_JOB_ROWS;
        size_t count = rows - first < COLS_JOB_ROWS ? rows - first : COLS_JOB_ROWS;
        wt_lines s = wt_axis_block(c->sig, &c->walk, maker.block);
        wt_lines l = wt_axis_block(c->lo, &c->walk, maker.block);
        wt_lines h = wt_axis_block(c->hi, &c->walk, maker.block);
        wt_cols cols = {s.base,        l.base,         h.base, s.sample_step, l.sample_step,
                        h.sample_step, c->walk.nlines, first,  count,         c->integer,
                        0,             made_row,       &maker, sig_float};
        c->batch->cols_inverse(c->line, &cols, cs);
    }
    if (!cs || !made)
        atomic_store(&f->cols.out_of_memory, 1);
    free(cs);
    if (made)
        made_rows_free(&maker);
}

/* An inverse level of an image whose column and row passes filter where
 * the lines lie; *done = 0 where they do not. */
static wt_status fused_inverse(const wt_line *lines, const wt_array_view *sig,
                               const wt_array_view *split, const wt_array_view *bands,
                               int threads, int *done)
{
    fused_level f;
    pass_init(&f.cols, &lines[0], 1, sig, &split[0], &split[1], 0);
    pass_init(&f.rows[0], &lines[1], 1, &split[0], &bands[0], &bands[1], 1);
    pass_init(&f.rows[1], &lines[1], 1, &split[1], &bands[2], &bands[3], 1);
    *done = sig->rank == 2 && cols_pass_fits(&f.cols) && rows_pass_fits(&f.rows[0]) &&
            rows_pass_fits(&f.rows[1]) && f.cols.walk.nblocks == f.rows[0].walk.nblocks;
    if (!*done)
        return WT_OK;
    wt_parallel_for(threads, cols_jobs_per_block(&f.cols) * f.cols.walk.nblocks,
                    run_fused_inverse, &f);
    return pass_status(&f.cols);
}

/* A 2-D level fused (fused_forward, fused_inverse) where it can be;
 * *done = 0 where not. The rows between the passes have the bands' type
 * (integers where an integer level reads or writes floats). */
static wt_status try_fused(const wt_line *lines, const wt_array_view *sig,
                           const wt_array_view *bands, void *const tmp[2], int threads,
                           int inverse, int *done)
{
    wt_array_view split[2], rows = *sig;
    *done = 0;
    if (sig->rank != 2)
        return WT_OK;
    rows.dtype = bands[0].dtype;
    arrays_after(&rows, lines, bands, tmp, 0, split);
    return inverse ? fused_inverse(lines, sig, split, bands, threads, done)
                   : fused_forward(lines, sig, split, bands, threads, done);
}

/* The passes of a level: forward along axes 0, 1, ... (each array before
 * the pass into a low and a high array after it), inverse backwards. */
static wt_status run_level(const wt_line *lines, const wt_array_view *sig,
                           const wt_array_view *bands, void *const tmp[2], int threads,
                           int inverse)
{
    int done;
    wt_status st = try_fused(lines, sig, bands, tmp, threads, inverse, &done);
    if (done)
        return st;
    for (int s = 0; s < sig->rank && st == WT_OK; s++) {
        const int k = inverse ? sig->rank - 1 - s : s;
        wt_array_view before[1 << WT_VIEW_MAX_RANK], after[1 << WT_VIEW_MAX_RANK];
        arrays_after(sig, lines, bands, tmp, k - 1, before);
        arrays_after(sig, lines, bands, tmp, k, after);
        for (int i = 0; i < 1 << k && st == WT_OK; i++)
            st = inverse ? wt_axis_dwt_inverse(&lines[k], &after[2 * i], &after[2 * i + 1],
                                               &before[i], k, threads)
                         : wt_axis_dwt_forward(&lines[k], &before[i], &after[2 * i],
                                               &after[2 * i + 1], k, threads);
    }
    return st;
}

int wt_axis_level_reads_floats(const wt_line *lines)
{
    const wt_line_kernels *k = wt_line_kernels_best();
    return k->cols_forward && k->rows_forward && wt_plane_fit(&lines[0], 1) &&
           wt_plane_fit(&lines[1], 1);
}

wt_status wt_axis_level_forward(const wt_line *lines, const wt_array_view *src,
                                const wt_array_view *bands, void *const tmp[2], int threads)
{
    if (src->dtype == bands[0].dtype)
        return run_level(lines, src, bands, tmp, threads, 0);
    int done;
    wt_status st = try_fused(lines, src, bands, tmp, threads, 0, &done);
    return done ? st
                : wt_error_set(WT_ERR_INVALID, "an integer level reads floats only where its "
                                               "passes fuse (wt_axis_level_reads_floats)");
}

/* An integer inverse level into float32 @p dst where the fused inverse
 * does not take it: the integers into dst's memory, then converted there
 * (in place: dst must be dense). */
static wt_status inverse_to_float(const wt_line *lines, const wt_array_view *bands,
                                  const wt_array_view *dst, void *const tmp[2], int threads)
{
    size_t n = view_elems(dst);
    if (wt_view_span(dst) != n)
        return wt_error_set(WT_ERR_INVALID, "an integer level into floats needs a dense plane");
    wt_array_view ints = *dst;
    ints.dtype = WT_INT32;
    wt_status st = run_level(lines, &ints, bands, tmp, threads, 1);
    if (st == WT_OK)
        wt_convert_samples(dst->data, 0, dst->data, 1, n);
    return st;
}

wt_status wt_axis_level_inverse(const wt_line *lines, const wt_array_view *bands,
                                const wt_array_view *dst, void *const tmp[2], int threads)
{
    if (dst->dtype == bands[0].dtype)
        return run_level(lines, dst, bands, tmp, threads, 1);
    int done;
    wt_status st = try_fused(lines, dst, bands, tmp, threads, 1, &done);
    return done ? st : inverse_to_float(lines, bands, dst, tmp, threads);
}
