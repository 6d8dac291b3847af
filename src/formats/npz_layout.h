/* The layouts of coefficient files (internal): which members a transform's
 * coefficients become, their names and (C, h, w) shapes, and where each
 * member's samples lie in the pyramid or band stack. The one place that knows
 * them, for the whole-file code (src/npz.c) and the page streams
 * (src/npz_stack.c); the transform registry takes these over.
 *   DWT: "cA" (the last level), then "cH1", "cV1", "cD1" ... "cHL", "cVL", "cDL".
 *   SWT: wt_ustack_index's order: "cA", "cHL", "cVL", "cDL" ... "cH1"...,
 *        then "cA1"... with all_approx. Starlet: "c", "w1" ... "wL". */
#ifndef WT_NPZ_LAYOUT_H
#define WT_NPZ_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "wavetool.h"

/* Members of a DWT pyramid of @p p's levels. */
int npz_dwt_members(const wt_pyramid *p);
/* Name and (C, h, w) of DWT member @p i. */
void npz_dwt_member(const wt_pyramid *p, int i, char *name, uint64_t *shape);
/* Where DWT member @p i starts in @p p's data, in samples. */
size_t npz_dwt_member_offset(const wt_pyramid *p, int i);

/* Members of an undecimated band stack: one per band. */
int npz_ustack_members(const wt_uparams *p);
/* Name of band @p i of an undecimated stack; every band is (C, H, W). */
void npz_ustack_member_name(const wt_uparams *p, int i, char *name);

#endif
