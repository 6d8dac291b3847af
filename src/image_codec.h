/* Internal interface of the image codecs (src/png_io.c, jpeg_io.c, tiff_io.c, npy_io.c),
 * used by src/image_io.c. @p name is the file name used in messages. */
#ifndef WT_IMAGE_CODEC_H
#define WT_IMAGE_CODEC_H

#include <stdio.h>

#include "format.h"
#include "wavetool.h"

/** Decode a whole PNG held in memory; @p opt already has its defaults filled in. */
wt_status wt_png_decode(const void *data, size_t size, const char *name,
                        const wt_load_options *opt, wt_image *img);
/** Encode @p img as PNG to @p fp (8/16-bit, 1-4 channels). */
wt_status wt_png_encode(FILE *fp, const char *name, const wt_image *img,
                        const wt_save_options *opt);

/** Decode a whole JPEG held in memory; @p opt already has its defaults filled in. */
wt_status wt_jpeg_decode(const void *data, size_t size, const char *name,
                         const wt_load_options *opt, wt_image *img);
/** Encode an 8-bit @p img as JPEG to @p fp (alpha dropped). */
wt_status wt_jpeg_encode(FILE *fp, const char *name, const wt_image *img,
                         const wt_save_options *opt);

/** Decode the first page of a TIFF held in memory; @p opt already has its defaults filled in. */
wt_status wt_tiff_decode(const void *data, size_t size, const char *name,
                         const wt_load_options *opt, wt_image *img);
/** Encode @p img as a deflate-compressed TIFF of its stored type to @p fp. */
wt_status wt_tiff_encode(FILE *fp, const char *name, const wt_image *img,
                         const wt_save_options *opt);

/** Decode a .npy array (H x W or H x W x C; uint 8/16/32, int 8/16/32, float
 *  32/64; C or Fortran order, either byte order) held in memory. */
wt_status wt_npy_decode(const void *data, size_t size, const char *name,
                        const wt_load_options *opt, wt_image *img);
/** Encode @p img as a .npy array of its stored type (numpy.save's version 1.0,
 *  C order, little-endian). */
wt_status wt_npy_encode(FILE *fp, const char *name, const wt_image *img,
                        const wt_save_options *opt);

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
/** 1 when @p type is one the image codecs read and write. */
int wt_sample_type_known(wt_sample_type type);

/** 1 on a little-endian host. */
static inline int wt_host_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

#endif
