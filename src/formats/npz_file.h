/* Whole coefficient files (internal): the writer shared by the image's
 * (src/formats/npz.c) and the volume's (src/formats/npz_volume.c) files. */
#ifndef WT_NPZ_FILE_H
#define WT_NPZ_FILE_H

#include "wavetool.h"
#include "zip.h"

/* A .npz at @p path (@p shown in messages) through a temporary file: the
 * members @p write_bands writes from @p bands, then "meta" (@p meta as JSON)
 * and the zip directory. */
wt_status npz_save_file(const char *path, const char *shown, const wt_npz_meta *meta,
                        void (*write_bands)(zip_writer *w, const void *bands), const void *bands);

#endif
