/* Strided views and their lines along an axis (see axis_view.h). */
#include "axis_view.h"

#include <stdint.h>
#include <string.h>

wt_array_view wt_view_dense(void *data, wt_dtype dtype, int channels, int rank,
                            const size_t *shape)
{
    wt_array_view v = {data, dtype, rank, channels, {0}, {0}, 0};
    ptrdiff_t stride = 1;
    for (int k = rank - 1; k >= 0; k--) {
        v.shape[k] = shape[k];
        v.strides[k] = stride;
        stride *= (ptrdiff_t)shape[k];
    }
    v.channel_stride = stride;
    return v;
}

wt_array_view wt_view_image(void *data, wt_dtype dtype, int channels, size_t h, size_t w)
{
    const size_t shape[2] = {h, w};
    return wt_view_dense(data, dtype, channels, 2, shape);
}

wt_array_view wt_pyramid_band_view(const wt_pyramid *p, int level, wt_band b, void *data)
{
    size_t h, w;
    wt_pyramid_band_shape(p, level, b, &h, &w);
    if (!data)
        data = (uint32_t *)p->data + wt_pyramid_offset(p, level, b, 0);
    return wt_view_image(data, p->dtype, p->channels, h, w);
}

size_t wt_view_span(const wt_array_view *v)
{
    ptrdiff_t last = (ptrdiff_t)(v->channels - 1) * v->channel_stride;
    for (int k = 0; k < v->rank; k++) {
        if (v->shape[k] == 0)
            return 0;
        last += (ptrdiff_t)(v->shape[k] - 1) * v->strides[k];
    }
    return v->channels > 0 ? (size_t)last + 1 : 0;
}

static ptrdiff_t abs_stride(ptrdiff_t s)
{
    return s < 0 ? -s : s;
}

wt_axis_walk wt_axis_walk_of(const wt_array_view *v, int axis)
{
    wt_axis_walk w = {axis, -1, v->shape[axis], 1, (size_t)v->channels};
    for (int k = 0; k < v->rank; k++)
        if (k != axis && (w.inner < 0 || abs_stride(v->strides[k]) <= abs_stride(v->strides[w.inner])))
            w.inner = k;
    if (w.inner >= 0)
        w.nlines = v->shape[w.inner];
    for (int k = 0; k < v->rank; k++)
        if (k != axis && k != w.inner)
            w.nblocks *= v->shape[k];
    return w;
}

ptrdiff_t wt_axis_block_offset(const wt_array_view *v, const wt_axis_walk *walk, size_t block)
{
    ptrdiff_t offset = 0;
    for (int k = v->rank - 1; k >= 0; k--) { /* the last remaining axis varies fastest */
        if (k == walk->axis || k == walk->inner)
            continue;
        offset += (ptrdiff_t)(block % v->shape[k]) * v->strides[k];
        block /= v->shape[k];
    }
    return offset + (ptrdiff_t)block * v->channel_stride;
}

wt_lines wt_axis_block(const wt_array_view *v, const wt_axis_walk *walk, size_t block)
{
    ptrdiff_t offset = wt_axis_block_offset(v, walk, block);
    ptrdiff_t line_step = walk->inner < 0 ? 0 : v->strides[walk->inner];
    return (wt_lines){(uint32_t *)v->data + offset, line_step, v->strides[walk->axis]};
}

/* float -> int32 as the GPU converts (cvt.rzi.s32.f32): toward zero,
 * saturated to int32's range, NaN 0. A plain cast of a float sample beyond
 * int32 (a float32 image with legall53) is undefined behaviour (fuzz_cli,
 * UBSan: 4.08e9). */
static int32_t float_to_i32_sat(float x)
{
    if (x != x)
        return 0;
    if (x >= 2147483648.0f)
        return INT32_MAX;
    if (x <= -2147483648.0f)
        return INT32_MIN;
    return (int32_t)x;
}

void wt_convert_samples(void *dst, int dst_int, const void *src, int src_int, size_t n)
{
    if (dst_int == src_int) {
        memcpy(dst, src, n * 4);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (dst_int)
            ((int32_t *)dst)[i] = float_to_i32_sat(((const float *)src)[i]);
        else
            ((float *)dst)[i] = (float)((const int32_t *)src)[i];
}
