/* libFuzzer harness: TIFF decoding of hostile bytes through libtiff
 * (src/tiff_io.c), called directly so that mutations of the magic bytes do
 * not leave the codec. Limits are small so the fuzzer explores parsing and
 * decompression, not allocation. */
#include <stddef.h>
#include <stdint.h>

#include "image_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wt_load_options opt = {.max_pixels = 1 << 22, .max_scans = 200};
    wt_image img = {0};
    if (wt_tiff_decode(data, size, "fuzz", &opt, &img) == WT_OK)
        wt_image_free(&img);
    return 0;
}
