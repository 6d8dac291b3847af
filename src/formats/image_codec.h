/* Internal interface of the image codecs (src/png_io.c, jpeg_io.c, tiff_io.c, npy_io.c;
 * pnm_io.c needs only its registry row), used by src/image_io.c. @p name is the file name used in messages. */
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

/** A one-page TIFF held in memory (several pages: a stack, refused here).
 *  Encode: deflate-compressed, the image's stored type. A TIFF file is read
 *  through the codec row's load_file and page hooks (src/tiff_io.c). */
wt_decode_fn wt_tiff_decode;
wt_encode_fn wt_tiff_encode;

/** A .npy array (H x W or H x W x C; uint 8/16/32, int 8/16/32, float 32/64;
 *  C or Fortran order, either byte order). Encode: numpy.save's version 1.0,
 *  C order, little-endian, the stored type. */
wt_decode_fn wt_npy_decode;
wt_encode_fn wt_npy_encode;

/** The value of one sample of @p type stored at @p p (@p swap: in the byte
 *  order other than the host's). Types: uint 8/16/32, int 8/16/32, float 32/64. */
double wt_sample_load(const uint8_t *p, wt_sample_type type, int swap);
/** Store @p v (already wt_sample_clamp'ed for @p type) at @p p. */
void wt_sample_store(uint8_t *p, wt_sample_type type, int swap, double v);
/** Sample @p i of @p img (interleaved index) as a double, and set it (8/16-bit:
 *  @p v must be in range; float32 images take it as it is). */
double wt_image_sample(const wt_image *img, size_t i);
void wt_image_set_sample(wt_image *img, size_t i, double v);
/** Row @p y of @p img as samples of @p type (rounded and clamped) into @p row. */
void wt_image_store_row(const wt_image *img, wt_sample_type type, int swap, uint32_t y,
                        uint8_t *row);
/** WT_ERR_INVALID ("NAME: cannot write C channels of B bits as FORMAT") unless
 *  @p img is a valid image of a stored type the codecs write. */
wt_status wt_image_check_writable(const wt_image *img, const char *name, const char *format);
/** Peak memory per sample of images held as float32 (their own samples and a
 *  float32 work copy for --depth): 2048x2048 gray float32 roundtrip 96 MB and
 *  uint8 -> --depth 16 roundtrip 104 MB (23-25 bytes), CPU engine, -j1. */
#define WT_MEMORY_PER_FLOAT_SAMPLE 28
/** wt_memory_check at @p per_sample bytes a sample. */
wt_status wt_memory_check_samples(const wt_load_options *opt, const char *name, uint32_t width,
                                  uint32_t height, int channels, unsigned per_sample);
/** 1 when @p type is one the image codecs read and write. */
int wt_sample_type_known(wt_sample_type type);

/** 1 on a little-endian host. */
static inline int wt_host_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

#endif
