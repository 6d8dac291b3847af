/* Image transforms on an engine: an engine's own image path when it has one
 * (the CUDA engine converts samples and draws mosaics on the device), else the
 * composition of host conversions and the engine's float transforms. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine_impl.h"

static float *alloc_planes(const wt_image *img)
{
    size_t n = (size_t)img->width * img->height;
    float *planes = NULL;
    if ((size_t)img->channels && n <= SIZE_MAX / sizeof(float) / (size_t)img->channels)
        planes = malloc((n ? n : 1) * (size_t)img->channels * sizeof *planes);
    if (!planes)
        wt_error_set(WT_ERR_NOMEM, "out of memory for %ux%u samples", img->width, img->height);
    return planes;
}

/* Samples to planes, then the engine's forward transform: @p planes is a
 * buffer for img's samples. */
static wt_status forward_via_planes(wt_engine *e, const wt_params *p, const wt_image *img,
                                    float *planes, wt_pyramid *out)
{
    double t0 = wt_seconds();
    wt_status st = wt_image_to_planes(img, planes);
    double t1 = wt_seconds();
    e->times.upload += t1 - t0;
    if (st == WT_OK)
        st = e->ops->forward(e, p, planes, out);
    e->times.transform += wt_seconds() - t1;
    return st;
}

static wt_status inverse_via_planes(wt_engine *e, const wt_params *p, const wt_pyramid *in,
                                    float *planes, wt_image *img)
{
    double t0 = wt_seconds();
    wt_status st = e->ops->inverse(e, p, in, planes);
    double t1 = wt_seconds();
    e->times.transform += t1 - t0;
    if (st == WT_OK)
        wt_image_from_planes(img, planes);
    e->times.download += wt_seconds() - t1;
    return st;
}

static wt_status check_image(const wt_image *img)
{
    if (!img || !img->pixels || img->channels < 1 || img->channels > WT_MAX_CHANNELS ||
        (img->bit_depth != 8 && img->bit_depth != 16 && img->bit_depth != WT_DEPTH_F32))
        return wt_error_set(WT_ERR_INVALID, "not an image the engines take");
    return WT_OK;
}

/* An engine's own image ops take 8/16-bit samples of 1-4 channels (the CUDA
 * engine converts those on the device); float32 images and more channels go
 * through host planes and the engine's float transforms. */
static int engine_takes(const wt_image *img)
{
    return img->bit_depth != WT_DEPTH_F32 && img->channels <= 4;
}

/* wt_forward_image (@p img into @p pyr) and wt_inverse_image (back): checked,
 * then the engine's own image path where it has one, else via float planes. */
static wt_status image_transform(wt_engine *engine, const wt_params *params, int inverse,
                                 wt_image *img, wt_pyramid *pyr)
{
    wt_params p = *params;
    wt_status st = check_image(img);
    if (st == WT_OK)
        st = wt_check_transform(&p, pyr, img);
    if (st == WT_OK)
        st = wt_check_samples_fit(&p, img, !inverse);
    if (st != WT_OK)
        return st;
    engine->times.calls++;
    const wt_engine_ops *ops = engine->ops;
    if (!inverse && ops->forward_image && engine_takes(img))
        return ops->forward_image(engine, &p, img, pyr);
    if (inverse && ops->inverse_image && engine_takes(img))
        return ops->inverse_image(engine, &p, pyr, img);
    float *planes = alloc_planes(img);
    if (!planes)
        st = WT_ERR_NOMEM;
    else if (inverse)
        st = inverse_via_planes(engine, &p, pyr, planes, img);
    else
        st = forward_via_planes(engine, &p, img, planes, pyr);
    free(planes);
    return st;
}

wt_status wt_forward_image(wt_engine *engine, const wt_params *params, const wt_image *img,
                           wt_pyramid *out)
{
    return image_transform(engine, params, 0, (wt_image *)img /* read only */, out);
}

wt_status wt_inverse_image(wt_engine *engine, const wt_params *params, const wt_pyramid *in,
                           wt_image *img)
{
    return image_transform(engine, params, 1, img, (wt_pyramid *)in /* read only */);
}

/* The pyramid this engine's forward transform of @p img fills. */
static wt_status plan_for(const wt_params *p, const wt_image *img, wt_pyramid *pyr)
{
    wt_status st = check_image(img);
    return st == WT_OK ? wt_pyramid_alloc(pyr, p, img->height, img->width, img->channels) : st;
}

/* @p drawn into @p out: copied into out's pixels when the layouts match (the
 * caller's buffer is kept), else out's pixels replaced by drawn's. */
static void keep_or_replace(wt_image *out, wt_image *drawn)
{
    if (out->pixels && out->width == drawn->width && out->height == drawn->height &&
        out->channels == drawn->channels && out->bit_depth == drawn->bit_depth) {
        memcpy(out->pixels, drawn->pixels, wt_image_bytes(drawn));
        out->color = drawn->color;
        wt_image_free(drawn);
        return;
    }
    wt_image_free(out);
    *out = *drawn;
}

/* The image of a whole transform (mosaic, roundtrip) with resolved @p p. */
static wt_status check_input(const wt_params *p, const wt_image *img)
{
    wt_status st = check_image(img);
    return st == WT_OK ? wt_check_samples_fit(p, img, 1) : st;
}

wt_status wt_mosaic_image(wt_engine *engine, const wt_params *params, const wt_image *img,
                          wt_scale scale, int bit_depth, wt_image *mosaic)
{
    wt_params p = *params;
    wt_status st = wt_params_resolve(&p);
    if (st == WT_OK)
        st = check_input(&p, img);
    if (st == WT_OK && (bit_depth != 8 && bit_depth != 16))
        st = wt_error_set(WT_ERR_INVALID, "mosaics are 8 or 16-bit, not %d-bit", bit_depth);
    if (st != WT_OK) {
        wt_image_free(mosaic);
        return st;
    }
    if (engine->ops->mosaic_image && engine_takes(img)) {
        engine->times.calls++;
        return engine->ops->mosaic_image(engine, &p, img, scale, bit_depth, mosaic);
    }
    wt_pyramid pyr = {0};
    wt_image drawn = {0};
    st = plan_for(&p, img, &pyr);
    if (st == WT_OK)
        st = wt_forward_image(engine, &p, img, &pyr);
    double t0 = wt_seconds();
    if (st == WT_OK)
        st = wt_mosaic_render(&pyr, scale, bit_depth, &drawn);
    if (st == WT_OK)
        keep_or_replace(mosaic, &drawn);
    else
        wt_image_free(mosaic);
    engine->times.download += wt_seconds() - t0;
    wt_pyramid_free(&pyr);
    return st;
}

wt_status wt_roundtrip_image(wt_engine *engine, const wt_params *params, const wt_image *img,
                             wt_image *back)
{
    wt_params p = *params;
    wt_status st = wt_params_resolve(&p);
    if (st == WT_OK)
        st = check_input(&p, img);
    if (st == WT_OK && (check_image(back) != WT_OK || back->width != img->width ||
                        back->height != img->height || back->channels != img->channels ||
                        back->bit_depth != img->bit_depth))
        st = wt_error_set(WT_ERR_INVALID, "reconstruction buffer differs from the image");
    if (st != WT_OK)
        return st;
    engine->times.calls++;
    if (engine->ops->roundtrip_image && engine_takes(img))
        return engine->ops->roundtrip_image(engine, &p, img, back);
    /* one planes buffer serves both directions */
    wt_pyramid pyr = {0};
    float *planes = alloc_planes(img);
    st = planes ? plan_for(&p, img, &pyr) : WT_ERR_NOMEM;
    if (st == WT_OK)
        st = forward_via_planes(engine, &p, img, planes, &pyr);
    if (st == WT_OK)
        st = inverse_via_planes(engine, &p, &pyr, planes, back);
    free(planes);
    wt_pyramid_free(&pyr);
    return st;
}
