/* Internal interface of the image codecs (src/png_io.c, jpeg_io.c, tiff_io.c, npy_io.c),
 * used by src/image_io.c. @p name is the file name used in messages. */
#ifndef WT_IMAGE_CODEC_H
#define WT_IMAGE_CODEC_H

#include <stdio.h>

#include "format.h"
#include "wavetool.h"

/* Each codec's decode and encode (the wt_decode_fn and wt_encode_fn of format.h). */

/** A whole PNG. Encode: 8/16-bit, 1-4 channels. */
wt_decode_fn wt_png_decode;
wt_encode_fn wt_png_encode;

/** A whole JPEG. Encode: an 8-bit image (alpha dropped). */
wt_decode_fn wt_jpeg_decode;
wt_encode_fn wt_jpeg_encode;

/** The first page of a TIFF. Encode: deflate-compressed, 8/16-bit, 1-4 channels. */
wt_decode_fn wt_tiff_decode;
wt_encode_fn wt_tiff_encode;

/** A .npy array (H x W or H x W x C, uint8/uint16). Encode: numpy.save's
 *  version 1.0, C order, little-endian. */
wt_decode_fn wt_npy_decode;
wt_encode_fn wt_npy_encode;

/** 1 on a little-endian host. */
static inline int wt_host_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

#endif
