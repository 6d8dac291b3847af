/* The few spellings that differ between CUDA and the host emulation used
 * to check the kernels' arithmetic without a GPU (cuda/emu/, see dev/notes/kernel-log.md).
 * Kernels use only block-stride loops over threadIdx/blockDim, so running a
 * block with a single thread, phase after phase, is a valid schedule. */
#ifndef WT_CU_COMPAT_H
#define WT_CU_COMPAT_H

#ifdef WT_CUDA_EMULATE
#include "emu/cuda_emu.h"
#define WT_DEV inline
#define WT_DEV_NOINLINE __attribute__((noinline))
#define WT_GLOBAL static
#define WT_GRID_CONST
#define WT_LAUNCH_BOUNDS(n)
#define WT_LAUNCH_BOUNDS_MIN(n, blocks)
#define WT_SYNC() ((void)0)
#define WT_SYNC_AND(pred) (pred)
#define WT_ASSUME(cond) ((void)0)
#define WT_PDL_BEGIN() ((void)0)
#define WT_GRID_SYNC() wt_emu_grid_sync()
#define WT_CHECK_ALIGNED(p, n) wt_emu_check_aligned(p, n)
#define WT_DYN_SMEM(type, name) type *name = (type *)wt_emu_smem()
#define WT_LAUNCH(kernel, grid, block, smem, stream, ...)                                       \
    ((void)(block), (void)(stream), wt_emu_launch(grid, smem, [&] { kernel(__VA_ARGS__); }))
#else
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#define WT_DEV __device__ __forceinline__
#define WT_DEV_NOINLINE __device__ __noinline__ /* rare paths: a call, not a copy a call site */
#define WT_GLOBAL __global__
#define WT_GRID_CONST __grid_constant__
#define WT_LAUNCH_BOUNDS(n) __launch_bounds__(n)
/* Resident threads per SM of the architecture being compiled: a minimum of
 * blocks per SM tuned on Hopper (2048) is capped where fewer fit (Turing
 * 1024; 8.6, 8.9, 12.x 1536), as ptxas would otherwise ignore it with a warning. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define WT_SM_THREADS 1024
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
#define WT_SM_THREADS 1536
#else
#define WT_SM_THREADS 2048
#endif
#define WT_LAUNCH_BOUNDS_MIN(n, blocks)                                                          \
    __launch_bounds__(n, (blocks) * (n) <= WT_SM_THREADS ? (blocks) : WT_SM_THREADS / (n))
#define WT_SYNC() __syncthreads()
/* A barrier that also answers whether @p pred held on every thread. */
#define WT_SYNC_AND(pred) __syncthreads_and(pred)
/* What the compiler may take as true (a kernel's block shape: loops over
 * its lanes then run once, unrolled, without bounds tests). */
#define WT_ASSUME(cond) __builtin_assume(cond)
/* Programmatic dependent launch (sm_90 and later): let the next kernel on the
 * stream be scheduled, then wait until the previous one has finished and
 * its writes are visible; immediate when the kernel was launched plainly.
 * At the start of a kernel that the engine may launch so (launch_level). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define WT_PDL_BEGIN() asm volatile("griddepcontrol.launch_dependents;\n\tgriddepcontrol.wait;" ::: "memory")
#else
#define WT_PDL_BEGIN() ((void)0)
#endif
/* Every block of the grid past this point (a cooperative launch only). */
#define WT_GRID_SYNC() cooperative_groups::this_grid().sync()
#define WT_CHECK_ALIGNED(p, n) ((void)0)
#define WT_DYN_SMEM(type, name) extern __shared__ __align__(16) type name[]
#define WT_LAUNCH(kernel, grid, block, smem, stream, ...)                                       \
    kernel<<<grid, block, smem, stream>>>(__VA_ARGS__)
#endif

#include "dwt_geometry.h" /* WT_HD: host and device functions */

/* Double arithmetic without FMA contraction, as the host compiles it
 * (x86-64 has no FMA without -march): the mosaic (src/mosaic.c) and the
 * denoise thresholds (src/denoise.c). */
#ifdef WT_CUDA_EMULATE
static inline double wt_dsub(double a, double b) { return a - b; }
static inline double wt_dmul(double a, double b) { return a * b; }
static inline double wt_dadd(double a, double b) { return a + b; }
static inline double wt_ddiv(double a, double b) { return a / b; }
#else
#define wt_dsub(a, b) __dsub_rn(a, b)
#define wt_dmul(a, b) __dmul_rn(a, b)
#define wt_dadd(a, b) __dadd_rn(a, b)
#define wt_ddiv(a, b) __ddiv_rn(a, b)
#endif

#endif
