/* Tuning constants of the CUDA engine, in one place, each with the
 * measurement it came from (model: CUB's tuning policies). All were measured
 * on the H100 80GB HBM3 (8192x8192 float32, 3 levels, % of the device-to-
 * device copy in the same run; dev/notes/kernel-log.md has the runs). Each may be set
 * with -D for an A/B build (dev/gpu/gpu_ab.sh, AB_VARIANT); the kernels' results
 * do not depend on them (gpu_check compares every variant with the CPU).
 * Architecture limits that cap them (resident threads per SM) are in
 * cu_compat.h (WT_SM_THREADS). Those the host picks at run time (marked
 * "policy") are only the defaults of cu_policy.cu's per-GPU table, which
 * WT_CUDA_POLICY overrides without a rebuild; the rest are template
 * arguments of the kernels. */
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
#ifndef CU_SMEM_CAP /* policy */
#define CU_SMEM_CAP (160 * 1024)
#endif

/* ---- Fast level kernels (cu_fast.cuh) ----------------------------------
 * Output pairs per thread and line segment (register segments). v2 -> v5:
 * with segments of 8 pairs and a flat thread mapping haar forward reached
 * 86% of copy (instructions 240 M -> 106 M per level). */
#ifndef CU_SEG
#define CU_SEG 8
#endif

/* Filters of more taps than this run conv_op::stream (window values
 * streamed through 2 CU_SEG accumulators) instead of run (SPAN = 2 CU_SEG +
 * L - 2 window values in registers, which spill past 24 taps at 64
 * registers). Longer filters are compiled for lengths 4 apart up to 64
 * taps, then 8 (fast_kernels; zero taps pad the rest), to bound the
 * instantiations. */
#ifndef CU_CONV_STREAM
#define CU_CONV_STREAM 24
#endif
/* Forwards stream from more taps than this: 12 against 24 (run()), 14-24
 * taps forward 1-3% faster (db7 0.341 -> 0.332 ms, sym8 0.354 -> 0.344,
 * db12 0.430 -> 0.419; H100, 8192² L3, 2 rounds, 2026-11-24); inverses by
 * stream() lost 2-5 points of copy, so they keep run() below CU_CONV_STREAM. */
#ifndef CU_CONV_STREAM_FWD
#define CU_CONV_STREAM_FWD 12
#endif
/* Long filters' tiles: up to CU_LONG_TX (forward) or CU_LONG_TX_INV pairs
 * wide, 32 high, ty halved while the window does not fit the device's shared
 * memory (its opt-in limit, 227 KB on the H100). Forward: the y-stage's halo
 * recompute is 1 + halo / (4 tx); 64 against 32: db20 0.640 -> 0.576 ms,
 * coif17 2.350 -> 1.673 ms (symmetric). Inverse: 64 wide made the windows
 * twice as big (1 block per SM): db20 0.634 -> 0.848 ms, coif17 2.22 ->
 * 2.89 ms; 32 kept (H100, 8192² L3, 2026-11-24, dev/notes/kernel-log.md v12-longfilt). */
#ifndef CU_LONG_TX /* policy */
#define CU_LONG_TX 64
#endif
#ifndef CU_LONG_TX_INV /* policy */
#define CU_LONG_TX_INV 32
#endif

/* Long filters as two single-axis passes (cu_split.cuh, policy long_split
 * and split_*): threads of a pass's block and the blocks per SM their
 * registers are budgeted for (64 at 4; stream() with 2 CU_SEG accumulators
 * needs 56-64 past 24 taps, as the fused long kernels). */
#ifndef CU_SPLIT_THREADS
#define CU_SPLIT_THREADS 256
#endif
#ifndef CU_SPLIT_BLOCKS
#define CU_SPLIT_BLOCKS 4
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

/* The fast kernels also built for CU_MORE_BLOCKS blocks per SM, at 256
 * threads (48 registers; 288 threads would leave 40, where 6-10-tap and
 * cdf97 kernels spilled 4-28 bytes), chosen at run time by the policy's
 * fast_blocks, fast_blocks_taps and fast_blocks_lift (cu_policy.cu; the
 * H200's entry: convolutions of up to 6 taps): convolutions of at
 * most CU_MORE_TAPS taps and every lifting scheme, both directions, but
 * the forwards that spill at 48 registers (ptxas -v, sm_90, nvcc 13: 8
 * taps 4 bytes, 10 taps 12, legall53's 64-bit steps 24; fast_conv::MORE,
 * fast_legall53::MORE), which keep CU_FWD_BLOCKS. Their tiles shrink to
 * fit the SM's shared memory CU_MORE_BLOCKS times (sym8: 16 rows). Why: v14
 * (bytes in flight on the H200), v17 in dev/notes/kernel-log.md. */
#ifndef CU_MORE_BLOCKS
#define CU_MORE_BLOCKS 5
#endif
#ifndef CU_MORE_TAPS
#define CU_MORE_TAPS 16
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
 * Measured on 8192x8192 (dev/notes/kernel-log.md, "Undecimated"). */
#ifndef CU_UTX
#define CU_UTX 32
#endif
#ifndef CU_UTY_MAX /* policy */
#define CU_UTY_MAX 64
#endif
/* The starlet's tile height limit (ulevel_kernel keeps one plane of filtered
 * rows for it): 128 with one plane made starlet forward 54.4% -> 59.3% of copy
 * (v5/v6); 256 46%. */
#ifndef CU_UTY_STARLET /* policy */
#define CU_UTY_STARLET 128
#endif
#ifndef CU_UTHREADS
#define CU_UTHREADS 256
#endif
/* ulevel_kernel's SWT inverse blocks (tap counts ucol_kernel does not take):
 * 512 threads made it 43.1% -> 45.9% of copy, the forwards 3-5 points slower. */
#ifndef CU_UTHREADS_INV
#define CU_UTHREADS_INV 512
#endif
/* The column-first kernel (ucol_kernel, v4-v7) for the modes whose bit is set
 * in CU_UYFIRST (1 SWT forward, 2 SWT inverse, 4 starlet) where the tap count
 * is unrolled (2, 4, 5, 6, 8). SWT inverse db3 L3: 45.9% -> 61.2% of copy
 * (2.91 -> 2.18 ms); the forward is faster on ulevel_kernel (74.8% against
 * at best 69.4%), the starlet too (59.3% against 43.1%).
 * CU_UTXC: column slots of a tile (CU_UFIT 1; 0: outputs) 32: 48.3%, 64:
 * 53.8%, 128: 57.4% (CU_UFIT 0) and 61.2% (CU_UFIT 1), 256: 60.4%.
 * CU_USEG: outputs per chain; 4 or 8 within 1-2 points, 8 kept with 128.
 * CU_UCOL_BLOCKS: the register cap (blocks per SM): 1 (109 registers) 30.6%,
 * 3 52.7%, 4 (64) 53.8%. CU_UFULL 0 (chains with exits): 41.3% against 48.3%. */
#ifndef CU_UYFIRST
#define CU_UYFIRST 2
#endif
#ifndef CU_UTXC /* policy */
#define CU_UTXC 128
#endif
#ifndef CU_UFIT
#define CU_UFIT 1
#endif
#ifndef CU_USEG
#define CU_USEG 8
#endif
#ifndef CU_UCOL_BLOCKS
#define CU_UCOL_BLOCKS 4
#endif
#ifndef CU_UFULL
#define CU_UFULL 1
#endif
#ifndef CU_USMEM /* policy */
#define CU_USMEM (48 << 10)
#endif

/* ---- Volumes (cu_volume.cu) --------------------------------------------
 * A level kernel's block owns a tile of at most CU_VOL_TY x
 * CU_VOL_TX output pairs (forward; CU_VOL_TY_INV x CU_VOL_TX_INV samples
 * inverse) across y and x and a run of them along z; ty halves (then tx,
 * not below 16) while its shared memory (two windows, the x pass, a ring
 * of filter-span planes) passes CU_VOL_SMEM. The z runs are cut to finish
 * first with the blocks the GPU holds at once (times CU_VOL_WAVES) taking
 * the grid in waves, each block walking its run and the filter's halo;
 * CU_VOL_STAGES window buffers (the next CU_VOL_STAGES - 1 planes are
 * copied while one is filtered).
 * Not yet measured: chosen for two blocks an SM (cdf97 forward 104 KB). */
#ifndef CU_VOL_TY /* policy */
#define CU_VOL_TY 16
#endif
#ifndef CU_VOL_TX /* policy */
#define CU_VOL_TX 32
#endif
#ifndef CU_VOL_TY_INV /* policy */
#define CU_VOL_TY_INV 16
#endif
#ifndef CU_VOL_TX_INV /* policy */
#define CU_VOL_TX_INV 64
#endif
#ifndef CU_VOL_SMEM /* policy */
#define CU_VOL_SMEM (112 << 10)
#endif
#ifndef CU_VOL_WAVES /* policy */
#define CU_VOL_WAVES 1
#endif
/* H200 512^3 L3: 3 stages moved the inverse by at most 0.2% of the copy and
 * took the cdf97 forward from 11.0 to 9.0% (its tile rows halve to fit). */
#ifndef CU_VOL_STAGES /* policy: window buffers, 3 = two planes in flight */
#define CU_VOL_STAGES 2
#endif
/* The forward level kernel for filters of at most CU_VOL_FWD_SPAN taps, the
 * axis passes for longer ones. H200, 512^3 float32 L3, % of the device copy,
 * kernel against passes: haar 19.4 / 16.5, db3 10.2 / 8.5, cdf97 (conv)
 * 11.0 / 5.2, since border tiles load by copies (before: db3 6.0, cdf97 5.3,
 * the passes the default past 2 taps); 64: every span the kernel holds
 * (spans 2, 6 and 9 measured). */
#ifndef CU_VOL_FWD_SPAN /* policy */
#define CU_VOL_FWD_SPAN 64
#endif
/* The inverse level kernel's z filter: 0 in registers (each thread sums
 * the samples along z of its y run's rows: no ring of planes in shared
 * memory, a barrier less a plane), 1 through the ring. H200, 512^3 L3, %
 * of the copy, registers against ring: haar 20.0 / 16.9, db3 14.1 / 12.6,
 * cdf97 13.7 / 11.4. */
#ifndef CU_VOL_ZRING /* policy */
#define CU_VOL_ZRING 0
#endif
/* Levels of 2-tap filter banks along the three axes (haar, db1, bior1.1,
 * rbio1.1): 1 the elementwise kernel (vpair_*, a thread a 2x2x2 cube), 0
 * the level kernel above. H200, 512^3 L3 haar, % of the copy forward /
 * inverse: 76.4 / 83.3 against 19.3 / 20.0. */
#ifndef CU_VOL_PAIR /* policy */
#define CU_VOL_PAIR 1
#endif
/* Lifting passes of volumes: 1 the tiled kernels (cu_volume_lift.cu's
 * vlt_*, a block 32 lines in shared memory, where they fit), 0 one thread a
 * line through global scratch. H200, 512^3 L3, % of the copy forward /
 * inverse, tiled against per-line: cdf97 7.4 / 5.2 against 1.3 / 1.3,
 * dd137 8.7 / 5.9 against 1.7 / 1.6, legall53 11.7 / 9.8 against 2.0 / 2.0. */
/* Levels of filter banks of 3 to 12 taps (a span of at most CU_SWEEP_SPAN)
 * along the three axes, forward: 1 the sweep kernel (vsweep_forward: a
 * block 8 x 32 output pairs across y and x walks z, each thread summing
 * its pair's 8 bands along z in registers, no ring of planes), 0 the
 * level kernel above. H200, 512^3 L3 forward, % of the copy, sweep against
 * level kernel: db3 18.1 / 10.0, cdf97 14.9 / 10.9, sym4 15.9 / 9.1, coif2
 * 11.4 / 5.0. */
#ifndef CU_VOL_SWEEP /* policy */
#define CU_VOL_SWEEP 1
#endif
/* Inverse levels of filter banks of 2 to 12 taps (an odd span of at most
 * CU_ISWEEP_SPAN) and JPEG 2000 kinds along the three axes: 1 the inverse
 * sweep (vsweep_inverse: the level kernel's z filter in registers on a
 * 16 x 64 tile fixed at compile time, the forward sweep's loops and
 * schedule), 0 the level kernel above. H200, 512^3 L3 inverse, % of the
 * copy, sweep against level kernel (both at vol_sweep_barriers=2): db3
 * 21.3 / 14.2, cdf97 21.0 / 13.6, sym4 19.6 / 13.1, coif2 14.0 / 9.6. */
#ifndef CU_VOL_SWEEP_INVERSE /* policy */
#define CU_VOL_SWEEP_INVERSE 1
#endif
/* The sweeps' barriers a plane: 1 (the x pass in two halves: plane i's y
 * and z and plane i + 1's x between the same barriers) or 2 (wait, x,
 * barrier, y and z: the forward sweep's first schedule). Not yet measured
 * against 2 on the device (dev/notes/gpu-volumes.md, branch vol27). */
#ifndef CU_VOL_SWEEP_BARRIERS /* policy */
#define CU_VOL_SWEEP_BARRIERS 1
#endif
/* The sweeps' window buffers: CU_VOL_SWEEP_STAGES - 1 planes in flight a
 * block while one is filtered (2 to 4). H200, 512^3 L3 forward, % of the
 * copy, 4 against 2: db3 18.1 / 17.7, cdf97 14.9 / 14.7. */
#ifndef CU_VOL_SWEEP_STAGES /* policy */
#define CU_VOL_SWEEP_STAGES 4
#endif
/* The forward sweep's z sums: 1 a ring of registers (the ring's turn a
 * compile-time constant in each of 2 P instances of a plane's sums, P =
 * ceil(S / 2) outputs pending: no sums moved a slot a pair), 0 moved a slot
 * every pair (8 (P - 1) moves). H200, 512^3 L3 forward % of copy, 1 / 0:
 * db3 22.8 / 20.6, cdf97 21.9 / 18.9, coif2 15.0 / 13.4, db2 23.9 / 24.0
 * (dev/notes/gpu-volumes.md, branch vol27b). */
#ifndef CU_VOL_SWEEP_RING /* policy */
#define CU_VOL_SWEEP_RING 1
#endif
/* The forward sweep's windows at a y or x border: 1 a row pointer a row
 * (and the window's own columns where it lies inside along x), 0 a 3-D
 * address and the column and row tables a value (sload_value). H200,
 * 512^3 L3 forward % of copy, 1 / 0: db2 23.9 / 21.3, cdf97 21.9 / 17.1,
 * db3 22.8 / 21.0. */
#ifndef CU_VOL_SWEEP_ROWS /* policy */
#define CU_VOL_SWEEP_ROWS 1
#endif
/* The inverse sweep's windows that lie inside the bands along x (every
 * column a coefficient of its own, lo and hi alternating): 1 copied from
 * the row's two band lines at fixed offsets, 0 through the column table, a
 * band select and a zero test a value. H200, 512^3 L3 inverse % of copy,
 * 1 / 0: db2 27.0 / 26.1, db3 23.0 / 22.3, cdf97 21.8 / 21.4. */
#ifndef CU_VOL_SWEEP_PLAIN /* policy */
#define CU_VOL_SWEEP_PLAIN 1
#endif
/* The forward sweep's blocks an SM for spans to 6 (db2, db3, sym3, coif1,
 * bior2.2, ...): 2 (102-121 registers) or 3 (built for 80 registers:
 * span 4 fits, span 6 spills 68-120 bytes). H200, 512^3 L3 forward % of
 * copy, 2 / 3: db2 23.9 / 27.0, db3 22.8 / 22.6: 3 in the H200's entry
 * (cu_policy.cu); 2 here until the H100 is measured. */
#ifndef CU_VOL_SWEEP_BLOCKS /* policy */
#define CU_VOL_SWEEP_BLOCKS 2
#endif
#ifndef CU_VOL_LIFT_TILE /* policy */
#define CU_VOL_LIFT_TILE 1
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

/* ---- Volumes past the device's memory (cu_volume_stream.cu) ------------
 * A streamed axis pass moves slabs through two slots, each a page-locked
 * host buffer and a device buffer of at most CU_VSLAB bytes (so 2 x
 * CU_VSLAB of pinned host memory at most), the slots taking at most half
 * of the device memory free when the transform starts. Not measured yet:
 * 64 MiB slabs are long enough for PCIe to run at its rate. */
#ifndef CU_VSLAB
#define CU_VSLAB ((size_t)64 << 20)
#endif
/* Lifting passes (cu_volume_lift.cu): one thread a line, its polyphase
 * halves in a device scratch of at most CU_VLIFT_SCRATCH bytes (lines in
 * chunks that fit, and at most half of the free memory). */
#ifndef CU_VLIFT_SCRATCH
#define CU_VLIFT_SCRATCH ((size_t)256 << 20)
#endif

/* ---- Small images (cu_launch.cu) --------------------------------------
 * Level tiles are halved (not below CU_SEG pairs a side) while the grid has
 * fewer than CU_SMALL_GRID blocks per SM (WT_CUDA_SMALL_GRID at run time).
 * 512x512, 3 levels, H100 (v12-small in dev/notes/kernel-log.md): 1 took db3 from 16.4 to
 * 13.0 us forward; 2 (15.7) and 4 (16.9, more and emptier blocks) less. */
#ifndef CU_SMALL_GRID /* policy */
#define CU_SMALL_GRID 1
#endif
/* Fused levels (cu_program.cu, dwt_tail_fast): the longest filter whose
 * levels are fused (taps; lifting always); the blocks per SM the kernel is
 * built for (two tiles' bodies in one kernel spill 40-180 bytes at the level
 * kernels' 4, and 4-32 at 3; at 2 none, 80-96 registers); and the default of
 * the policy's tail_bytes: levels whose signal (all channels, float32) is at
 * most this many bytes, and whose tiles the resident grid covers, run in one
 * cooperative launch, a grid-wide barrier between levels. 0 (off): on the
 * H200 16 MB (2048x2048 and below) was slower than one launch a level with
 * graphs and PDL, 512² L3 haar 10.3 -> 12.5 us forward, cdf97 1024² L5
 * 21.5 -> 30.7 us (dev/notes/kernel-log.md v15). */
#ifndef CU_TAIL_TAPS
#define CU_TAIL_TAPS 12
#endif
#ifndef CU_TAIL_BLOCKS
#define CU_TAIL_BLOCKS 2
#endif
#ifndef CU_TAIL_BYTES /* policy */
#define CU_TAIL_BYTES 0
#endif

/* Threads per block of the sample conversion, rounding and mosaic kernels
 * (elementwise, far under 1 ms on 8192x8192; not swept). */
#ifndef CU_IMG_BLOCK
#define CU_IMG_BLOCK 256
#endif

#endif
