/* Result images (reconstructions, roundtrips, denoised images) of the sample
 * type --depth asks for, else the input's own (cli/result.c). */
#ifndef CLI_RESULT_H
#define CLI_RESULT_H

#include "pages.h"
#include "pipeline.h"

/* 1 when @p a and @p b are the same stored type. */
int result_same_type(wt_sample_type a, wt_sample_type b);
/* For a command making a result of @p img: *@p want (--depth, else img's
 * stored type), refused (one line naming @p out) when @p out's format cannot
 * hold it, and @p img replaced by its float32 copy when *@p want is another
 * type (the work then runs unrounded, and result_save converts once). @p out
 * may be NULL (no output). */
wt_status result_prepare(pipeline *p, const char *in, const char *out, wt_image *img,
                         wt_sample_type *want);
/* result_prepare's check alone: @p img stays as it is (denoise keeps the
 * samples' own type, which decides its noise estimate and clipping). */
wt_status result_check(pipeline *p, const char *out, const wt_image *img, wt_sample_type *want);
/* An image for the unrounded result of @p like: @p like's type when that is
 * @p want, else float32 (result_save converts once). Its pixels in @p room
 * (a worker's pixel room, pipeline_output_room) when it holds them, the
 * image then gone before the worker's next file; given a room, not zeroed
 * (for work that writes every sample); NULL: malloc'd and zeroed. */
wt_status result_alloc_for(const wt_image *like, wt_sample_type want, const char *file,
                           wt_pixel_room *room, wt_image *img);
/* An image of @p like's size, channels and type (its stored type kept). */
wt_status result_alloc_like(const wt_image *like, const char *file, wt_image *img);
/* The image a reconstruction from the coefficient file @p in of @p meta
 * writes to @p out: memory checked, of the type --depth asks for, else the
 * original's (8/16-bit exact, else float32), refused (one line naming @p
 * out) when @p out's format cannot hold it; its pixels in @p room as for
 * result_alloc_for. */
wt_status result_alloc_reconstruction(pipeline *p, const char *in, const char *out,
                                      const wt_npz_meta *meta, wt_pixel_room *room,
                                      wt_image *img);
/* @p result written to @p out as @p want (converted when it is held otherwise). */
wt_status result_save(pipeline *p, page_binding *page, const char *out, const wt_image *result,
                      wt_sample_type want);

#endif
