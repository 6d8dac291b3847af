/* The format registry's internal side: what a codec file (src/X_io.c) defines
 * and src/format.c lists. Adding a format = one codec file defining a
 * const wt_codec, its extern below and one row in codecs[] of format.c. */
#ifndef WT_FORMAT_H
#define WT_FORMAT_H

#include <stdint.h>
#include <stdio.h>

#include "wavetool.h"

/** Decode a whole file held in memory; @p opt has its defaults filled in;
 *  @p name is the file name used in messages. */
typedef wt_status wt_decode_fn(const void *data, size_t size, const char *name,
                               const wt_load_options *opt, wt_image *img);
/** Encode @p img to @p fp. */
typedef wt_status wt_encode_fn(FILE *fp, const char *name, const wt_image *img,
                               const wt_save_options *opt);

typedef struct wt_codec {
    wt_format_info info;
    /** 1 when @p data (its first @p size bytes, possibly fewer than magic_size)
     *  can be the start of this format. */
    int (*is_a)(const uint8_t *data, size_t size);
    size_t magic_size; /**< bytes is_a needs to be sure; fewer: truncated */
    wt_decode_fn *decode; /**< NULL: holds no images */
    wt_encode_fn *encode; /**< NULL: writes no images */
    /** The samples (width x height x channels x pages) the file's header
     *  declares, from its first @p size bytes @p head (up to WT_PROBE_HEAD) or
     *  from @p path; 0 when the header does not say. NULL: unknown. */
    uint64_t (*probe)(const uint8_t *head, size_t size, const char *path);
} wt_codec;

/** Bytes of a file's start handed to a codec's probe. */
#define WT_PROBE_HEAD 65536

extern const wt_codec wt_codec_png;  /* src/png_io.c */
extern const wt_codec wt_codec_jpeg; /* src/jpeg_io.c */
extern const wt_codec wt_codec_npz;  /* src/npz.c */
extern const wt_codec wt_codec_tiff; /* src/tiff_io.c */
extern const wt_codec wt_codec_npy;  /* src/npy_io.c */

/** The codec of @p format, or NULL. */
const wt_codec *wt_codec_of(wt_file_format format);
/** The codec whose is_a accepts the first bytes @p data, or NULL. */
const wt_codec *wt_codec_sniff(const uint8_t *data, size_t size);
/** 1 when @p data starts like @p magic (or is a prefix of it). */
int wt_starts_like(const uint8_t *data, size_t size, const void *magic, size_t len);

#endif
