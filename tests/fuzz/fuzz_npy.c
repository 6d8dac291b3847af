/* libFuzzer harness: .npy decoding of hostile bytes (src/npy_io.c), called
 * directly so that mutations of the magic bytes do not leave the codec. */
#include <stddef.h>
#include <stdint.h>

#include "image_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wt_load_options opt = {.max_pixels = 1 << 22, .max_scans = 200};
    wt_image img = {0};
    if (wt_npy_decode(data, size, "fuzz", &opt, &img) == WT_OK)
        wt_image_free(&img);
    return 0;
}
