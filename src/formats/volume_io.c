/* Volumes from stacks and back: every page of a multi-page TIFF or a 3-D .npy
 * gathered into (C, z, y, x) float32 planes, checked against the limits
 * before the volume is allocated; written back page by page through the
 * stack writer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image_codec.h"
#include "input.h"
#include "wavetool_hooks.h"

void wt_volume_free(wt_volume *v)
{
    free(v->planes);
    v->planes = NULL;
}

/* The whole volume's limits, from its first page: --max-pixels counts
 * voxels, --max-memory @p per_sample bytes a voxel and channel. */
static wt_status check_limits(const char *name, const wt_load_options *opt, const wt_image *page,
                              size_t pages, wt_volume_need_fn need_fn, void *ctx)
{
    const size_t shape[3] = {pages, page->height, page->width};
    const unsigned per_sample = need_fn(ctx, shape);
    uint64_t max_pixels = opt && opt->max_pixels ? opt->max_pixels : WT_DEFAULT_MAX_PIXELS;
    uint64_t voxels = (uint64_t)page->width * page->height; /* < 2^48 */
    voxels = voxels > UINT64_MAX / pages ? UINT64_MAX : voxels * pages;
    if (voxels > max_pixels)
        return wt_error_set(WT_ERR_LIMIT,
                            "%s: a volume of %ux%ux%zu = %llu voxels, more than the %llu allowed "
                            "(--max-pixels)",
                            name, page->width, page->height, pages, (unsigned long long)voxels,
                            (unsigned long long)max_pixels);
    const uint64_t channels = (uint64_t)page->channels;
    uint64_t need = voxels > UINT64_MAX / channels ? UINT64_MAX : voxels * channels;
    need = need > UINT64_MAX / per_sample ? UINT64_MAX : need * per_sample;
    if (!opt || !opt->max_memory || need <= opt->max_memory)
        return WT_OK;
    return wt_error_set(WT_ERR_LIMIT,
                        "%s: a volume of %ux%ux%zu, %d channel%s, needs about %.1f MiB, more "
                        "than the %.1f MiB allowed (--max-memory)",
                        name, page->width, page->height, pages, page->channels,
                        page->channels == 1 ? "" : "s", (double)need / 1048576.0,
                        (double)opt->max_memory / 1048576.0);
}

/* Page @p k's planes into the volume's: channel c of page k at
 * planes + (c z + k) y x. */
static wt_status scatter_page(wt_volume *v, const wt_image *page, size_t k, float *scratch)
{
    const size_t plane = v->shape[1] * v->shape[2];
    wt_status st = wt_image_to_planes(page, scratch);
    for (int c = 0; st == WT_OK && c < v->channels; c++)
        memcpy(v->planes + ((size_t)c * v->shape[0] + k) * plane, scratch + (size_t)c * plane,
               plane * sizeof *scratch);
    return st;
}

static void describe(wt_volume *v, const wt_image *page, size_t pages)
{
    v->shape[0] = pages;
    v->shape[1] = page->height;
    v->shape[2] = page->width;
    v->channels = page->channels;
    v->bit_depth = page->bit_depth;
    v->color = page->color;
    v->stored = page->stored;
}

static wt_status read_pages(wt_stack *s, const char *name, const wt_load_options *opt,
                            wt_volume_need_fn need, void *ctx, wt_volume *v)
{
    const size_t pages = wt_stack_pages(s);
    wt_image page = {0};
    wt_status st = wt_stack_read(s, 0, &page);
    if (st == WT_OK)
        st = check_limits(name, opt, &page, pages, need, ctx);
    if (st != WT_OK) {
        wt_image_free(&page);
        return st;
    }
    describe(v, &page, pages);
    const size_t plane = (size_t)page.width * page.height * (size_t)page.channels;
    if (pages > SIZE_MAX / sizeof(float) / plane) { /* past --max-pixels near 2^63 */
        wt_image_free(&page);
        return wt_error_set(WT_ERR_LIMIT, "%s: a volume of %zu pages too large to address",
                            name, pages);
    }
    float *scratch = malloc(plane * sizeof *scratch);
    v->planes = scratch ? malloc(plane * pages * sizeof *v->planes) : NULL;
    if (!v->planes)
        st = wt_error_set(WT_ERR_NOMEM, "%s: out of memory for a volume of %zu MiB", name,
                          plane * pages * sizeof(float) >> 20);
    for (size_t k = 0; st == WT_OK && k < pages; k++) {
        if (k)
            st = wt_stack_read(s, k, &page);
        if (st == WT_OK && (page.bit_depth != v->bit_depth || page.color != v->color))
            st = wt_error_set(WT_ERR_FORMAT, "%s: page %zu: its samples differ from page 0's",
                              name, k);
        if (st == WT_OK)
            st = scatter_page(v, &page, k, scratch);
        wt_image_free(&page);
    }
    wt_image_free(&page);
    free(scratch);
    if (st != WT_OK)
        wt_volume_free(v);
    return st;
}

wt_status wt_volume_load(const char *path, const wt_load_options *opt, wt_volume_need_fn need,
                         void *ctx, wt_volume *v)
{
    memset(v, 0, sizeof *v);
    wt_load_options o = opt ? *opt : (wt_load_options){0};
    if (o.stack == WT_STACK_AUTO) /* a 3-D .npy is (z, y, x) */
        o.stack = WT_STACK_FIRST;
    wt_stack *s = NULL;
    wt_status st = wt_stack_open(path, &o, &s);
    const char *name = strcmp(path, "-") == 0 ? "(stdin)" : path;
    if (st == WT_OK)
        st = read_pages(s, name, &o, need, ctx, v);
    wt_stack_close(s);
    return st;
}

/* Page @p k of @p v into @p page (allocated like it). */
static void gather_page(const wt_volume *v, size_t k, float *scratch, wt_image *page)
{
    const size_t plane = v->shape[1] * v->shape[2];
    for (int c = 0; c < v->channels; c++)
        memcpy(scratch + (size_t)c * plane, v->planes + ((size_t)c * v->shape[0] + k) * plane,
               plane * sizeof *scratch);
    wt_image_from_planes(page, scratch);
}

wt_status wt_volume_save(const char *path, wt_file_format format, const wt_volume *v)
{
    if (v->shape[1] > WT_MAX_SIDE || v->shape[2] > WT_MAX_SIDE)
        return wt_error_set(WT_ERR_LIMIT, "%s: pages of %zux%zu", path, v->shape[2], v->shape[1]);
    wt_image page = {0};
    wt_stack_writer *w = NULL;
    float *scratch = malloc(v->shape[1] * v->shape[2] * (size_t)v->channels * sizeof *scratch);
    wt_status st = scratch ? wt_image_alloc(&page, (uint32_t)v->shape[2], (uint32_t)v->shape[1],
                                            v->channels, v->bit_depth)
                           : wt_error_set(WT_ERR_NOMEM, "%s: out of memory", path);
    if (st == WT_OK) {
        page.color = v->color;
        page.stored = v->stored;
        st = wt_stack_writer_open(path, format, v->shape[0], &w);
    }
    for (size_t k = 0; st == WT_OK && k < v->shape[0]; k++) {
        gather_page(v, k, scratch, &page);
        st = wt_stack_writer_add(w, &page);
    }
    if (st == WT_OK)
        st = wt_stack_writer_commit(w);
    else
        wt_stack_writer_abort(w);
    wt_image_free(&page);
    free(scratch);
    return st;
}
