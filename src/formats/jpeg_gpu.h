/* The GPU JPEG codec (nvJPEG, cuda/cu_jpeg.cu) as src/formats/jpeg_io.c uses
 * it: once wt_gpu_jpeg_start (wavetool_hooks.h) has run, JPEG pixels are
 * decoded and/or encoded on the GPU; whatever it does not take, libjpeg-turbo
 * does, and wt_gpu_jpeg_note says why. Without nvJPEG in the build
 * (WT_HAVE_NVJPEG 0) src/formats/jpeg_gpu.c stands in: never active. */
#ifndef WT_JPEG_GPU_H
#define WT_JPEG_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "wavetool_hooks.h" /* WT_GPU_JPEG_*, wt_gpu_jpeg_note */

/* 1 when started for @p what (WT_GPU_JPEG_DECODE or WT_GPU_JPEG_ENCODE). */
int wt_gpu_jpeg_active(unsigned what);

/* The pixels of the sequential Huffman-coded JPEG @p data[0..size) into
 * @p img, allocated by the caller at the header's size with 1 (gray) or 3
 * (RGB, interleaved) channels of 8 bits. */
wt_status wt_gpu_jpeg_decode(const void *data, size_t size, const char *name, wt_image *img);

/* @p pixels (@p width x @p height, 1 gray or 3 RGB interleaved 8-bit
 * channels, rows packed) as a baseline JPEG of @p quality (libjpeg's scale;
 * RGB 4:2:0 as libjpeg's defaults) into *@p out (malloc'ed, *@p size bytes):
 * nvJPEG's whole file, from SOI to EOI. */
wt_status wt_gpu_jpeg_encode(const char *name, const uint8_t *pixels, uint32_t width,
                             uint32_t height, int channels, int quality, uint8_t **out,
                             size_t *size);

/* Say why libjpeg-turbo did this thread's last JPEG (wt_gpu_jpeg_note);
 * wt_gpu_jpeg_note_clear forgets it. */
void wt_gpu_jpeg_set_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void wt_gpu_jpeg_note_clear(void);

#endif
