/* Metadata of images (wt_image_meta): read from PNG and JPEG bytes here
 * (src/formats/image_meta.c), from TIFF tags by tiff_io.c; written by each
 * encoder from wt_meta_to_write. */
#ifndef WT_IMAGE_META_H
#define WT_IMAGE_META_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"
#include "wavetool.h"

/* The metadata of the @p size bytes of a file that codec @p c decoded into
 * @p img, attached to it; nothing attached when there is none. */
void wt_meta_read(const wt_codec *c, const uint8_t *data, size_t size, wt_image *img);
/* An ICC profile, Exif block or XMP packet larger than this is left out. */
#define META_MAX_BYTES ((size_t)16 << 20)
/* PNG text chunks past this many bytes in all, or a longer description, are left out. */
#define META_TEXT_MAX ((size_t)1 << 20)
/* JPEG APP1 XMP: this identifier, then the packet. */
#define XMP_ID "http://ns.adobe.com/xap/1.0/"
#define XMP_ID_SIZE 29 /* with its terminating 0 */

/* A copy of the @p n bytes at @p p (an ICC profile, Exif), or NULL when
 * empty, too large (over 16 MiB) or out of memory: then left out. */
uint8_t *wt_meta_copy(const uint8_t *p, size_t n);
/* A NUL-terminated copy of the @p n bytes of text at @p p (trailing NULs
 * dropped), or NULL when empty, holding a NUL, over META_TEXT_MAX or out of memory. */
char *wt_meta_text_copy(const uint8_t *p, size_t n);
/* @p m (malloc'ed, refs unset) attached to @p img, which has none; freed when empty. */
void wt_meta_attach(wt_image *img, wt_image_meta *m);
/* What an encoder writes of @p img's metadata: NULL with --strip or none. */
const wt_image_meta *wt_meta_to_write(const wt_image *img, const wt_save_options *opt);

#endif
