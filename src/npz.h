/* Internal knobs of the .npz coefficient files (src/npz.c), for tests. */
#ifndef WT_NPZ_H
#define WT_NPZ_H

#include <stdint.h>

/** Members and offsets of at least @p bytes get ZIP64 records (default
 *  0xFFFFFFFF, where the zip format needs them). Tests lower it to exercise the
 *  ZIP64 path on small files; not thread-safe, set before writing. */
void wt_npz_set_zip64_threshold(uint64_t bytes);

#endif
