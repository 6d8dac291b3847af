/* Decoded images: allocation and conversion to and from float planes. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wavetool.h"

size_t wt_image_bytes(const wt_image *img)
{
    size_t bps = img->bit_depth > 8 ? 2 : 1;
    size_t n = (size_t)img->width;
    if (img->height && n > SIZE_MAX / img->height)
        return 0;
    n *= img->height;
    if ((size_t)img->channels && n > SIZE_MAX / ((size_t)img->channels * bps))
        return 0;
    return n * (size_t)img->channels * bps;
}

wt_status wt_image_alloc(wt_image *img, uint32_t width, uint32_t height, int channels,
                         int bit_depth)
{
    memset(img, 0, sizeof *img);
    if (channels < 1 || channels > 4 || (bit_depth != 8 && bit_depth != 16))
        return wt_error_set(WT_ERR_INVALID, "unsupported image layout (%d channels, %d-bit)",
                            channels, bit_depth);
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->bit_depth = bit_depth;
    img->color = (wt_color)channels;
    size_t bytes = wt_image_bytes(img);
    if (!bytes && width && height)
        return wt_error_set(WT_ERR_LIMIT, "image of %ux%u is too large", width, height);
    img->pixels = calloc(bytes ? bytes : 1, 1);
    if (!img->pixels)
        return wt_error_set(WT_ERR_NOMEM, "out of memory for a %ux%u image", width, height);
    return WT_OK;
}

wt_status wt_memory_check(const wt_load_options *opt, const char *name, uint32_t width,
                          uint32_t height, int channels)
{
    /* each factor < 2^32, channels <= 4, 20: no overflow in 64 bits below 2^32 */
    uint64_t need = (uint64_t)width * height * (uint64_t)(channels > 0 ? channels : 1);
    need = need > UINT64_MAX / WT_MEMORY_PER_SAMPLE ? UINT64_MAX : need * WT_MEMORY_PER_SAMPLE;
    if (!opt || !opt->max_memory || need <= opt->max_memory)
        return WT_OK;
    return wt_error_set(WT_ERR_LIMIT,
                        "%s: a %ux%u image of %d channel%s needs about %llu MiB, more than the "
                        "%llu MiB allowed (--max-memory)",
                        name, width, height, channels, channels == 1 ? "" : "s",
                        (unsigned long long)(need >> 20),
                        (unsigned long long)(opt->max_memory >> 20));
}

void wt_image_free(wt_image *img)
{
    free(img->pixels);
    img->pixels = NULL;
}

/* One pass over the interleaved samples, writing every plane (one pass per
 * plane read the image c times). */
#define DEFINE_TO_PLANES(NAME, T)                                                              \
    static void NAME(const T *s, size_t n, int c, float *planes)                               \
    {                                                                                          \
        float *p0 = planes, *p1 = planes + n, *p2 = planes + 2 * n, *p3 = planes + 3 * n;      \
        switch (c) {                                                                           \
        case 1:                                                                                \
            for (size_t i = 0; i < n; i++)                                                     \
                p0[i] = (float)s[i];                                                           \
            break;                                                                             \
        case 2:                                                                                \
            for (size_t i = 0; i < n; i++) {                                                   \
                p0[i] = (float)s[2 * i];                                                       \
                p1[i] = (float)s[2 * i + 1];                                                   \
            }                                                                                  \
            break;                                                                             \
        case 3:                                                                                \
            for (size_t i = 0; i < n; i++) {                                                   \
                p0[i] = (float)s[3 * i];                                                       \
                p1[i] = (float)s[3 * i + 1];                                                   \
                p2[i] = (float)s[3 * i + 2];                                                   \
            }                                                                                  \
            break;                                                                             \
        default:                                                                               \
            for (size_t i = 0; i < n; i++) {                                                   \
                p0[i] = (float)s[4 * i];                                                       \
                p1[i] = (float)s[4 * i + 1];                                                   \
                p2[i] = (float)s[4 * i + 2];                                                   \
                p3[i] = (float)s[4 * i + 3];                                                   \
            }                                                                                  \
        }                                                                                      \
    }
DEFINE_TO_PLANES(planes_from_u8, uint8_t)
DEFINE_TO_PLANES(planes_from_u16, uint16_t)
#undef DEFINE_TO_PLANES

wt_status wt_image_to_planes(const wt_image *img, float *planes)
{
    size_t n = (size_t)img->width * img->height;
    if (img->channels < 1 || img->channels > 4)
        return wt_error_set(WT_ERR_INVALID, "unsupported image layout (%d channels)",
                            img->channels);
    if (img->bit_depth > 8)
        planes_from_u16(img->pixels, n, img->channels, planes);
    else
        planes_from_u8(img->pixels, n, img->channels, planes);
    return WT_OK;
}

void wt_image_from_planes(wt_image *img, const float *planes)
{
    size_t n = (size_t)img->width * img->height;
    int c = img->channels;
    float peak = img->bit_depth > 8 ? 65535.0f : 255.0f;
    for (int ch = 0; ch < c; ch++)
        for (size_t i = 0; i < n; i++) {
            float v = planes[(size_t)ch * n + i];
            v = isnan(v) ? 0.0f : v;
            v = v < 0.0f ? 0.0f : (v > peak ? peak : v);
            long r = lrintf(v);
            if (img->bit_depth > 8)
                ((uint16_t *)img->pixels)[i * (size_t)c + (size_t)ch] = (uint16_t)r;
            else
                ((uint8_t *)img->pixels)[i * (size_t)c + (size_t)ch] = (uint8_t)r;
        }
}
