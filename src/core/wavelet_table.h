/* The generated wavelet table (src/wavelet_table.c, tools/gen_wavelets.py). */
#ifndef WT_WAVELET_TABLE_H
#define WT_WAVELET_TABLE_H
#include "wavetool.h"

extern const wt_wavelet wt_wavelet_table[];
extern const size_t wt_wavelet_table_len;

#endif
