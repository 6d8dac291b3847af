/* JPEG decoding and encoding with libjpeg(-turbo).
 * Policy: strict by default. libjpeg only *warns* about corrupt or truncated
 * data and then invents pixels; wavetool refuses such files unless the caller
 * asks for leniency. CMYK/YCCK and 12-bit JPEGs are refused as unsupported. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

#include "image_codec.h"
#include "image_meta.h"
#include "input.h"

/* Error manager with what wavetool needs to report; libjpeg's callbacks get
 * it back from cinfo->err. */
typedef struct jpeg_context {
    struct jpeg_error_mgr mgr;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    const char *name;
    int lenient;
    int max_scans;
    int rows_done;     /* all scanlines read (only the trailer was left) */
    int encoding;      /* errors are the encoder's, not the file's */
    wt_status status;  /* set (with the message) before each longjmp */
    FILE *fp;          /* encoding */
    JSAMPLE *row;      /* encoding: one row without alpha */
} jpeg_context;

/* libjpeg's text without its "Corrupt JPEG data: " prefix. */
static void jpeg_text(j_common_ptr cinfo, char *buf)
{
    static const char prefix[] = "Corrupt JPEG data: ";
    char msg[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, msg);
    const char *text = strncmp(msg, prefix, sizeof prefix - 1) == 0 ? msg + sizeof prefix - 1 : msg;
    snprintf(buf, JMSG_LENGTH_MAX, "%s", text);
}

/* Whether the current message is the one whose format string starts with
 * @p start. Messages are told apart by the library's own text, not by the
 * JERR_/JWRN_ numbers of the headers: those numbers depend on how the library
 * was configured (libjpeg-turbo's jpeg6b and jpeg8 APIs number them
 * differently), and a header of one with a library of the other would mistake
 * one message for another. */
static int message_is(j_common_ptr cinfo, const char *start)
{
    const struct jpeg_error_mgr *err = cinfo->err;
    int code = err->msg_code;
    if (code <= 0 || code > err->last_jpeg_message || !err->jpeg_message_table[code])
        return 0;
    return strncmp(err->jpeg_message_table[code], start, strlen(start)) == 0;
}

static wt_status error_status(j_common_ptr cinfo, jpeg_context *ctx, const char *text)
{
    if (message_is(cinfo, "Unsupported JPEG data precision"))
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: unsupported precision (%d-bit JPEG)",
                            ctx->name, cinfo->err->msg_parm.i[0]);
    if (message_is(cinfo, "Unsupported JPEG process") ||
        message_is(cinfo, "Requested feature was omitted at compile time"))
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: unsupported JPEG (%s)", ctx->name, text);
    if (message_is(cinfo, "Insufficient memory"))
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory decoding JPEG", ctx->name);
    if (message_is(cinfo, "Output file write error"))
        return wt_error_set(WT_ERR_IO, "%s: %s", ctx->name, strerror(errno ? errno : EIO));
    if (ctx->encoding)
        return wt_error_set(WT_ERR_INVALID, "%s: JPEG encoder failed (%s)", ctx->name, text);
    return wt_error_set(WT_ERR_FORMAT, "%s: corrupt JPEG (%s)", ctx->name, text);
}

static void on_jpeg_error(j_common_ptr cinfo)
{
    jpeg_context *ctx = (jpeg_context *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    jpeg_text(cinfo, text);
    ctx->status = error_status(cinfo, ctx, text);
    longjmp(ctx->jump, 1);
}

/* Warnings that say nothing about the pixels. */
static int harmless_warning(j_common_ptr cinfo)
{
    return message_is(cinfo, "Warning: unknown JFIF revision number") ||
           message_is(cinfo, "Unknown Adobe color transform code");
}

/* Level -1 is a warning (libjpeg carries on with made-up data); trace
 * messages (level >= 0) are ignored. */
static void on_jpeg_message(j_common_ptr cinfo, int level)
{
    jpeg_context *ctx = (jpeg_context *)cinfo->err;
    if (level >= 0 || ctx->encoding || harmless_warning(cinfo))
        return;
    if (ctx->lenient) { /* libjpeg goes on with made-up data: say so */
        char text[JMSG_LENGTH_MAX];
        jpeg_text(cinfo, text);
        wt_warning_set("%s: corrupt JPEG data recovered (--lenient): %s", ctx->name, text);
        return;
    }
    if (message_is(cinfo, "Premature end of JPEG file")) {
        ctx->status = wt_error_set(WT_ERR_FORMAT, "%s: truncated JPEG data", ctx->name);
    } else {
        char text[JMSG_LENGTH_MAX];
        jpeg_text(cinfo, text);
        ctx->status = wt_error_set(WT_ERR_FORMAT, "%s: corrupt JPEG (%s)", ctx->name, text);
    }
    longjmp(ctx->jump, 1);
}

/* Called while libjpeg reads input: a progressive file may carry thousands of
 * scans, each one a pass over the whole coefficient buffer. */
static void on_jpeg_progress(j_common_ptr cinfo)
{
    jpeg_context *ctx = (jpeg_context *)cinfo->err;
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (cinfo->is_decompressor && d->input_scan_number > ctx->max_scans) {
        ctx->status = wt_error_set(WT_ERR_LIMIT, "%s: JPEG has more than %d scans (limit)",
                                   ctx->name, ctx->max_scans);
        longjmp(ctx->jump, 1);
    }
}

static void init_context(jpeg_context *ctx, const char *name)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->name = name;
    jpeg_std_error(&ctx->mgr);
    ctx->mgr.error_exit = on_jpeg_error;
    ctx->mgr.emit_message = on_jpeg_message;
    ctx->progress.progress_monitor = on_jpeg_progress;
}

/* Colour space to decode to, or an error for those wavetool does not take. */
static wt_status choose_output(j_decompress_ptr cinfo, const jpeg_context *ctx)
{
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
        cinfo->out_color_space = JCS_GRAYSCALE;
        return WT_OK;
    case JCS_YCbCr:
    case JCS_RGB:
        cinfo->out_color_space = JCS_RGB;
        return WT_OK;
    case JCS_CMYK:
    case JCS_YCCK:
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: CMYK JPEG is not supported", ctx->name);
    default:
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: unsupported JPEG colour space (%d components)",
                            ctx->name, cinfo->num_components);
    }
}

static wt_status check_header(j_decompress_ptr cinfo, const jpeg_context *ctx,
                              const wt_load_options *opt)
{
    if (cinfo->data_precision != 8)
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: unsupported precision (%d-bit JPEG)",
                            ctx->name, cinfo->data_precision);
    wt_status st = wt_check_dimensions(ctx->name, "JPEG", cinfo->image_width,
                                       cinfo->image_height, opt->max_pixels);
    return st == WT_OK ? choose_output(cinfo, ctx) : st;
}

static void read_pixels(j_decompress_ptr cinfo, wt_image *img)
{
    size_t stride = (size_t)img->width * (size_t)img->channels;
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW row = (JSAMPROW)img->pixels + (size_t)cinfo->output_scanline * stride;
        jpeg_read_scanlines(cinfo, &row, 1);
    }
}

/* Everything libjpeg can longjmp out of; only @p ctx and @p img change. */
static wt_status decode_guarded(j_decompress_ptr cinfo, jpeg_context *ctx, const void *data,
                                size_t size, const wt_load_options *opt, wt_image *img)
{
    if (setjmp(ctx->jump)) {
        if (!ctx->rows_done || !ctx->lenient)
            return ctx->status;
        wt_warning_set("%s: corrupt JPEG data after the pixels ignored (--lenient)", ctx->name);
        return WT_OK;
    }
    jpeg_create_decompress(cinfo);
    cinfo->progress = &ctx->progress;
    jpeg_mem_src(cinfo, data, (unsigned long)size);
    jpeg_read_header(cinfo, TRUE);
    wt_status st = check_header(cinfo, ctx, opt);
    jpeg_calc_output_dimensions(cinfo);
    if (st == WT_OK)
        st = wt_memory_check(opt, ctx->name, cinfo->output_width, cinfo->output_height,
                             cinfo->output_components);
    if (st != WT_OK)
        return st;
    jpeg_start_decompress(cinfo);
    st = wt_image_alloc(img, cinfo->output_width, cinfo->output_height,
                        cinfo->output_components, 8);
    if (st != WT_OK)
        return st;
    read_pixels(cinfo, img);
    ctx->rows_done = 1;
    jpeg_finish_decompress(cinfo);
    return WT_OK;
}

wt_status wt_jpeg_decode(const void *data, size_t size, const char *name,
                         const wt_load_options *opt, wt_image *img)
{
    struct jpeg_decompress_struct cinfo;
    jpeg_context ctx;
    memset(img, 0, sizeof *img);
    memset(&cinfo, 0, sizeof cinfo);
    init_context(&ctx, name);
    ctx.lenient = opt->lenient;
    ctx.max_scans = opt->max_scans;
    cinfo.err = &ctx.mgr;
    if ((unsigned long)size != size)
        return wt_error_set(WT_ERR_LIMIT, "%s: file too large", name);
    wt_status st = decode_guarded(&cinfo, &ctx, data, size, opt, img);
    jpeg_destroy_decompress(&cinfo);
    if (st != WT_OK)
        wt_image_free(img);
    else
        img->color = img->channels == 1 ? WT_COLOR_GRAY : WT_COLOR_RGB;
    return st;
}

/* ---- encoding ------------------------------------------------------------ */

/* One row as libjpeg takes it: alpha dropped when the image has one. */
static JSAMPROW encoder_row(const wt_image *img, JSAMPLE *scratch, uint32_t y)
{
    const uint8_t *src = (const uint8_t *)img->pixels +
                         (size_t)y * img->width * (size_t)img->channels;
    if (img->channels == 1 || img->channels == 3)
        return (JSAMPROW)src;
    int keep = img->channels - 1;
    for (uint32_t x = 0; x < img->width; x++)
        memcpy(scratch + (size_t)x * keep, src + (size_t)x * img->channels, (size_t)keep);
    return scratch;
}

/* JFIF's density: 16-bit whole numbers; pixels per centimetre that are a whole
 * number of pixels per inch (a PNG's 2835 px/m: 72 dpi) are written per inch. */
static void set_density(j_compress_ptr cinfo, const wt_image_meta *m)
{
    double x = m->xres, y = m->yres;
    int unit = m->unit == WT_RES_ASPECT ? 0 : m->unit == WT_RES_INCH ? 1 : 2;
    if (unit == 2 && fabs(x * 2.54 - round(x * 2.54)) < 0.05 &&
        fabs(y * 2.54 - round(y * 2.54)) < 0.05) {
        unit = 1;
        x *= 2.54;
        y *= 2.54;
    }
    cinfo->density_unit = (UINT8)unit;
    cinfo->X_density = (UINT16)(x < 1 ? 1 : x > 65535 ? 65535 : lrint(x));
    cinfo->Y_density = (UINT16)(y < 1 ? 1 : y > 65535 ? 65535 : lrint(y));
}

/* Exif (APP1), XMP (APP1), the ICC profile (APP2 pieces) and the description
 * (COM) of @p m, after the JFIF header; an XMP packet or description too long
 * for one marker is left out. */
static void write_markers(j_compress_ptr cinfo, const wt_image_meta *m)
{
    static const uint8_t exif_id[6] = {'E', 'x', 'i', 'f', 0, 0};
    if (m->exif && m->exif_size <= 65533 - sizeof exif_id) {
        jpeg_write_m_header(cinfo, JPEG_APP0 + 1, (unsigned)(sizeof exif_id + m->exif_size));
        for (size_t i = 0; i < sizeof exif_id; i++)
            jpeg_write_m_byte(cinfo, exif_id[i]);
        for (size_t i = 0; i < m->exif_size; i++)
            jpeg_write_m_byte(cinfo, m->exif[i]);
    }
    if (m->xmp && m->xmp_size <= 65533 - XMP_ID_SIZE) {
        jpeg_write_m_header(cinfo, JPEG_APP0 + 1, (unsigned)(XMP_ID_SIZE + m->xmp_size));
        for (size_t i = 0; i < XMP_ID_SIZE; i++)
            jpeg_write_m_byte(cinfo, XMP_ID[i]);
        for (size_t i = 0; i < m->xmp_size; i++)
            jpeg_write_m_byte(cinfo, m->xmp[i]);
    }
    if (m->icc)
        jpeg_write_icc_profile(cinfo, m->icc, (unsigned)m->icc_size);
    if (m->description && strlen(m->description) <= 65533)
        jpeg_write_marker(cinfo, JPEG_COM, (const JOCTET *)m->description,
                          (unsigned)strlen(m->description));
}

static wt_status encode_guarded(j_compress_ptr cinfo, jpeg_context *ctx, const wt_image *img,
                                int quality, const wt_image_meta *meta)
{
    if (setjmp(ctx->jump))
        return ctx->status;
    jpeg_create_compress(cinfo);
    jpeg_stdio_dest(cinfo, ctx->fp);
    cinfo->image_width = img->width;
    cinfo->image_height = img->height;
    cinfo->input_components = img->channels <= 2 ? 1 : 3;
    cinfo->in_color_space = img->channels <= 2 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, quality, TRUE);
    if (meta && meta->unit != WT_RES_NONE)
        set_density(cinfo, meta);
    jpeg_start_compress(cinfo, TRUE);
    if (meta)
        write_markers(cinfo, meta);
    while (cinfo->next_scanline < cinfo->image_height) {
        JSAMPROW row = encoder_row(img, ctx->row, cinfo->next_scanline);
        jpeg_write_scanlines(cinfo, &row, 1);
    }
    jpeg_finish_compress(cinfo);
    return WT_OK;
}

static wt_status check_encodable(const char *name, const wt_image *img)
{
    if (img->bit_depth != 8)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: JPEG needs 8-bit samples (this image is %d-bit; use .png)",
                            name, img->bit_depth);
    if (img->channels < 1 || img->channels > 4)
        return wt_error_set(WT_ERR_INVALID, "%s: cannot write %d channels as JPEG", name,
                            img->channels);
    if (!img->width || !img->height || img->width > JPEG_MAX_DIMENSION ||
        img->height > JPEG_MAX_DIMENSION)
        return wt_error_set(WT_ERR_LIMIT, "%s: %ux%u is too large for JPEG (at most %d per side)",
                            name, img->width, img->height, (int)JPEG_MAX_DIMENSION);
    return WT_OK;
}

wt_status wt_jpeg_encode(FILE *fp, const char *name, const wt_image *img,
                         const wt_save_options *opt)
{
    wt_status st = check_encodable(name, img);
    if (st != WT_OK)
        return st;
    struct jpeg_compress_struct cinfo;
    jpeg_context ctx;
    memset(&cinfo, 0, sizeof cinfo);
    init_context(&ctx, name);
    ctx.encoding = 1;
    ctx.fp = fp;
    ctx.row = malloc((size_t)img->width * 3);
    if (!ctx.row)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", name);
    cinfo.err = &ctx.mgr;
    st = encode_guarded(&cinfo, &ctx, img, wt_save_option_value(&wt_codec_jpeg, "quality", opt),
                        wt_meta_to_write(img, opt));
    jpeg_destroy_compress(&cinfo);
    free(ctx.row);
    return st;
}

static int is_jpeg(const uint8_t *data, size_t size)
{
    static const uint8_t magic[3] = {0xff, 0xd8, 0xff};
    return wt_starts_like(data, size, magic, sizeof magic);
}

/* The first SOFn segment (n not 4, 8, 12: DHT, JPG, DAC) holds height,
 * width and components; segments before it are skipped by their lengths. */
static uint64_t jpeg_probe(const uint8_t *head, size_t size, const char *path)
{
    (void)path;
    size_t at = 2;
    while (at + 9 < size && head[at] == 0xff) {
        uint8_t marker = head[at + 1];
        size_t length = (size_t)head[at + 2] << 8 | head[at + 3];
        if (marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc)
            return ((uint64_t)head[at + 5] << 8 | head[at + 6]) *
                   ((uint64_t)head[at + 7] << 8 | head[at + 8]) * head[at + 9];
        if (marker == 0xff) { /* fill byte */
            at++;
            continue;
        }
        at += 2 + length;
    }
    return 0;
}

static const char *const jpeg_extensions[] = {"jpg", "jpeg", NULL};

/* Gray or RGB; alpha is dropped when written. */
static const wt_save_option_info jpeg_options[] = {
    {"quality", "JPEG quality", 1, 100, 90, offsetof(wt_save_options, jpeg_quality)},
    {NULL, NULL, 0, 0, 0, 0},
};

const wt_codec wt_codec_jpeg = {
    {"JPEG", jpeg_extensions, WT_HOLDS_IMAGE, 1u << 8, 3, 0, jpeg_options,
     WT_META_RESOLUTION | WT_META_ICC | WT_META_EXIF | WT_META_XMP | WT_META_DESCRIPTION},
    is_jpeg, 3, wt_jpeg_decode, wt_jpeg_encode, NULL, NULL, NULL, jpeg_probe,
};
