/* Reading input files: FIFOs that cannot hang the open, the format known from
 * the first bytes before the rest is read, and reads bounded by a cap derived
 * from the limits (src/input.c). */
#ifndef WT_INPUT_H
#define WT_INPUT_H

#include <stdint.h>
#include <sys/stat.h>

#include "wavetool.h"

/* Bytes read before the format is decided (every codec's magic fits). */
#define WT_SNIFF_BYTES 64

/* Checks the first bytes of an input (at most WT_SNIFF_BYTES, fewer only at
 * the end of the input); WT_OK lets the read go on. */
typedef wt_status (*wt_input_check)(const uint8_t *data, size_t size, const char *name);

/* Open @p path for reading. A FIFO without a writer does not block the open
 * (it then reads as empty); directories are refused. @p st gets fstat's answer. */
wt_status wt_input_open(const char *path, int *fd, struct stat *st);

/* Read @p fd to its end into a malloc'ed buffer. @p check (may be NULL) sees
 * the first bytes before anything more is read; more than @p cap bytes is
 * WT_ERR_LIMIT, "NAME: file is larger than CAP_TEXT". @p hint: the expected
 * size (a regular file's), or 0. */
wt_status wt_input_read(int fd, const char *name, uint64_t hint, uint64_t cap,
                        const char *cap_text, wt_input_check check, uint8_t **data,
                        size_t *size);

/* The most bytes an input may take when it describes at most @p max_pixels
 * pixels of @p bytes_per_pixel bytes each (twice that, plus room for headers
 * and metadata), at most @p ceiling. */
uint64_t wt_input_cap(uint64_t max_pixels, unsigned bytes_per_pixel, uint64_t ceiling);

/* wt_input_cap of @p max_pixels (0: WT_DEFAULT_MAX_PIXELS) with its text for
 * wt_input_read's message into @p text: @p ceiling_text where the ceiling
 * caps it, else "N MiB (the most --max-pixels M allows)". */
uint64_t wt_input_cap_text(uint64_t max_pixels, unsigned bytes_per_pixel, uint64_t ceiling,
                           const char *ceiling_text, char *text, size_t text_size);

/* Width and height against wavetool's limits, before anything is allocated:
 * each at least 1 and at most WT_MAX_SIDE, width × height at most
 * @p max_pixels (0 = WT_DEFAULT_MAX_PIXELS). @p what names the format in the
 * message ("PNG"). */
wt_status wt_check_dimensions(const char *name, const char *what, uint64_t width, uint64_t height,
                              uint64_t max_pixels);

#endif
