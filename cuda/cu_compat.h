/* The few spellings that differ between CUDA and the host emulation used
 * to check the kernels' arithmetic without a GPU (cuda/emu/, see NOTES.md).
 * Kernels use only block-stride loops over threadIdx/blockDim, so running a
 * block with a single thread, phase after phase, is a valid schedule. */
#ifndef WT_CU_COMPAT_H
#define WT_CU_COMPAT_H

#ifdef WT_CUDA_EMULATE
#include "emu/cuda_emu.h"
#define WT_DEV inline
#define WT_GLOBAL static
#define WT_GRID_CONST
#define WT_LAUNCH_BOUNDS(n)
#define WT_LAUNCH_BOUNDS_MIN(n, blocks)
#define WT_SYNC() ((void)0)
#define WT_CHECK_ALIGNED(p, n) wt_emu_check_aligned(p, n)
#define WT_DYN_SMEM(type, name) type *name = (type *)wt_emu_smem()
#define WT_LAUNCH(kernel, grid, block, smem, stream, ...)                                       \
    ((void)(block), (void)(stream), wt_emu_launch(grid, smem, [&] { kernel(__VA_ARGS__); }))
#else
#include <cuda_runtime.h>
#define WT_DEV __device__ __forceinline__
#define WT_GLOBAL __global__
#define WT_GRID_CONST __grid_constant__
#define WT_LAUNCH_BOUNDS(n) __launch_bounds__(n)
#define WT_LAUNCH_BOUNDS_MIN(n, blocks) __launch_bounds__(n, blocks)
#define WT_SYNC() __syncthreads()
#define WT_CHECK_ALIGNED(p, n) ((void)0)
#define WT_DYN_SMEM(type, name) extern __shared__ __align__(16) type name[]
#define WT_LAUNCH(kernel, grid, block, smem, stream, ...)                                       \
    kernel<<<grid, block, smem, stream>>>(__VA_ARGS__)
#endif

#include "dwt_geometry.h" /* WT_HD: host and device functions */

#endif
