/* Per-GPU launch policy of the CUDA engine (model: CUB's per-architecture
 * policies): the launch parameters that the host chooses at run time (tile
 * sizes, grid targets, shared memory budgets), one entry per compute
 * capability and memory system, picked when the engine opens. Build-time
 * parameters (register budgets, segment lengths, threads of the
 * __launch_bounds__ kernels) stay in cu_tuning.h: they are template
 * arguments and need an A/B build (dev/gpu/gpu_ab.sh). No entry changes a
 * result, only speed (gpu_check runs under any of them).
 *
 * WT_CUDA_POLICY=key=value,... overrides fields of the chosen entry
 * (sweeps without rebuilding: dev/gpu/policy_sweep.sh); entry=NAME takes a
 * named entry whatever the GPU. Host code only. */
#ifndef WT_CU_POLICY_H
#define WT_CU_POLICY_H

#include <stddef.h>

#include "wavetool.h"

typedef struct cu_policy {
    char entry[24]; /* the table entry taken ("sm90", "sm90-hbm3e", ...) */
    /* fast level kernels, short filters (<= CU_CONV_STREAM taps, lifting):
     * the largest tile, pairs (powers of two, >= CU_SEG), forward and inverse */
    int tile_y, tile_x, tile_y_inv, tile_x_inv;
    /* fast level kernels, long filters: the largest tile */
    int long_ty, long_tx, long_tx_inv;
    /* long filters of at least long_split taps (the fast entry's, > 24;
     * 0: none) as two single-axis passes through a buffer (cu_split.cuh):
     * the x passes' tiles of split_rows rows by split_tx pairs, the y
     * passes' of split_ty pairs by split_cols columns */
    int long_split, split_rows, split_tx, split_ty, split_cols;
    /* fast level kernels, short filters and lifting: blocks per SM their
     * registers are budgeted for (CU_FWD_BLOCKS, or CU_MORE_BLOCKS: the
     * kernels built for more, tiles shrunk to fit their shared memory) */
    int fast_blocks;
    /* ... for the convolutions of at most fast_blocks_taps taps and, if
     * fast_blocks_lift, the lifting schemes (the others keep CU_FWD_BLOCKS) */
    int fast_blocks_taps, fast_blocks_lift;
    /* fast level kernels, short filters and lifting: each block prefetches
     * into L2 the window of the tile this many resident grids later (blocks
     * per SM x SMs; 0: none) while its own gather is in flight */
    double fast_prefetch;
    /* small levels: tiles halve until the grid has this many blocks per SM */
    double small_grid;
    /* programmatic dependent launch after a fast level whose grid has at
     * most this many blocks per SM */
    double pdl_grid;
    /* shared memory a generic level kernel's block may take (bytes) */
    size_t smem_cap;
    /* fused levels: consecutive levels whose signal (every channel, float32)
     * is at most this many bytes run in one cooperative launch (0: never) */
    size_t tail_bytes;
    /* undecimated transforms: tile height limits of the SWT and the starlet,
     * column slots of the column-first kernel, shared memory of a block */
    int uty, uty_starlet, utxc;
    size_t usmem;
    /* volumes' level kernels (cu_volume.cu): the largest tile across y and x
     * (pairs forward, samples inverse), their shared memory, the resident
     * blocks' factor in the z runs' plan */
    int vol_ty, vol_tx, vol_ty_inv, vol_tx_inv;
    size_t vol_smem;
    double vol_waves;
    int vol_stages; /* window buffers: planes in flight + 1 */
    int vol_fwd_span; /* the longest forward filter the level kernel takes (longer: passes) */
    int vol_zring;    /* 1: the inverse level kernel's z filter through a ring in shared memory */
    int vol_pair;     /* 1: 2-tap levels by the elementwise kernel (vpair_*) */
    int vol_sweep;    /* 1: 3..12-tap forward levels by the sweep kernel (vsweep_forward) */
    int vol_sweep_inverse; /* 1: inverse levels of 3..12 taps by vsweep_inverse */
    int vol_sweep_stages;  /* the sweeps' window buffers: planes in flight + 1 */
    int vol_sweep_barriers; /* the sweeps' barriers a plane (1 or 2) */
    int vol_sweep_ring;  /* 1: the forward sweep's z sums in a ring (no moves a pair) */
    int vol_sweep_rows;  /* 1: the forward sweep's border windows a row pointer a row */
    int vol_sweep_plain; /* 1: the inverse sweep's windows inside along x copied plainly */
    int vol_sweep_blocks; /* the forward sweep's blocks an SM for spans to 6 (2 or 3) */
    int vol_lift_tile; /* 1: lifting passes by the tiled kernels (vlt_*) where they fit */
} cu_policy;

/* The entry for a GPU of compute capability @p major.@p minor whose memory
 * moves @p mem_gbps GB/s (peak, from its clock and bus width; 0: unknown),
 * with the fields of @p override (WT_CUDA_POLICY; NULL or "": none).
 * WT_ERR_INVALID and one message on an unknown key or a value out of range. */
wt_status cu_policy_pick(int major, int minor, double mem_gbps, const char *override,
                         cu_policy *out);
/* The same for device @p device (its memory's bandwidth queried). */
wt_status cu_policy_open(int device, int major, int minor, const char *override, cu_policy *out);
/* "entry: key=value,..." of every field (benchmarks' logs). */
void cu_policy_describe(const cu_policy *q, char *buf, size_t size);

#endif
