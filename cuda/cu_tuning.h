/* Tuning constants of the CUDA engine, in one place, each with the
 * measurement it came from (model: CUB's tuning policies). All were measured
 * on the H100 80GB HBM3 (8192x8192 float32, 3 levels, % of the device-to-
 * device copy in the same run; cuda/NOTES.md has the runs). Each may be set
 * with -D for an A/B build (cuda/gpu_ab.sh, AB_VARIANT); the kernels' results
 * do not depend on them (gpu_check compares every variant with the CPU).
 * Architecture limits that cap them (resident threads per SM) are in
 * cu_compat.h (WT_SM_THREADS). */
#ifndef WT_CU_TUNING_H
#define WT_CU_TUNING_H

/* ---- Generic level kernels (cu_kernels.cuh) ----------------------------
 * Block of 32x8 threads on tiles of up to CU_TILE_MAX x CU_TILE_MAX output
 * pairs (halved while the window does not fit in shared memory). v1, the
 * first version: 42% of copy for haar, 7-23% for the rest; every operator,
 * so only what the fast kernels do not cover runs here. */
#ifndef CU_BLOCK_X
#define CU_BLOCK_X 32
#endif
#ifndef CU_BLOCK_Y
#define CU_BLOCK_Y 8
#endif
#ifndef CU_TILE_MAX
#define CU_TILE_MAX 32
#endif

/* Shared memory a block may use (the device's opt-in limit, at most this):
 * the engine's own cap, from v1, not a measured optimum. */
#ifndef CU_SMEM_CAP
#define CU_SMEM_CAP (160 * 1024)
#endif

/* ---- Fast level kernels (cu_fast.cuh) ----------------------------------
 * Output pairs per thread and line segment (register segments). v2 -> v5:
 * with segments of 8 pairs and a flat thread mapping haar forward reached
 * 86% of copy (instructions 240 M -> 106 M per level). */
#ifndef CU_SEG
#define CU_SEG 8
#endif

/* Rows (16-byte blocks) in flight per thread in the forward and inverse
 * gathers: v4 went from 1 to 2 rows in flight in the inverse, v6 to 4, each
 * within the 64-register budget of CU_FWD_BLOCKS; not swept since v9. */
#ifndef CU_BATCH
#define CU_BATCH 4
#endif
#ifndef CU_BATCH_INV
#define CU_BATCH_INV 4
#endif

/* Blocks per SM the fast kernels are built for (<= 64 registers); 5 (48
 * registers, small spills) made the inverses 3-11% slower, haar's 2% faster.
 * Capped by WT_SM_THREADS on GPUs with fewer resident threads. */
#ifndef CU_FWD_BLOCKS
#define CU_FWD_BLOCKS 4
#endif

/* Inverse blocks as wide as the forward's (288 threads for segments of up to
 * 24 values, see fast_forward_threads): cdf97 inverse 77.4% -> 78.8%,
 * bior4.4 periodization 73.5% -> 74.8%; 0 keeps 256 threads. */
#ifndef CU_INV_WIDE
#define CU_INV_WIDE 1
#endif

/* Inverse mid rows 2 tx + 4 words apart (4 banks), written with 16-byte
 * stores: v2's rows 64 words apart made a 16-way bank conflict that bound
 * haar inverse on the shared-memory pipe (v3 fixed it). */
#define CU_MID_PITCH(tx) (2 * (tx) + 4)

/* ---- Undecimated transforms (cu_swt.cu) ------------------------------
 * One block per tile of at most CU_UTY_MAX x CU_UTX outputs of one level,
 * CU_UTHREADS threads; the tile's source rows, each filtered along x once,
 * live in shared memory (two planes, at most CU_USMEM bytes: no opt-in).
 * Measured on 8192x8192 (cuda/NOTES.md, "Undecimated"). */
#ifndef CU_UTX
#define CU_UTX 32
#endif
#ifndef CU_UTY_MAX
#define CU_UTY_MAX 64
#endif
#ifndef CU_UTHREADS
#define CU_UTHREADS 256
#endif
/* The SWT inverse's blocks (4 planes filtered per source row): 512 threads
 * made it 43.1% -> 45.9% of copy, the forwards 3-5 points slower. */
#ifndef CU_UTHREADS_INV
#define CU_UTHREADS_INV 512
#endif
#ifndef CU_USMEM
#define CU_USMEM (48 << 10)
#endif

/* ---- Image paths (cu_image.cu) -----------------------------------------
 * Pinned host staging: each host worker of a transfer (at most CU_WORKERS)
 * owns CU_SLOTS buffers of CU_CHUNK bytes that its chunks rotate through, so
 * its copy of one chunk overlaps the DMA of the previous ones. With a kept
 * page-locked mosaic the 8192x8192 RGB host path ran at 1.10x its transfer
 * floor (haar) and 1.26x (cdf97); the chunk size and worker count themselves
 * were not swept. */
#ifndef CU_WORKERS
#define CU_WORKERS 8
#endif
#ifndef CU_SLOTS
#define CU_SLOTS 2
#endif
#ifndef CU_CHUNK
#define CU_CHUNK ((size_t)4 << 20)
#endif

/* Threads per block of the sample conversion, rounding and mosaic kernels
 * (elementwise, far under 1 ms on 8192x8192; not swept). */
#ifndef CU_IMG_BLOCK
#define CU_IMG_BLOCK 256
#endif

#endif
