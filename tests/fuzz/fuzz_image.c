/* libFuzzer harness: PNG, JPEG and Netpbm decoding of hostile bytes (every
 * loader is reached: wt_image_load_memory dispatches on the magic bytes; the
 * Netpbm seeds are the .pgm and .ppm files of tests/fuzz/seeds). Limits are
 * small so the fuzzer explores parsing, not allocation. */
#include <stddef.h>
#include <stdint.h>

#include "wavetool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wt_load_options opt = {.max_pixels = 1 << 22, .max_scans = 200, .lenient = size & 1};
    wt_image img = {0};
    if (wt_image_load_memory(data, size, "fuzz", &opt, &img) == WT_OK)
        wt_image_free(&img);
    return 0;
}
