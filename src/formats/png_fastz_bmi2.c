/* png_fastz.c compiled again with -mbmi2 -mavx2 (src/formats/meson.build):
 * shifts by a register count in one instruction (shlx, shrx), which the bit
 * writer and the run search are full of; wt_fastz_compress takes it where
 * the CPU has BMI2 and AVX2. */
#define FASTZ_VARIANT 1
#define FASTZ_COMPRESS wt_fastz_compress_bmi2
#include "png_fastz.c"
