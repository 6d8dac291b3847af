/* Result images of --depth 8|16|f32 or of the input's type: the check before
 * any work, the float32 work copy, the one conversion before saving. */
#include "result.h"

#include <string.h>

#include "options.h"

int result_same_type(wt_sample_type a, wt_sample_type b)
{
    return a.kind == b.kind && a.bits == b.bits;
}

wt_status result_check(pipeline *p, const char *out, const wt_image *img, wt_sample_type *want)
{
    *want = cli_result_type(p->opt, wt_image_stored(img));
    if (!out)
        return WT_OK;
    const char *name = strcmp(out, "-") == 0 ? "(stdout)" : out;
    return wt_image_check_holds(cli_output_format(p->opt, out), name, *want, img->channels);
}

wt_status result_prepare(pipeline *p, const char *in, const char *out, wt_image *img,
                         wt_sample_type *want)
{
    wt_status st = result_check(p, out, img, want);
    if (st != WT_OK || result_same_type(*want, wt_image_stored(img)))
        return st;
    wt_image work = {0};
    st = wt_image_convert(img, (wt_sample_type){WT_SAMPLE_FLOAT, 32}, &work);
    if (st != WT_OK)
        return pipeline_name_error(st, in);
    wt_image_free(img);
    *img = work;
    return WT_OK;
}

/* @p like's size and channels at @p bit_depth, its color and metadata; the
 * pixels in @p room when it holds them; with a room not zeroed (the work
 * writes every sample), without one zeroed. */
static wt_status alloc_result(const wt_image *like, int bit_depth, wt_pixel_room *room,
                              const char *file, wt_image *img)
{
    wt_status st = room ? wt_image_alloc_in(img, room, like->width, like->height, like->channels,
                                            bit_depth)
                        : wt_image_alloc(img, like->width, like->height, like->channels,
                                         bit_depth);
    img->color = like->color;
    wt_image_share_meta(img, like); /* an image of the input: its metadata */
    return pipeline_name_error(st, file);
}

wt_status result_alloc_like(const wt_image *like, const char *file, wt_image *img)
{
    wt_status st = alloc_result(like, like->bit_depth, NULL, file, img);
    img->stored = like->stored;
    return st;
}

wt_status result_alloc_for(const wt_image *like, wt_sample_type want, const char *file,
                           wt_pixel_room *room, wt_image *img)
{
    int same = result_same_type(want, wt_image_stored(like));
    wt_status st = alloc_result(like, same ? like->bit_depth : WT_DEPTH_F32, room, file, img);
    if (same)
        img->stored = like->stored;
    return st;
}

wt_status result_alloc_reconstruction(pipeline *p, const char *in, const char *out,
                                      const wt_npz_meta *meta, wt_pixel_room *room,
                                      wt_image *img)
{
    const wt_image like = {.width = meta->width, .height = meta->height,
                           .channels = meta->channels, .bit_depth = meta->bit_depth,
                           .color = meta->color, .stored = meta->stored};
    const wt_sample_type want = cli_result_type(p->opt, wt_image_stored(&like));
    wt_status st = wt_memory_check(&p->load, in, meta->width, meta->height, meta->channels);
    if (st == WT_OK)
        st = wt_image_check_holds(cli_output_format(p->opt, out), out, want, meta->channels);
    if (st == WT_OK)
        st = alloc_result(&like, wt_sample_type_depth(want), room, in, img);
    if (st == WT_OK)
        img->stored = img->bit_depth == WT_DEPTH_F32 ? want : (wt_sample_type){0, 0};
    return st;
}

wt_status result_save(pipeline *p, page_binding *page, const char *out, const wt_image *result,
                      wt_sample_type want)
{
    if (result_same_type(want, wt_image_stored(result)))
        return pages_save(p, page, out, result);
    wt_image converted = {0};
    wt_status st = pipeline_name_error(wt_image_convert(result, want, &converted), out);
    if (st == WT_OK)
        st = pages_save(p, page, out, &converted);
    wt_image_free(&converted);
    return st;
}
