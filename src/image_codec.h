/* Internal interface of the PNG and JPEG codecs (src/png_io.c, src/jpeg_io.c),
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

/** 1 on a little-endian host. */
static inline int wt_host_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

#endif
