/* Wavelet packets with the whole tree on the device (the engine's
 * packet_forward / packet_inverse, src/transforms/packet.c): the planes go
 * up once, every level is split by one launch of the level kernels
 * (cu_launch.cu) whose planes are all the level's nodes and channels and
 * whose four bands are their children, the node costs are reduced on the
 * device (partial
 * sums per block, then per node in a fixed order: the same costs on every
 * run), the basis is chosen on the host from them by the CPU engine's rule
 * (wt_packet_basis_of), and only the nodes written come back. */
#include <stdlib.h>
#include <string.h>

#include "cu_engine.h"
#include "cu_engine_impl.h"

/* ---------------------------------------------------------------------- */
/* The tree on the device */

/* Level l holds its N = 4^l nodes channel-major: channel c of node k is
 * plane c x N + k, each plane node_h[l] rows pitch[l] apart, plane[l]
 * elements. Then the planes of one level are evenly spaced, and so are the
 * children: child j of plane v is plane 4v + j of the next level (as
 * c x 4N + 4k + j); a level's kernel takes C x N planes. Level 0 holds the
 * planes as they are (rows w apart); the levels below have their rows
 * padded to a multiple of 32 elements as the device pyramid's bands
 * (cu_layout.cu: 128-byte aligned rows for the fast kernels); every level
 * starts 32 elements aligned. */
typedef struct dev_tree {
    size_t pitch[WT_MAX_LEVELS + 1];
    size_t plane[WT_MAX_LEVELS + 1];
    size_t at[WT_MAX_LEVELS + 2]; /* [L + 1]: elements in all */
} dev_tree;

/* The level kernels' band b (0 A, 1 V, 2 H, 3 D) is child a, v, h, d. */
static const int child_of_band[4] = {0, 2, 1, 3};

static size_t nodes_of_level(int l)
{
    return (size_t)1 << (2 * l);
}

static void dev_tree_plan(const wt_packet_tree *t, dev_tree *d)
{
    d->at[0] = 0;
    for (int l = 0; l <= t->params.levels; l++) {
        d->pitch[l] = l ? (t->node_w[l] + 31) & ~(size_t)31 : t->node_w[0];
        d->plane[l] = t->node_h[l] * d->pitch[l];
        d->at[l + 1] = (d->at[l] + (size_t)t->channels * nodes_of_level(l) * d->plane[l] + 31) &
                       ~(size_t)31;
    }
}

/* Channel c of node k of level l. */
static float *dev_plane(float *tree, const dev_tree *d, int l, size_t k, int c)
{
    return tree + d->at[l] + ((size_t)c * nodes_of_level(l) + k) * d->plane[l];
}

/* Node (l, k), every channel, between the host layout and the device's, on
 * ce->stream. */
static wt_status copy_node(cu_engine *ce, const wt_packet_tree *t, const dev_tree *d,
                           float *tree, int l, size_t k, int to_device)
{
    const size_t h = t->node_h[l], w = t->node_w[l], p = d->pitch[l];
    for (int c = 0; c < t->channels; c++) {
        float *host = wt_packet_node(t, l, k) + (size_t)c * h * w;
        float *dev = dev_plane(tree, d, l, k, c);
        cudaError_t err =
            to_device
                ? cudaMemcpy2DAsync(dev, p * 4, host, w * 4, w * 4, h, cudaMemcpyHostToDevice,
                                    ce->stream)
                : cudaMemcpy2DAsync(host, w * 4, dev, p * 4, w * 4, h, cudaMemcpyDeviceToHost,
                                    ce->stream);
        if (err != cudaSuccess)
            return cu_fail(ce, err, "cudaMemcpy2DAsync (packet nodes)", 0);
    }
    return WT_OK;
}

/* The device tree of @p t in BUF_PACKET (kept between calls). */
static wt_status tree_buffer(cu_engine *ce, const wt_packet_tree *t, dev_tree *d, float **tree)
{
    dev_tree_plan(t, d);
    return cu_buf_get(ce, BUF_PACKET, d->at[t->params.levels + 1] * 4, (void **)tree);
}

/* ---------------------------------------------------------------------- */
/* Splits and rebuilds */

/* Planes v0, v0 + stride, ... of level l (their count: the launch's
 * channels) as one level's input (forward) or output (inverse), and their
 * children (plane 4v + j of level l + 1, child j) as its four bands. */
static void planes_io(cu_level *lv, const dev_tree *d, float *tree, int l, size_t v0,
                      size_t stride, int inverse)
{
    float *parent = tree + d->at[l] + v0 * d->plane[l];
    for (int b = 0; b < 4; b++) {
        float *child = tree + d->at[l + 1] + (4 * v0 + (size_t)child_of_band[b]) * d->plane[l + 1];
        const size_t plane = 4 * stride * d->plane[l + 1];
        if (inverse) {
            lv->src[b] = child;
            lv->src_plane[b] = plane;
            lv->src_w[b] = (int)d->pitch[l + 1];
        } else {
            lv->dst[b] = child;
            lv->dst_plane[b] = plane;
            lv->dst_w[b] = (int)d->pitch[l + 1];
        }
    }
    if (inverse) {
        lv->dst[0] = parent;
        lv->dst_plane[0] = stride * d->plane[l];
        lv->dst_w[0] = (int)d->pitch[l];
    } else {
        lv->src[0] = parent;
        lv->src_plane[0] = stride * d->plane[l];
        lv->src_w[0] = (int)d->pitch[l];
    }
}

/* One launch over @p channels planes of level l from plane v0, @p stride
 * apart (planned, the kernel picked, launched). */
static wt_status launch_planes(cu_engine *ce, const wt_packet_tree *t, const dev_tree *d,
                               float *tree, int l, size_t v0, size_t stride, int channels,
                               int inverse)
{
    cu_level *lv = (cu_level *)malloc(sizeof *lv);
    if (!lv)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    wt_status st =
        plan_level(ce, lv, &t->params, t->node_h[l], t->node_w[l], inverse, channels);
    if (st == WT_OK) {
        int fast;
        planes_io(lv, d, tree, l, v0, stride, inverse);
        level_launcher launch =
            pick_launcher(ce, &t->params, lv, inverse, l == 0, 0, channels, &fast, NULL);
        st = launch(ce, lv, channels, 0);
    }
    free(lv);
    return st;
}

/* 1 when @p basis (NULL: the full tree) splits every node of level l. */
static int all_split(const unsigned char *basis, int l)
{
    for (size_t k = 0; basis && k < nodes_of_level(l); k++)
        if (basis[wt_packet_node_id(l, k)] != WT_PACKET_SPLIT)
            return 0;
    return 1;
}

/* Level l split into level l + 1 (forward), or rebuilt from it (inverse:
 * the nodes @p basis splits; NULL: every node). One launch over every
 * node's channels; an inverse of a level that is split in part, one launch
 * per split node (its channels 4^l planes apart: a leaf's planes are not
 * written). */
static wt_status run_level(cu_engine *ce, const wt_packet_tree *t, const dev_tree *d,
                           float *tree, int l, int inverse, const unsigned char *basis)
{
    const size_t N = nodes_of_level(l);
    if (!inverse || all_split(basis, l))
        return launch_planes(ce, t, d, tree, l, 0, 1, t->channels * (int)N, inverse);
    for (size_t k = 0; k < N; k++)
        if (basis[wt_packet_node_id(l, k)] == WT_PACKET_SPLIT)
            WT_TRY(launch_planes(ce, t, d, tree, l, k, N, t->channels, inverse));
    return WT_OK;
}

static wt_status forward_levels(cu_engine *ce, const wt_packet_tree *t, const dev_tree *d,
                                float *tree)
{
    for (int l = 0; l < t->params.levels; l++)
        WT_TRY(run_level(ce, t, d, tree, l, 0, NULL));
    return WT_OK;
}

static wt_status inverse_levels(cu_engine *ce, const wt_packet_tree *t, const dev_tree *d,
                                float *tree, const unsigned char *basis)
{
    for (int l = t->params.levels - 1; l >= 0; l--)
        WT_TRY(run_level(ce, t, d, tree, l, 1, basis));
    return WT_OK;
}

/* ---------------------------------------------------------------------- */
/* Node costs */

#define COST_BLOCK 256
#define COST_PARTS 64 /* blocks per node at most */

/* A level's planes for the cost kernel: gridDim.y nodes of @p channels
 * planes of h rows of w values, rows pitch apart, planes plane apart,
 * channel c of node k plane c x gridDim.y + k (dev_tree). */
typedef struct cost_level {
    const float *first;
    size_t plane, h, w, pitch;
    int channels;
} cost_level;

/* Block (x, y): the sum of the cost terms of rows x, x + gridDim.x, ... of
 * node y's C x h rows into parts[y x gridDim.x + x]. Shared: blockDim.x
 * doubles. */
WT_GLOBAL void WT_LAUNCH_BOUNDS(COST_BLOCK)
    cost_parts_kernel(const cost_level lv, wt_packet_cost_kind kind, double param, double *parts)
{
    WT_DYN_SMEM(double, red);
    const size_t nrows = (size_t)lv.channels * lv.h;
    double sum = 0.0;
    for (size_t r = blockIdx.x; r < nrows; r += gridDim.x) {
        const size_t c = r / lv.h, plane = c * gridDim.y + blockIdx.y;
        const float *row = lv.first + plane * lv.plane + (r - c * lv.h) * lv.pitch;
        for (size_t x = threadIdx.x; x < lv.w; x += blockDim.x)
            sum += wt_packet_cost_term(kind, param, row[x]);
    }
    red[threadIdx.x] = sum;
    WT_SYNC();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            red[threadIdx.x] += red[threadIdx.x + s];
        WT_SYNC();
    }
    if (threadIdx.x == 0)
        parts[(size_t)blockIdx.y * gridDim.x + blockIdx.x] = red[0];
}

/* costs[k] = the sum of node k's @p nparts parts, in their order. */
WT_GLOBAL void WT_LAUNCH_BOUNDS(COST_BLOCK)
    cost_sum_kernel(const double *parts, unsigned nparts, size_t nodes, double *costs)
{
    for (size_t k = threadIdx.x; k < nodes; k += blockDim.x) {
        double sum = 0.0;
        for (unsigned i = 0; i < nparts; i++)
            sum += parts[k * nparts + i];
        costs[k] = sum;
    }
}

/* Blocks per node at level l: about four per SM over the level's nodes. */
static unsigned cost_parts(const cu_engine *ce, const wt_packet_tree *t, int l)
{
    size_t rows = (size_t)t->channels * t->node_h[l], want = 4 * (size_t)ce->sms;
    size_t per = (want + nodes_of_level(l) - 1) / nodes_of_level(l);
    per = per < rows ? per : rows;
    return (unsigned)(per < COST_PARTS ? (per ? per : 1) : COST_PARTS);
}

/* Every node's cost (wt_packet_node_id order) into host @p costs. */
static wt_status node_costs(cu_engine *ce, const wt_packet_tree *t, const dev_tree *d,
                            float *tree, const wt_packet_cost *cost, double *costs)
{
    const int L = t->params.levels;
    const size_t n = wt_packet_node_count(L);
    size_t most = 0;
    for (int l = 0; l <= L; l++) {
        size_t p = nodes_of_level(l) * cost_parts(ce, t, l);
        most = p > most ? p : most;
    }
    double *d_costs;
    WT_TRY(cu_buf_get(ce, BUF_PACKET_COST, (n + most) * sizeof(double), (void **)&d_costs));
    double *parts = d_costs + n;
    for (int l = 0; l <= L; l++) {
        const unsigned P = cost_parts(ce, t, l);
        const cost_level lv = {dev_plane(tree, d, l, 0, 0), d->plane[l], t->node_h[l],
                               t->node_w[l], d->pitch[l], t->channels};
        WT_LAUNCH(cost_parts_kernel, dim3(P, (unsigned)nodes_of_level(l)), dim3(COST_BLOCK),
                  COST_BLOCK * sizeof(double), ce->stream, lv, cost->kind, cost->param, parts);
        CU_CHECK(cudaGetLastError());
        WT_LAUNCH(cost_sum_kernel, dim3(1), dim3(COST_BLOCK), 0, ce->stream, parts, P,
                  nodes_of_level(l), d_costs + wt_packet_node_id(l, 0));
        CU_CHECK(cudaGetLastError());
    }
    CU_CHECK(cudaMemcpyAsync(costs, d_costs, n * sizeof(double), cudaMemcpyDeviceToHost,
                             ce->stream));
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    return WT_OK;
}

/* The costs @p rule needs (and @p costs wants) and the basis on them. */
static wt_status choose_basis(cu_engine *ce, const wt_packet_tree *t, const dev_tree *d,
                              float *tree, const wt_packet_rule *rule,
                              const wt_packet_cost *cost, unsigned char *basis, double *costs)
{
    const size_t n = wt_packet_node_count(t->params.levels);
    double *all = costs;
    if (cost && !all && !(all = (double *)malloc(n * sizeof *all)))
        return wt_error_set(WT_ERR_NOMEM, "out of memory for %zu packet costs", n);
    wt_status st = cost ? node_costs(ce, t, d, tree, cost, all) : WT_OK;
    if (st == WT_OK)
        st = wt_packet_basis_of(t->params.levels, rule, all, basis);
    if (all != costs)
        free(all);
    return st;
}

/* The leaves of @p basis (every node when @p all_nodes) into t->data. */
static wt_status download_nodes(cu_engine *ce, const wt_packet_tree *t, const dev_tree *d,
                                float *tree, const unsigned char *basis, int all_nodes)
{
    for (int l = 0; l <= t->params.levels; l++)
        for (size_t k = 0; k < nodes_of_level(l); k++)
            if (all_nodes || basis[wt_packet_node_id(l, k)] == WT_PACKET_LEAF)
                WT_TRY(copy_node(ce, t, d, tree, l, k, 0));
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    return WT_OK;
}

/* ---------------------------------------------------------------------- */
/* The engine's operations */

wt_status cu_packet_forward(wt_engine *e, wt_packet_tree *t, const float *planes,
                            const wt_packet_rule *rule, const wt_packet_cost *cost,
                            unsigned char *basis, double *costs, int all_nodes)
{
    cu_engine *ce = (cu_engine *)e->priv;
    dev_tree d;
    float *tree;
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(tree_buffer(ce, t, &d, &tree));
    CU_CHECK(cudaMemcpyAsync(tree, planes, wt_packet_node_size(t, 0) * 4, cudaMemcpyHostToDevice,
                             ce->stream));
    WT_TRY(forward_levels(ce, t, &d, tree));
    WT_TRY(choose_basis(ce, t, &d, tree, rule, cost, basis, costs));
    return download_nodes(ce, t, &d, tree, basis, all_nodes);
}

wt_status cu_packet_inverse(wt_engine *e, const wt_packet_tree *t, const unsigned char *basis,
                            float *planes)
{
    cu_engine *ce = (cu_engine *)e->priv;
    dev_tree d;
    float *tree;
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(tree_buffer(ce, t, &d, &tree));
    for (int l = 0; l <= t->params.levels; l++)
        for (size_t k = 0; k < nodes_of_level(l); k++)
            if (basis[wt_packet_node_id(l, k)] == WT_PACKET_LEAF)
                WT_TRY(copy_node(ce, t, &d, tree, l, k, 1));
    WT_TRY(inverse_levels(ce, t, &d, tree, basis));
    CU_CHECK(cudaMemcpyAsync(planes, tree, wt_packet_node_size(t, 0) * 4, cudaMemcpyDeviceToHost,
                             ce->stream));
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    return WT_OK;
}

/* ---------------------------------------------------------------------- */
/* Device-resident timing (wavetool bench --transform packet) */

typedef struct packet_job {
    cu_engine *ce;
    const wt_packet_tree *t;
    const dev_tree *d;
    float *tree;
    int inverse; /* 0 forward, 1 inverse of the full tree */
} packet_job;

static wt_status packet_run(const void *job)
{
    const packet_job *j = (const packet_job *)job;
    return j->inverse ? inverse_levels(j->ce, j->t, j->d, j->tree, NULL)
                   : forward_levels(j->ce, j->t, j->d, j->tree);
}

wt_status cu_packet_bench(cu_engine *ce, const wt_params *params, size_t height, size_t width,
                          int channels, int inverse, int repeat, size_t copy_bytes,
                          wt_cuda_timing *timing)
{
    wt_packet_tree t;
    dev_tree d;
    float *tree;
    WT_TRY(wt_packet_plan(&t, params, height, width, channels));
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(tree_buffer(ce, &t, &d, &tree));
    WT_TRY(fill_random(ce, tree, wt_packet_node_size(&t, 0), 12345u));
    WT_TRY(forward_levels(ce, &t, &d, tree)); /* real coefficients for the inverse */
    packet_job j = {ce, &t, &d, tree, inverse ? 1 : 0};
    memset(timing, 0, sizeof *timing);
    WT_TRY(cu_time_runs(ce, packet_run, &j, repeat, &timing->ms, &timing->ms_min));
    if (copy_bytes)
        WT_TRY(cu_time_device_copy(ce, NULL, copy_bytes, repeat, timing));
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    return WT_OK;
}
