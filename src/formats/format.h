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

/** A file of many pages read one page at a time (model: libvips' "page" and
 *  "n" load options). @p state is the codec's own. */
typedef struct wt_page_reader {
    /** Open the pages of the regular file @p fd (kept open by the caller) and
     *  count them into @p count; WT_OK with *@p state NULL: the file is one
     *  image (read whole by wt_image_load). */
    wt_status (*open)(int fd, uint64_t size, const char *name, const wt_load_options *opt,
                      void **state, size_t *count);
    /** Page @p k into @p img (allocated here). */
    wt_status (*read)(void *state, size_t k, const wt_load_options *opt, wt_image *img);
    void (*close)(void *state); /**< NULL-safe */
    /** Page @p k's rows in bands handed to @p fn (wt_stack_reread_rows);
     *  NULL: not read by rows. */
    wt_status (*read_rows)(void *state, size_t k, wt_rows_fn fn, void *ctx);
} wt_page_reader;

/** A file of many pages written one page at a time into @p fp. */
typedef struct wt_page_writer {
    /** Start a file of @p pages pages laid out as @p first (not written yet). */
    wt_status (*start)(FILE *fp, const char *name, const wt_image *first, size_t pages,
                       void **state);
    wt_status (*add)(void *state, FILE *fp, const char *name, const wt_image *page);
    /** Finish the file (NULL: nothing to finish); frees @p state. */
    wt_status (*finish)(void *state);
    /** Drop @p state after a failure, nothing reported (NULL: nothing to drop). */
    void (*discard)(void *state);
    /** 1: the file is written in place (seeks back), so never to a pipe. */
    int in_place;
} wt_page_writer;

typedef struct wt_codec {
    wt_format_info info;
    /** 1 when @p data (its first @p size bytes, possibly fewer than magic_size)
     *  can be the start of this format. */
    int (*is_a)(const uint8_t *data, size_t size);
    size_t magic_size; /**< bytes is_a needs to be sure; fewer: truncated */
    wt_decode_fn *decode; /**< NULL: holds no images */
    wt_encode_fn *encode; /**< NULL: writes no images */
    /** A whole image decoded from the regular file @p fd without reading it
     *  into memory first; NULL: the file is read whole and given to decode. */
    wt_status (*load_file)(int fd, uint64_t size, const char *name, const wt_load_options *opt,
                           wt_image *img);
    const wt_page_reader *pages_in;   /**< NULL: one image a file */
    const wt_page_writer *pages_out;  /**< NULL: writes one image a file */
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
extern const wt_codec wt_codec_pnm;  /* src/pnm_io.c */

/** The codec of @p format, or NULL. */
const wt_codec *wt_codec_of(wt_file_format format);
/** The codec whose is_a accepts the first bytes @p data, or NULL. */
const wt_codec *wt_codec_sniff(const uint8_t *data, size_t size);
/** The value of save option @p option (one of @p c's info.options) in @p opt:
 *  its default when @p opt is NULL or the value is below the option's range,
 *  the range's top when above it. */
int wt_save_option_value(const wt_codec *c, const char *option, const wt_save_options *opt);
/** 1 when @p data starts like @p magic (or is a prefix of it). */
int wt_starts_like(const uint8_t *data, size_t size, const void *magic, size_t len);

#endif
