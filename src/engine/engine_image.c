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

/* ---- the CPU engine in one buffer (dwt_inplace.c) ------------------------- */

/* 1 when @p engine transforms the planned @p pyr in place: the CPU engine
 * and float32 coefficients. */
static int in_place_for(const wt_engine *engine, const wt_pyramid *pyr)
{
    return engine->is_cpu && pyr->dtype == WT_FLOAT32;
}

/* Sample @p i of a one-channel 8- or 16-bit image, as float (bytes read
 * through memcpy: the storage holds floats too). */
static float sample_at(const unsigned char *px, size_t i, size_t bytes)
{
    uint16_t u16;
    if (bytes == 1)
        return (float)px[i];
    memcpy(&u16, px + 2 * i, 2);
    return (float)u16;
}

/* The float planes of @p img in a buffer of @p elems floats (at least its
 * samples) that takes the place of its pixels (NULL after). One channel grows
 * the pixels (realloc remaps a large block, copying nothing) and converts
 * from the last sample down, each float landing where only samples already
 * read were, so samples and planes are never held side by side; more channels
 * (or borrowed pixels, wt_image.room) convert into a new buffer before the
 * pixels go. */
static float *planes_replacing_pixels(wt_image *img, size_t elems)
{
    size_t n = (size_t)img->width * img->height;
    if (elems > SIZE_MAX / sizeof(float)) {
        wt_error_set(WT_ERR_LIMIT, "decomposition of %ux%u is too large", img->width,
                     img->height);
        return NULL;
    }
    int grow = img->channels == 1 && !img->room; /* borrowed pixels are never realloc'd */
    unsigned char *buf = grow ? realloc(img->pixels, elems * sizeof(float))
                              : malloc(elems * sizeof(float));
    if (!buf) {
        wt_error_set(WT_ERR_NOMEM, "out of memory for %zu coefficients", elems);
        return NULL;
    }
    if (grow) {
        img->pixels = NULL; /* now buf */
        size_t bytes = (size_t)img->bit_depth / 8;
        for (size_t i = n; img->bit_depth != WT_DEPTH_F32 && i-- > 0;) { /* float32: planes */
            float v = sample_at(buf, i, bytes);
            memcpy(buf + i * sizeof(float), &v, sizeof v);
        }
    } else {
        wt_image_to_planes(img, (float *)buf);
    }
    wt_image_drop_pixels(img);
    return (float *)buf;
}

/* The CPU engine's forward transform of @p img into planned @p out in the
 * image's own storage (its pixels gone). */
static wt_status forward_in_place(wt_engine *e, const wt_params *p, wt_image *img,
                                  wt_pyramid *out)
{
    double t0 = wt_seconds();
    out->data = planes_replacing_pixels(img, out->total);
    if (!out->data)
        return WT_ERR_NOMEM;
    out->owned = 1;
    double t1 = wt_seconds();
    e->times.upload += t1 - t0;
    wt_status st = wt_cpu_transform_in_place(e, p, out, 0);
    e->times.transform += wt_seconds() - t1;
    if (st != WT_OK)
        wt_pyramid_free(out);
    return st;
}

wt_status wt_forward_image_consume(wt_engine *engine, const wt_params *params, wt_image *img,
                                   wt_pyramid *out)
{
    wt_params p = *params;
    memset(out, 0, sizeof *out);
    wt_status st = check_image(img);
    if (st == WT_OK)
        st = wt_params_resolve(&p);
    if (st == WT_OK)
        st = wt_check_samples_fit(&p, img, 1);
    if (st == WT_OK)
        st = wt_pyramid_plan(out, &p, img->height, img->width, img->channels);
    if (st == WT_OK && in_place_for(engine, out)) {
        engine->times.calls++;
        st = forward_in_place(engine, &p, img, out);
    } else if (st == WT_OK) {
        st = wt_pyramid_alloc(out, &p, img->height, img->width, img->channels);
        if (st == WT_OK)
            st = wt_forward_image(engine, &p, img, out);
    }
    if (st != WT_OK)
        wt_pyramid_free(out);
    wt_image_drop_pixels(img);
    return st;
}

/* The one-channel planes at @p buf as @p back's samples in the same storage,
 * shrunk to them: chunk by chunk through a small copy, each chunk's samples
 * landing where only floats already read were (a sample is 4 bytes at most),
 * converted as wt_image_from_planes converts. */
static void *samples_replacing_planes(const wt_image *back, unsigned char *buf)
{
    enum { CHUNK = 4096 };
    float chunk[CHUNK];
    size_t n = (size_t)back->width * back->height, bytes = wt_image_bytes(back) / (n ? n : 1);
    wt_image view = *back;
    view.height = 1;
    for (size_t i = 0; i < n; i += CHUNK) {
        view.width = (uint32_t)(n - i < CHUNK ? n - i : CHUNK);
        memcpy(chunk, buf + i * sizeof(float), view.width * sizeof(float));
        view.pixels = buf + i * bytes;
        wt_image_from_planes(&view, chunk);
    }
    size_t kept = n * bytes;
    void *shrunk = realloc(buf, kept > 0 ? kept : 1);
    return shrunk ? shrunk : buf;
}

/* The float planes of @p img in planned @p pyr's own buffer: copied
 * (@p consume 0), or in img's storage, its pixels gone. */
static wt_status planes_into_pyramid(const wt_params *p, wt_image *img, wt_pyramid *pyr,
                                     int consume)
{
    if (consume) {
        pyr->data = planes_replacing_pixels(img, pyr->total);
        pyr->owned = pyr->data != NULL;
        return pyr->data ? WT_OK : WT_ERR_NOMEM;
    }
    wt_status st = wt_pyramid_alloc(pyr, p, img->height, img->width, img->channels);
    return st == WT_OK ? wt_image_to_planes(img, pyr->data) : st;
}

/* The planes in @p pyr's buffer as @p back's samples: one channel in that
 * buffer (shrunk, the pyramid's no more), more into back's pixels
 * (allocated here when freed before). */
static wt_status samples_from_planes(wt_pyramid *pyr, wt_image *back)
{
    if (back->channels == 1) {
        back->pixels = samples_replacing_planes(back, pyr->data);
        pyr->owned = 0;
        return WT_OK;
    }
    if (!back->pixels)
        back->pixels = malloc(wt_image_bytes(back));
    if (!back->pixels)
        return wt_error_set(WT_ERR_NOMEM, "out of memory for a %ux%u image", back->width,
                            back->height);
    wt_image_from_planes(back, pyr->data);
    return WT_OK;
}

/* The CPU engine's roundtrip in one buffer of the pyramid's size: the
 * planes, their pyramid, the planes again. The reconstruction's pixels are
 * freed first (one channel, or @p consume: img's storage becomes the buffer)
 * and come back after the inverse, so the image, the pyramid and the
 * reconstruction are never held together. */
static wt_status roundtrip_in_place(wt_engine *e, const wt_params *p, wt_image *img,
                                    wt_pyramid *pyr, wt_image *back, int consume)
{
    if (back->channels == 1 || consume)
        wt_image_drop_pixels(back); /* (borrowed ones only forgotten) */

    double t0 = wt_seconds();
    wt_status st = planes_into_pyramid(p, img, pyr, consume);
    double t1 = wt_seconds();
    e->times.upload += t1 - t0;
    if (st == WT_OK)
        st = wt_cpu_transform_in_place(e, p, pyr, 0);
    if (st == WT_OK)
        st = wt_cpu_transform_in_place(e, p, pyr, 1);
    double t2 = wt_seconds();
    e->times.transform += t2 - t1;
    if (st == WT_OK)
        st = samples_from_planes(pyr, back);
    e->times.download += wt_seconds() - t2;
    wt_pyramid_free(pyr);
    return st;
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

/* Resolved @p p and the roundtrip's images checked: @p back laid out as @p img. */
static wt_status check_roundtrip(wt_params *p, const wt_image *img, const wt_image *back)
{
    wt_status st = wt_params_resolve(p);
    if (st == WT_OK)
        st = check_input(p, img);
    if (st == WT_OK && (!back || back->width != img->width || back->height != img->height ||
                        back->channels != img->channels || back->bit_depth != img->bit_depth ||
                        check_image(back) != WT_OK))
        st = wt_error_set(WT_ERR_INVALID, "reconstruction buffer differs from the image");
    return st;
}

/* The roundtrip on the engine's own image path, or through host planes. */
static wt_status roundtrip_held(wt_engine *engine, const wt_params *p, const wt_image *img,
                                wt_image *back)
{
    if (engine->ops->roundtrip_image && engine_takes(img))
        return engine->ops->roundtrip_image(engine, p, img, back);
    wt_pyramid pyr = {0};
    /* one planes buffer serves both directions */
    float *planes = alloc_planes(img);
    wt_status st = planes ? plan_for(p, img, &pyr) : WT_ERR_NOMEM;
    if (st == WT_OK)
        st = forward_via_planes(engine, p, img, planes, &pyr);
    if (st == WT_OK)
        st = inverse_via_planes(engine, p, &pyr, planes, back);
    free(planes);
    wt_pyramid_free(&pyr);
    return st;
}

/* wt_roundtrip_image (@p consume 0) and wt_roundtrip_image_consume. */
static wt_status roundtrip(wt_engine *engine, const wt_params *params, wt_image *img,
                           wt_image *back, int consume)
{
    wt_params p = *params;
    wt_pyramid pyr = {0};
    wt_status st = check_roundtrip(&p, img, back);
    if (st != WT_OK)
        return st;
    engine->times.calls++;
    if (engine->ops->roundtrip_image && engine_takes(img)) /* the engine's own path */
        return roundtrip_held(engine, &p, img, back);
    st = wt_pyramid_plan(&pyr, &p, img->height, img->width, img->channels);
    if (st == WT_OK && in_place_for(engine, &pyr))
        return roundtrip_in_place(engine, &p, img, &pyr, back, consume);
    return st == WT_OK ? roundtrip_held(engine, &p, img, back) : st;
}

wt_status wt_roundtrip_image(wt_engine *engine, const wt_params *params, const wt_image *img,
                             wt_image *back)
{
    return roundtrip(engine, params, (wt_image *)img /* read only */, back, 0);
}

wt_status wt_roundtrip_image_consume(wt_engine *engine, const wt_params *params, wt_image *img,
                                     wt_image *back)
{
    wt_status st = roundtrip(engine, params, img, back, 1);
    wt_image_drop_pixels(img);
    return st;
}
