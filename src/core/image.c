/* Decoded images: allocation and conversion to and from float planes. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "dwt_line.h" /* WT_BATCH */
#include "image_codec.h"
#include "wavetool_hooks.h" /* wt_cpu_reference */

/* Bytes of one held sample: 1, 2 or 4 (float32). */
static size_t sample_bytes(int bit_depth)
{
    return bit_depth == WT_DEPTH_F32 ? 4 : bit_depth > 8 ? 2 : 1;
}

size_t wt_image_bytes(const wt_image *img)
{
    size_t bps = sample_bytes(img->bit_depth);
    size_t n = (size_t)img->width;
    if (img->height && n > SIZE_MAX / img->height)
        return 0;
    n *= img->height;
    if ((size_t)img->channels && n > SIZE_MAX / ((size_t)img->channels * bps))
        return 0;
    return n * (size_t)img->channels * bps;
}

/* wt_image_alloc, the pixels zeroed or not; in @p room (not zeroed) when
 * it is given and can hold them, else malloc'd (a room that cannot grow is
 * no error). */
static wt_status image_alloc(wt_image *img, uint32_t width, uint32_t height, int channels,
                             int bit_depth, int zeroed, wt_pixel_room *room)
{
    memset(img, 0, sizeof *img);
    if (channels < 1 || channels > WT_MAX_CHANNELS ||
        (bit_depth != 8 && bit_depth != 16 && bit_depth != WT_DEPTH_F32))
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
    if (room && room->reserve && room->reserve(room, bytes ? bytes : 1)) {
        img->pixels = room->data;
        img->room = room;
        return WT_OK;
    }
    img->pixels = zeroed ? calloc(bytes ? bytes : 1, 1) : malloc(bytes ? bytes : 1);
    if (!img->pixels)
        return wt_error_set(WT_ERR_NOMEM, "out of memory for a %ux%u image", width, height);
    return WT_OK;
}

wt_status wt_image_alloc(wt_image *img, uint32_t width, uint32_t height, int channels,
                         int bit_depth)
{
    return image_alloc(img, width, height, channels, bit_depth, 1, NULL);
}

wt_status wt_image_alloc_unset(wt_image *img, uint32_t width, uint32_t height, int channels,
                               int bit_depth)
{
    return image_alloc(img, width, height, channels, bit_depth, 0, NULL);
}

/* ---- sample types ------------------------------------------------------- */

wt_sample_type wt_image_stored(const wt_image *img)
{
    if (img->stored.bits)
        return img->stored;
    if (img->bit_depth == WT_DEPTH_F32)
        return (wt_sample_type){WT_SAMPLE_FLOAT, 32};
    return (wt_sample_type){WT_SAMPLE_UINT, img->bit_depth > 8 ? 16 : 8};
}

const char *wt_sample_type_name(wt_sample_type type, char *buf, size_t size)
{
    static const char *const kinds[] = {"uint", "int", "float"};
    snprintf(buf, size, "%s%d", (unsigned)type.kind <= WT_SAMPLE_FLOAT ? kinds[type.kind] : "?",
             type.bits);
    return buf;
}

int wt_sample_type_is_exact(wt_sample_type type)
{
    return type.kind == WT_SAMPLE_UINT && (type.bits == 8 || type.bits == 16);
}

int wt_sample_type_depth(wt_sample_type type)
{
    return wt_sample_type_is_exact(type) ? type.bits : WT_DEPTH_F32;
}

double wt_sample_clamp(wt_sample_type type, double v)
{
    if (type.kind == WT_SAMPLE_FLOAT)
        return v;
    if (isnan(v))
        return 0.0;
    int bits = type.bits < 1 ? 1 : type.bits > 32 ? 32 : type.bits;
    double lo = type.kind == WT_SAMPLE_INT ? -ldexp(1.0, bits - 1) : 0.0;
    double hi = type.kind == WT_SAMPLE_INT ? ldexp(1.0, bits - 1) - 1.0 : ldexp(1.0, bits) - 1.0;
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

wt_status wt_image_convert(const wt_image *src, wt_sample_type type, wt_image *dst)
{
    size_t n = (size_t)src->width * src->height;
    float *planes = malloc((n ? n : 1) * (size_t)src->channels * sizeof *planes);
    wt_status st = planes ? wt_image_alloc(dst, src->width, src->height, src->channels,
                                           wt_sample_type_depth(type))
                          : wt_error_set(WT_ERR_NOMEM, "out of memory for a %ux%u image",
                                         src->width, src->height);
    if (st == WT_OK) {
        dst->color = src->color;
        dst->stored = dst->bit_depth == WT_DEPTH_F32 ? type : (wt_sample_type){0, 0};
        wt_image_share_meta(dst, src);
        st = wt_image_to_planes(src, planes);
    }
    if (st == WT_OK)
        wt_image_from_planes(dst, planes);
    else if (planes)
        wt_image_free(dst);
    free(planes);
    return st;
}

wt_status wt_memory_check(const wt_load_options *opt, const char *name, uint32_t width,
                          uint32_t height, int channels)
{
    return wt_memory_check_samples(opt, name, width, height, channels, WT_MEMORY_PER_SAMPLE);
}

/* The CPU engine's line buffers where they are not small beside the image: a
 * pass over fewer than WT_BATCH lines (1xN, Nx1) has one line of the long
 * side per channel at a time, with its scratch (dwt_line.c: 8 + 48 bytes a
 * sample, allocated). Larger images share out WT_BATCH lines a batch. */
static uint64_t thin_line_bytes(uint32_t width, uint32_t height, int channels)
{
    uint32_t shorter = width < height ? width : height, longer = width ^ height ^ shorter;
    return shorter < WT_BATCH ? (uint64_t)longer * 56 * (uint64_t)channels : 0;
}

wt_status wt_memory_check_samples(const wt_load_options *opt, const char *name, uint32_t width,
                                  uint32_t height, int channels, unsigned per_sample)
{
    /* each factor < 2^32, channels <= WT_MAX_CHANNELS: the product saturates, never wraps */
    uint64_t need = (uint64_t)width * height * (uint64_t)(channels > 0 ? channels : 1);
    need = need > UINT64_MAX / per_sample ? UINT64_MAX : need * per_sample;
    uint64_t lines = thin_line_bytes(width, height, channels > 0 ? channels : 1);
    need = need > UINT64_MAX - lines ? UINT64_MAX : need + lines;
    if (!opt || !opt->max_memory || need <= opt->max_memory)
        return WT_OK;
    return wt_error_set(WT_ERR_LIMIT,
                        "%s: a %ux%u image of %d channel%s needs about %llu MiB, more than the "
                        "%llu MiB allowed (--max-memory)",
                        name, width, height, channels, channels == 1 ? "" : "s",
                        (unsigned long long)(need >> 20),
                        (unsigned long long)(opt->max_memory >> 20));
}

void wt_image_meta_release(wt_image_meta *m)
{
    if (m && --m->refs == 0) {
        free(m->icc);
        free(m->exif);
        free(m->xmp);
        free(m->text);
        free(m->description);
        free(m);
    }
}

void wt_image_share_meta(wt_image *to, const wt_image *from)
{
    if (to->meta == from->meta)
        return;
    wt_image_meta_release(to->meta);
    to->meta = from->meta;
    if (to->meta)
        to->meta->refs++;
}

wt_status wt_image_alloc_in(wt_image *img, wt_pixel_room *room, uint32_t width, uint32_t height,
                            int channels, int bit_depth)
{
    return image_alloc(img, width, height, channels, bit_depth, 0, room);
}

void wt_image_drop_pixels(wt_image *img)
{
    if (!img->room)
        free(img->pixels);
    img->pixels = NULL;
    img->room = NULL;
}

void wt_image_free(wt_image *img)
{
    wt_image_drop_pixels(img);
    wt_image_meta_release(img->meta);
    img->meta = NULL;
}

/* One pass over the interleaved samples, writing every plane (one pass per
 * plane read the image c times); more than 4 channels: plane by plane. */
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
        case 4:                                                                                \
            for (size_t i = 0; i < n; i++) {                                                   \
                p0[i] = (float)s[4 * i];                                                       \
                p1[i] = (float)s[4 * i + 1];                                                   \
                p2[i] = (float)s[4 * i + 2];                                                   \
                p3[i] = (float)s[4 * i + 3];                                                   \
            }                                                                                  \
            break;                                                                             \
        default:                                                                               \
            for (int ch = 0; ch < c; ch++)                                                     \
                for (size_t i = 0; i < n; i++)                                                 \
                    planes[(size_t)ch * n + i] = (float)s[i * (size_t)c + (size_t)ch];        \
        }                                                                                      \
    }
DEFINE_TO_PLANES(planes_from_u8, uint8_t)
DEFINE_TO_PLANES(planes_from_u16, uint16_t)
DEFINE_TO_PLANES(planes_from_f32, float)
#undef DEFINE_TO_PLANES

wt_status wt_image_to_planes(const wt_image *img, float *planes)
{
    size_t n = (size_t)img->width * img->height;
    if (img->channels < 1 || img->channels > WT_MAX_CHANNELS)
        return wt_error_set(WT_ERR_INVALID, "unsupported image layout (%d channels)",
                            img->channels);
    if (img->bit_depth == WT_DEPTH_F32)
        planes_from_f32(img->pixels, n, img->channels, planes);
    else if (img->bit_depth > 8)
        planes_from_u16(img->pixels, n, img->channels, planes);
    else
        planes_from_u8(img->pixels, n, img->channels, planes);
    return WT_OK;
}

/* Float planes into a float32 image, rounded and clamped when its stored type
 * is an integer type. */
static void float_from_planes(wt_image *img, const float *planes)
{
    size_t n = (size_t)img->width * img->height, c = (size_t)img->channels;
    wt_sample_type t = wt_image_stored(img);
    float *px = img->pixels;
    for (size_t ch = 0; ch < c; ch++)
        for (size_t i = 0; i < n; i++) {
            float v = planes[ch * n + i];
            px[i * c + ch] = t.kind == WT_SAMPLE_FLOAT ? v : (float)wt_sample_clamp(t, v);
        }
}

/* @p v clipped to [0, peak] (NaN: 0) and rounded half to even: lrintf's
 * value in the default rounding mode, without a call, so that the loops
 * below vectorise (adding 2^23 rounds a float of [0, 2^23) to an integer,
 * ties to even; subtracting it again is exact). */
static inline float clip_round(float v, float peak)
{
    v = v > 0.0f ? v : 0.0f; /* NaN too */
    v = v < peak ? v : peak;
    return (v + 0x1.0p23f) - 0x1.0p23f;
}

/* Pixels a block of the conversion below converts per channel at once. */
#define FROM_PLANES_BLOCK 256

/* clip_round of @p m values into @p q. GCC does not vectorise the clip
 * against constant bounds (it keeps a branch), so x86 has it in SSE2:
 * maxps gives its second operand for NaN, cvtps2dq rounds in the current
 * mode (to nearest, ties to even), as lrintf. */
static void round_block(const float *p, size_t m, float peak, int32_t *q)
{
    size_t i = 0;
#if defined(__SSE2__)
    const __m128 zero = _mm_setzero_ps(), top = _mm_set1_ps(peak);
    size_t vector_end = wt_cpu_reference() ? 0 : m - m % 4;
    for (; i < vector_end; i += 4) {
        __m128 v = _mm_min_ps(_mm_max_ps(_mm_loadu_ps(p + i), zero), top);
        _mm_storeu_si128((__m128i *)(void *)(q + i), _mm_cvtps_epi32(v));
    }
#endif
    for (; i < m; i++)
        q[i] = (int32_t)clip_round(p[i], peak);
}

/* Float planes into interleaved samples, a block of pixels at a time: each
 * channel's values rounded into a small array (a loop the compiler
 * vectorises), then stored at their interleaved places. */
#define DEFINE_FROM_PLANES(NAME, T)                                                            \
    static void NAME(const float *planes, size_t n, int c, float peak, T *s)                   \
    {                                                                                          \
        int32_t q[FROM_PLANES_BLOCK];                                                          \
        for (size_t b = 0; b < n; b += FROM_PLANES_BLOCK) {                                    \
            size_t m = n - b < FROM_PLANES_BLOCK ? n - b : FROM_PLANES_BLOCK;                  \
            for (int ch = 0; ch < c; ch++) {                                                   \
                const float *p = planes + (size_t)ch * n + b;                                  \
                T *o = s + b * (size_t)c + (size_t)ch;                                         \
                round_block(p, m, peak, q);                                                    \
                for (size_t i = 0; i < m; i++)                                                 \
                    o[i * (size_t)c] = (T)q[i];                                                \
            }                                                                                  \
        }                                                                                      \
    }
DEFINE_FROM_PLANES(u8_from_planes, uint8_t)
DEFINE_FROM_PLANES(u16_from_planes, uint16_t)
#undef DEFINE_FROM_PLANES

void wt_image_from_planes(wt_image *img, const float *planes)
{
    size_t n = (size_t)img->width * img->height;
    if (img->bit_depth == WT_DEPTH_F32)
        float_from_planes(img, planes);
    else if (img->bit_depth > 8)
        u16_from_planes(planes, n, img->channels, 65535.0f, img->pixels);
    else
        u8_from_planes(planes, n, img->channels, 255.0f, img->pixels);
}

/* ---- samples as the codecs store them ------------------------------------- */

int wt_sample_type_known(wt_sample_type t)
{
    switch (t.kind) {
    case WT_SAMPLE_UINT:
    case WT_SAMPLE_INT: return t.bits == 8 || t.bits == 16 || t.bits == 32;
    case WT_SAMPLE_FLOAT: return t.bits == 32 || t.bits == 64;
    }
    return 0;
}

/* @p n bytes from @p p into @p out in host order. */
static void load_bytes(const uint8_t *p, size_t n, int swap, void *out)
{
    uint8_t *o = out;
    for (size_t k = 0; k < n; k++)
        o[k] = swap ? p[n - 1 - k] : p[k];
}

/* One sample of any stored type. */
typedef union sample_bits {
    uint8_t u8;
    int8_t i8;
    uint16_t u16;
    int16_t i16;
    uint32_t u32;
    int32_t i32;
    float f32;
    double f64;
} sample_bits;

double wt_sample_load(const uint8_t *p, wt_sample_type t, int swap)
{
    sample_bits v;
    load_bytes(p, (size_t)t.bits / 8, swap, &v);
    if (t.kind == WT_SAMPLE_FLOAT)
        return t.bits == 64 ? v.f64 : (double)v.f32;
    if (t.kind == WT_SAMPLE_INT)
        return t.bits == 8 ? v.i8 : t.bits == 16 ? v.i16 : (double)v.i32;
    return t.bits == 8 ? v.u8 : t.bits == 16 ? v.u16 : (double)v.u32;
}

void wt_sample_store(uint8_t *p, wt_sample_type t, int swap, double x)
{
    sample_bits v;
    if (t.kind == WT_SAMPLE_FLOAT && t.bits == 64)
        v.f64 = x;
    else if (t.kind == WT_SAMPLE_FLOAT)
        v.f32 = (float)x;
    else if (t.kind == WT_SAMPLE_INT && t.bits == 8)
        v.i8 = (int8_t)x;
    else if (t.kind == WT_SAMPLE_INT && t.bits == 16)
        v.i16 = (int16_t)x;
    else if (t.kind == WT_SAMPLE_INT)
        v.i32 = (int32_t)x;
    else if (t.bits == 8)
        v.u8 = (uint8_t)x;
    else if (t.bits == 16)
        v.u16 = (uint16_t)x;
    else
        v.u32 = (uint32_t)x;
    load_bytes((const uint8_t *)&v, (size_t)t.bits / 8, swap, p);
}

double wt_image_sample(const wt_image *img, size_t i)
{
    if (img->bit_depth == WT_DEPTH_F32)
        return ((const float *)img->pixels)[i];
    return img->bit_depth > 8 ? ((const uint16_t *)img->pixels)[i]
                              : ((const uint8_t *)img->pixels)[i];
}

void wt_image_set_sample(wt_image *img, size_t i, double v)
{
    if (img->bit_depth == WT_DEPTH_F32)
        ((float *)img->pixels)[i] = (float)v;
    else if (img->bit_depth > 8)
        ((uint16_t *)img->pixels)[i] = (uint16_t)v;
    else
        ((uint8_t *)img->pixels)[i] = (uint8_t)v;
}

void wt_image_store_row(const wt_image *img, wt_sample_type t, int swap, uint32_t y, uint8_t *row)
{
    size_t per_row = (size_t)img->width * (size_t)img->channels, item = (size_t)t.bits / 8;
    for (size_t i = 0; i < per_row; i++)
        wt_sample_store(row + i * item, t, swap,
                        wt_sample_clamp(t, wt_image_sample(img, (size_t)y * per_row + i)));
}

wt_status wt_image_check_writable(const wt_image *img, const char *name, const char *format)
{
    if (img->channels < 1 || img->channels > WT_MAX_CHANNELS ||
        !wt_sample_type_known(wt_image_stored(img)) ||
        (img->bit_depth != 8 && img->bit_depth != 16 && img->bit_depth != WT_DEPTH_F32))
        return wt_error_set(WT_ERR_INVALID, "%s: cannot write %d channels of %d bits as %s", name,
                            img->channels, img->bit_depth, format);
    return WT_OK;
}
