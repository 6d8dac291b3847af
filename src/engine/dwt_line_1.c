/* dwt_line.c for one line at a time (WT_LANES 1), its functions named
 * *_1 (dwt_line.h): the CPU engine's passes over fewer than WT_BATCH lines,
 * which would otherwise fill WT_BATCH lanes with copies of the lines that
 * exist (a 1xN image's row pass took 16 times its row, ~210 bytes a pixel). */
#define WT_LANES 1
#define wt_line_scratch wt_line_scratch_1
#define wt_line_forward wt_line_forward_1
#define wt_line_inverse wt_line_inverse_1
#define wt_line_forward_i32 wt_line_forward_i32_1
#define wt_line_inverse_i32 wt_line_inverse_i32_1
#include "dwt_line.c"
