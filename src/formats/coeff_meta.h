/* The coefficient file's meta (internal): wt_npz_meta as the JSON of the
 * member "meta", written and read back with every field checked. */
#ifndef WT_COEFF_META_H
#define WT_COEFF_META_H

#include "wavetool.h"
#include "zip.h"

/* @p m as JSON text (the caller frees it), NULL when out of memory. */
char *coeff_meta_json(const wt_npz_meta *m);
/* Member "meta": @p json as a 1-D uint8 array. */
void coeff_meta_write(zip_writer *w, const char *json);
/* Members "icc_profile", "exif" and "xmp" of @p image (NULL: none), 1-D uint8 arrays. */
void coeff_meta_write_image(zip_writer *w, const wt_image_meta *image);
/* The member "meta" of @p d into @p meta, each field checked (meta->image NULL). */
wt_status coeff_meta_read(const zip_reader *r, const zip_directory *d, wt_npz_meta *meta);
/* The input's metadata @p d stores (resolution keys, "icc_profile", "exif", "xmp")
 * into *@p out, a new reference; NULL when it stores none. */
wt_status coeff_meta_read_image(const zip_reader *r, const zip_directory *d,
                                wt_image_meta **out);
/* 1 when @p path is a regular file (not "-") whose member "meta" reads into
 * @p meta; 0 otherwise, no error message left (what a probe needs). */
int coeff_meta_peek(const char *path, wt_npz_meta *meta);

/* A coefficient file being read: the zip reader and its directory. */
typedef struct coeff_file {
    zip_reader r;
    zip_directory *d;
} coeff_file;

/* @p path opened (a stream bounded by @p max_pixels, 0: the default), its
 * directory read and, unless @p meta is NULL, its member "meta" into
 * @p meta. Whatever it returns, coeff_file_close(@p f) releases it. */
wt_status coeff_file_open(coeff_file *f, const char *path, uint64_t max_pixels,
                          wt_npz_meta *meta);
void coeff_file_close(coeff_file *f);

#endif
