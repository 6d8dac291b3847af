/* libFuzzer harness: TIFF decoding of hostile bytes through libtiff
 * (src/tiff_io.c), called directly so that mutations of the magic bytes do
 * not leave the codec. Limits are small so the fuzzer explores parsing and
 * decompression, not allocation; 65536 pixels as in fuzz_cli: at 2^22, a
 * mutated header of a 917508x4 image took a second per run and the runs
 * averaged 2 ms (0.4 ms at 2^16 on the same corpus). */
#include <stddef.h>
#include <stdint.h>

#include "image_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wt_load_options opt = {.max_pixels = 1 << 16, .max_scans = 200};
    wt_image img = {0};
    if (wt_tiff_decode(data, size, "fuzz", &opt, &img) == WT_OK)
        wt_image_free(&img);
    return 0;
}
