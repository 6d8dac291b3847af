/* PNG decoding with libpng: exact samples (no gamma or colour conversion),
 * limits checked before any large allocation, one message per failure naming
 * the file; the codec's row. Encoding: png_encode.c. */
#include <errno.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "image_codec.h"
#include "input.h"

/* Widest and tallest image libpng may announce; our pixel limit comes after. */
#define PNG_MAX_SIDE WT_MAX_SIDE /* libpng refuses more itself */
/* Slack over the largest zlib stream of an image's data (zlib's deflateBound
 * is the data plus about 1/4096 plus 13 bytes; stored blocks 5 per 64 KiB):
 * more IDAT bytes than that is refused when strict before anything is
 * inflated (a 4x1 image followed by gigabytes of zeros). */
#define IDAT_SLACK (64u << 10)
/* Largest ancillary chunk (or decompressed iCCP/zTXt) libpng may allocate. */
#define PNG_CHUNK_MALLOC_MAX (64u << 20)

/* What the libpng callbacks learned; lives in the caller of setjmp's frame. */
typedef struct png_context {
    const char *name;
    const wt_load_options *opt;
    const uint8_t *data; /* decoding: the whole file */
    size_t size, pos;
    int truncated;       /* the reader ran out of bytes */
    int over_limit;      /* libpng refused a dimension above the user limit */
    int rows_done;       /* all pixels decoded (only trailing chunks left) */
    char error[256];     /* libpng's error message */
    char data_warning[256]; /* first warning about image data (fatal when strict) */
    png_bytep *rows;
    uint8_t *indices;    /* palette images: the indices, looked up afterwards */
} png_context;

static void on_png_error(png_structp png, png_const_charp msg)
{
    png_context *ctx = png_get_error_ptr(png);
    snprintf(ctx->error, sizeof ctx->error, "%s", msg);
    png_longjmp(png, 1);
}

/* Warnings about metadata are harmless; those about the pixel data stream
 * ("IDAT: Too much image data") mean a corrupt file. */
static void on_png_warning(png_structp png, png_const_charp msg)
{
    png_context *ctx = png_get_error_ptr(png);
    if (strstr(msg, "exceeds user limit"))
        ctx->over_limit = 1;
    else if (strncmp(msg, "IDAT", 4) == 0 && !ctx->data_warning[0])
        snprintf(ctx->data_warning, sizeof ctx->data_warning, "%s", msg);
}

static void read_from_memory(png_structp png, png_bytep out, png_size_t length)
{
    png_context *ctx = png_get_io_ptr(png);
    if (length > ctx->size - ctx->pos) {
        ctx->truncated = 1;
        png_error(png, "truncated PNG data");
    }
    memcpy(out, ctx->data + ctx->pos, length);
    ctx->pos += length;
}

/* The status and message of a decode that libpng stopped with png_error. */
static wt_status decode_failure(const png_context *ctx)
{
    if (ctx->rows_done && ctx->opt->lenient) { /* only the chunks after the pixels were bad */
        wt_warning_set("%s: corrupt PNG data after the pixels ignored (--lenient): %s", ctx->name,
                       ctx->error);
        return WT_OK;
    }
    if (ctx->truncated)
        return wt_error_set(WT_ERR_FORMAT, "%s: truncated PNG data", ctx->name);
    if (ctx->over_limit)
        return wt_error_set(WT_ERR_LIMIT,
                            "%s: PNG width and height must be below 2^24 (%u at most)",
                            ctx->name, PNG_MAX_SIDE);
    if (strstr(ctx->error, "ut of memory") || strstr(ctx->error, "nsufficient memory"))
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory decoding PNG", ctx->name);
    return wt_error_set(WT_ERR_FORMAT, "%s: corrupt PNG (%s)", ctx->name, ctx->error);
}

static void set_read_limits(png_structp png)
{
    png_set_user_limits(png, PNG_MAX_SIDE, PNG_MAX_SIDE);
    png_set_chunk_malloc_max(png, PNG_CHUNK_MALLOC_MAX);
    /* Ignore every ancillary chunk (text, ICC, gamma...): no colour management
     * here, and it keeps metadata bombs out. Only IHDR PLTE tRNS IDAT IEND stay. */
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
}

static wt_status check_pixel_limit(const png_context *ctx, uint32_t width, uint32_t height)
{
    return wt_check_dimensions(ctx->name, "PNG", width, height, ctx->opt->max_pixels);
}

/* Expand low-bit gray and tRNS to plain 8/16-bit channels; palette images
 * give one byte per index (expand_palette() looks them up). */
static void set_read_transforms(png_structp png, png_infop info)
{
    int color = png_get_color_type(png, info);
    int depth = png_get_bit_depth(png, info);
    if (color == PNG_COLOR_TYPE_PALETTE && depth < 8)
        png_set_packing(png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (color != PNG_COLOR_TYPE_PALETTE && png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_tRNS_to_alpha(png);
    if (depth == 16 && wt_host_little_endian())
        png_set_swap(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
}

/* Row pointers into the image, or for palette images into ctx->indices. */
static wt_status alloc_rows(png_context *ctx, wt_image *img, size_t rowbytes, int is_palette)
{
    size_t stride = is_palette ? img->width
                               : (size_t)img->width * (size_t)img->channels * (img->bit_depth / 8);
    if (rowbytes != stride)
        return wt_error_set(WT_ERR_FORMAT, "%s: unexpected PNG row layout", ctx->name);
    ctx->rows = malloc((size_t)img->height * sizeof *ctx->rows);
    if (is_palette)
        ctx->indices = malloc(stride * img->height > 0 ? stride * img->height : 1);
    if (!ctx->rows || (is_palette && !ctx->indices))
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", ctx->name);
    uint8_t *base = is_palette ? ctx->indices : img->pixels;
    for (uint32_t y = 0; y < img->height; y++)
        ctx->rows[y] = (png_bytep)base + (size_t)y * stride;
    return WT_OK;
}

/* Palette indices to RGB (RGBA with tRNS), as libpng would (an index past
 * the palette is black, past tRNS opaque); strict decoding refuses an index
 * past the palette (libpng 1.6 does not report it for 8-bit indices). */
static wt_status expand_palette(png_structp png, png_infop info, const png_context *ctx,
                                wt_image *img)
{
    png_colorp colors = NULL;
    png_bytep alpha = NULL;
    int ncolors = 0, nalpha = 0, worst = -1, ch = img->channels;
    png_get_PLTE(png, info, &colors, &ncolors);
    if (png_get_valid(png, info, PNG_INFO_tRNS))
        png_get_tRNS(png, info, &alpha, &nalpha, NULL);
    size_t n = (size_t)img->width * img->height;
    uint8_t *out = img->pixels;
    for (size_t i = 0; i < n; i++, out += ch) {
        int k = ctx->indices[i];
        png_color c = {0, 0, 0};
        if (k < ncolors)
            c = colors[k];
        else if (k > worst)
            worst = k;
        out[0] = c.red;
        out[1] = c.green;
        out[2] = c.blue;
        if (ch == 4)
            out[3] = k < nalpha ? alpha[k] : 255;
    }
    if (worst >= 0 && !ctx->opt->lenient)
        return wt_error_set(WT_ERR_FORMAT, "%s: corrupt PNG (palette index %d past the "
                            "palette's %d entries)", ctx->name, worst, ncolors);
    return WT_OK;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* IDAT payload bytes from the read position on (the chunks walked from the
 * signature; a walk of the file's chunk headers, no inflating). */
static size_t idat_bytes_left(const png_context *ctx)
{
    size_t left = 0;
    for (size_t at = 8; ctx->size >= 12 && at <= ctx->size - 12;) {
        size_t len = be32(ctx->data + at), start = at + 8;
        if (len > ctx->size - start)
            len = ctx->size - start;
        size_t end = start + len;
        if (memcmp(ctx->data + at + 4, "IDAT", 4) == 0 && end > ctx->pos)
            left += end - (ctx->pos > start ? ctx->pos : start);
        if (memcmp(ctx->data + at + 4, "IEND", 4) == 0 || ctx->size - end < 4)
            break;
        at = end + 4;
    }
    return left;
}

/* Most IDAT bytes the image's data can need: its filtered rows (interlaced:
 * at most twice, for the passes' filter bytes), plus 1/16 and IDAT_SLACK. */
static size_t idat_bound(png_structp png, png_infop info)
{
    size_t rows = png_get_image_height(png, info);
    size_t data = rows * (png_get_rowbytes(png, info) + 1);
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE)
        data *= 2;
    return data + data / 16 + IDAT_SLACK;
}

/* Everything libpng can longjmp out of. Only @p ctx and @p img (outside this
 * frame) are changed, so nothing is indeterminate after the longjmp. */
static wt_status decode_guarded(png_structp png, png_infop info, png_context *ctx,
                                wt_image *img)
{
    if (setjmp(png_jmpbuf(png)))
        return decode_failure(ctx);
    set_read_limits(png);
    png_read_info(png, info);
    wt_status st = check_pixel_limit(ctx, png_get_image_width(png, info),
                                     png_get_image_height(png, info));
    if (st != WT_OK)
        return st;
    /* strict: inflating is bounded by the image's size, not the file's */
    if (!ctx->opt->lenient && idat_bytes_left(ctx) > idat_bound(png, info))
        return wt_error_set(WT_ERR_FORMAT, "%s: corrupt PNG (IDAT: Too much image data)",
                            ctx->name);
    int is_palette = png_get_color_type(png, info) == PNG_COLOR_TYPE_PALETTE;
    set_read_transforms(png, info);
    int channels = !is_palette ? png_get_channels(png, info)
                   : png_get_valid(png, info, PNG_INFO_tRNS) ? 4 : 3;
    int depth = is_palette ? 8 : png_get_bit_depth(png, info);
    st = wt_memory_check(ctx->opt, ctx->name, png_get_image_width(png, info),
                         png_get_image_height(png, info), channels);
    if (st == WT_OK)
        st = wt_image_alloc(img, png_get_image_width(png, info),
                            png_get_image_height(png, info), channels, depth);
    if (st == WT_OK)
        st = alloc_rows(ctx, img, png_get_rowbytes(png, info), is_palette);
    if (st != WT_OK)
        return st;
    png_read_image(png, ctx->rows);
    if (is_palette && (st = expand_palette(png, info, ctx, img)) != WT_OK)
        return st;
    ctx->rows_done = 1;
    png_read_end(png, NULL);
    if (ctx->data_warning[0] && !ctx->opt->lenient)
        return wt_error_set(WT_ERR_FORMAT, "%s: corrupt PNG (%s)", ctx->name,
                            ctx->data_warning);
    if (ctx->data_warning[0])
        wt_warning_set("%s: corrupt PNG data recovered (--lenient): %s", ctx->name,
                       ctx->data_warning);
    return WT_OK;
}

wt_status wt_png_decode(const void *data, size_t size, const char *name,
                        const wt_load_options *opt, wt_image *img)
{
    png_context ctx = {.name = name, .opt = opt, .data = data, .size = size};
    memset(img, 0, sizeof *img);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, on_png_error,
                                             on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", name);
    }
    png_set_read_fn(png, &ctx, read_from_memory);
    wt_status st = decode_guarded(png, info, &ctx, img);
    png_destroy_read_struct(&png, &info, NULL);
    free(ctx.rows);
    free(ctx.indices);
    if (st != WT_OK)
        wt_image_free(img);
    return st;
}

static int is_png(const uint8_t *data, size_t size)
{
    static const uint8_t magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    return wt_starts_like(data, size, magic, sizeof magic);
}

/* IHDR: width and height (big-endian) at 16 and 20, colour type at 25. */
static uint64_t png_probe(const uint8_t *head, size_t size, const char *path)
{
    (void)path;
    if (size < 26 || memcmp(head + 12, "IHDR", 4) != 0)
        return 0;
    static const int channels_of_type[7] = {1, 0, 3, 3, 2, 0, 4};
    uint64_t w = (uint64_t)head[16] << 24 | (uint64_t)head[17] << 16 | head[18] << 8 | head[19];
    uint64_t h = (uint64_t)head[20] << 24 | (uint64_t)head[21] << 16 | head[22] << 8 | head[23];
    int type = head[25];
    return type < 7 ? w * h * (uint64_t)channels_of_type[type] : 0;
}

static const char *const png_extensions[] = {"png", NULL};

static const wt_save_option_info png_options[] = {
    {"level", "PNG compression level (deflate)", 0, 9, 1, offsetof(wt_save_options, png_level)},
    {NULL, NULL, 0, 0, 0, 0},
};

const wt_codec wt_codec_png = {
    {"PNG", png_extensions, WT_HOLDS_IMAGE, 1u << 8 | 1u << 16, 4, 0, png_options,
     WT_META_RESOLUTION | WT_META_ICC | WT_META_EXIF | WT_META_XMP | WT_META_TEXT |
         WT_META_DESCRIPTION},
    is_png, 8, wt_png_decode, wt_png_encode, NULL, NULL, NULL, png_probe,
};
