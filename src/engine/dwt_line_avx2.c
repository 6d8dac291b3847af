/* dwt_line.c compiled with -mavx2: its loops over the WT_BATCH
 * lanes as two 8-float vectors (src/engine/meson.build); the
 * table wt_line_kernels_of() hands out where the CPU has the instructions. */
#include "dwt_line.h"

#define WT_LINE_VARIANT 1
#define wt_line_forward line_forward_avx2
#define wt_line_inverse line_inverse_avx2
#define wt_line_forward_i32 line_forward_i32_avx2
#define wt_line_inverse_i32 line_inverse_i32_avx2
#include "dwt_line.c"
#include "rows_x86.h"
#include "dwt_cols.c"
#include "dwt_rows.c"
#include "dwt_lift.c"
#include "filter_taps.c"

const wt_line_kernels wt_line_kernels_avx2 = {"avx2",
                                            line_forward_avx2,
                                            line_inverse_avx2,
                                            line_forward_i32_avx2,
                                            line_inverse_i32_avx2,
                                            gather_rows_x86,
                                            scatter_rows_x86,
                                            plane_cols_forward,
                                            plane_cols_inverse,
                                            plane_rows_forward,
                                            plane_rows_inverse,
                                            filter_taps};
