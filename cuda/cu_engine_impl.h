/* Inside of the level loop, shared by the translation units cu_engine.cu
 * was split into (so that ninja compiles them in parallel): cu_engine.cu
 * (errors, buffers, the engine's ops, devices, the benchmark hook),
 * cu_launch.cu (level kernel launches, fast kernel choice, level plans; the
 * one unit that includes cu_kernels.cuh and cu_fast.cuh; the check that
 * the device runs this build's code), cu_layout.cu (the
 * device pyramid's layout, band views, scratch buffers, value ranges) and
 * cu_program.cu (level programs, CUDA graphs, cu_forward_device and
 * cu_inverse_device). Include after cu_engine.h. */
#ifndef WT_CU_ENGINE_IMPL_H
#define WT_CU_ENGINE_IMPL_H

#include "cu_plan.h"

/* cu_launch.cu */
typedef void (*level_kernel)(const cu_level);
/* pdl: the launch may start while the previous level's kernel runs (a fast
 * kernel after a fast kernel, see launch_level) */
typedef wt_status (*level_launcher)(cu_engine *ce, const cu_level *lv, int channels, int pdl);
/* A level's grid: one block per tile and channel. */
dim3 level_grid(const cu_level *lv, int channels);
/* Element-wise conversion of @p n values on ce->stream (levels 0);
 * instantiated for <int32_t, float>, <float, float> and <float, int32_t>. */
template <typename TOut, typename TIn>
wt_status launch_convert(cu_engine *ce, void *dst, const void *src, size_t n);
/* Deterministic pseudo-random samples in [-128, 128) (benchmark inputs). */
wt_status fill_random(cu_engine *ce, float *d, size_t n, uint32_t seed);
/* Level @p lv planned: operators of both axes, tiles (small levels' shrunk). */
wt_status plan_level(cu_engine *ce, cu_level *lv, const wt_params *p, size_t h, size_t w,
                     int inverse, int channels);
/* The kernel of fused levels (dwt_tail_fast) of a fast level's operator and
 * direction, and its threads per block; kern NULL: the level is not fused. */
typedef void (*tail_kernel)(const cu_tail);
typedef struct level_tail {
    tail_kernel kern;
    int threads;
} level_tail;
/* One level of @p channels planes, either direction: the fast kernel that
 * fits (adjusting *lv, tiles from ce->pol), else the generic one; *fast:
 * whether fast; *tail (unless NULL): its kernel of fused levels. */
level_launcher pick_launcher(const cu_engine *ce, const wt_params *p, cu_level *lv, int inverse,
                             int first_level, int integer, int channels, int *fast,
                             level_tail *tail);
/* Levels fused into one cooperative launch: t's levels (planned, all of the
 * one tail kernel kern), the grid (the largest level's tiles, all resident
 * at once: block b runs tile b of each level) and shared memory (the
 * largest level's). */
typedef struct cu_fused {
    cu_tail t;
    level_tail kern;
    int inverse;
    unsigned grid;
    size_t smem;
} cu_fused;
/* Whether every tile of level @p lv (one block each) can be resident at
 * once in tail kernel @p k. */
int tail_covers(const cu_engine *ce, const level_tail *k, const cu_level *lv, int inverse,
                int channels);
/* f->grid and f->smem from f->t, f->kern and f->inverse (grid 0: its
 * largest level's tiles cannot all be resident). */
void fused_size(const cu_engine *ce, cu_fused *f);
/* The cooperative launch of @p f on ce->stream. */
wt_status fused_launch(cu_engine *ce, const cu_fused *f);

/* Shared memory a fast block may take before its tile shrinks: the
 * device's opt-in limit unless WT_CUDA_FAST_SMEM (bytes) says less. */
size_t fast_smem_cap(size_t smem_fast);
/* Raise the dynamic shared memory limit of every level kernel once. */
wt_status allow_smem_all(size_t bytes, size_t fast_bytes);
/* A GPU this build holds no code for (neither its SASS nor PTX it can
 * compile): one message naming its compute capability and the build's list. */
wt_status check_code_for(int device, const cudaDeviceProp *prop);

/* cu_layout.cu */
/* Band b of level l in the device layout. */
void *band_at(void *pyr, const wt_pyramid *plan, int level, wt_band b);
/* The four bands of level l (A from @p a_ptr) as kernel destinations or
 * sources, in the device layout. */
void set_bands(const wt_pyramid *plan, int l, void *pyr, void *a_ptr, const void **src,
               void **dst, size_t *plane, int *width);
/* Band A of level l (0: the input planes) as a kernel's rows and planes. */
void set_approx(const wt_pyramid *plan, int l, size_t *plane, int *width);
/* The two scratch buffers of the approximations between levels. */
wt_status tmp_buffers(cu_engine *ce, const wt_pyramid *plan, void *tmp[2]);
/* The buffer between the two passes of long filters' levels (NULL: the
 * policy runs none split here). */
wt_status split_buffer(cu_engine *ce, const wt_params *p, const wt_pyramid *plan, void **split);
/* Level l's view of that buffer in *lv (split NULL: the level is fused). */
void set_split(const wt_pyramid *plan, int l, void *split, cu_level *lv);

/* cu_program.cu */
/* Every kept level program freed (closing). */
void programs_release(cu_engine *ce);

#endif
