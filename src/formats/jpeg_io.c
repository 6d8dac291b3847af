/* JPEG decoding and encoding with libjpeg(-turbo), and through the GPU codec
 * (nvJPEG, src/formats/jpeg_gpu.h) while it runs: libjpeg reads the header
 * and checks it either way; the GPU decodes the pixels of the files it takes
 * and encodes the pixels of the images it takes, the markers written here.
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
#include "jpeg_gpu.h"

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

/* A truncated file rarely ends in EOI (FF D9): look at its last bytes. */
static int ends_with_eoi(const uint8_t *data, size_t size)
{
    for (size_t i = size > 32 ? size - 32 : 0; i + 1 < size; i++)
        if (data[i] == 0xff && data[i + 1] == 0xd9)
            return 1;
    return 0;
}

/* Whether a quantization table has saturated entries (255: IJG quality
 * below about 23 for the luminance table). Such coefficients can take the
 * inverse DCT far out of the sample range, where libjpeg-turbo's range limit
 * wraps and nvJPEG's clamps (a quality-1 file differed by 120 levels). */
static int coarse_quantization(j_decompress_ptr cinfo)
{
    for (int t = 0; t < NUM_QUANT_TBLS; t++) {
        const JQUANT_TBL *q = cinfo->quant_tbl_ptrs[t];
        for (int k = 0; q && k < DCTSIZE2; k++)
            if (q->quantval[k] >= 255)
                return 1;
    }
    return 0;
}

/* Why libjpeg, not the GPU, decodes this file (NULL: the GPU may). */
static const char *gpu_refuses(j_decompress_ptr cinfo, const jpeg_context *ctx,
                               const uint8_t *data, size_t size)
{
    if (ctx->lenient)
        return "--lenient";
    if (cinfo->progressive_mode)
        return "progressive JPEG";
    if (cinfo->arith_code)
        return "arithmetic-coded JPEG";
    if (cinfo->jpeg_color_space != JCS_YCbCr && cinfo->jpeg_color_space != JCS_GRAYSCALE)
        return "JPEG not in YCbCr or gray";
    if (!ends_with_eoi(data, size))
        return "no end-of-image marker at the end";
    if (coarse_quantization(cinfo))
        return "saturated quantization table (the decoders' range limits differ)";
    return NULL;
}

/* The pixels by the GPU codec, when it runs and takes the file: 1 when done;
 * else its note says why libjpeg decodes them. */
static int gpu_decoded(j_decompress_ptr cinfo, const jpeg_context *ctx, const uint8_t *data,
                       size_t size, wt_image *img)
{
    if (!wt_gpu_jpeg_active(WT_GPU_JPEG_DECODE))
        return 0;
    const char *why = gpu_refuses(cinfo, ctx, data, size);
    if (!why && wt_gpu_jpeg_decode(data, size, ctx->name, img) == WT_OK)
        return 1;
    wt_gpu_jpeg_set_note("%s: decoded by libjpeg-turbo: %s", ctx->name,
                         why ? why : wt_error_message());
    return 0;
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
    if (st == WT_OK)
        st = wt_image_alloc_in(img, opt->room, cinfo->output_width, cinfo->output_height,
                               cinfo->output_components, 8); /* every row is written */
    if (st != WT_OK || gpu_decoded(cinfo, ctx, data, size, img))
        return st;
    jpeg_start_decompress(cinfo);
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
    wt_gpu_jpeg_note_clear();
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

/* JFIF's density (unit 0 aspect ratio, 1 per inch, 2 per cm): 16-bit whole
 * numbers; pixels per centimetre that are a whole number of pixels per inch
 * (a PNG's 2835 px/m: 72 dpi) are written per inch. No resolution: 1:1. */
typedef struct jfif_density {
    int unit;
    unsigned x, y;
} jfif_density;

static jfif_density density_of(const wt_image_meta *m)
{
    if (!m || m->unit == WT_RES_NONE)
        return (jfif_density){0, 1, 1};
    double x = m->xres, y = m->yres;
    int unit = m->unit == WT_RES_ASPECT ? 0 : m->unit == WT_RES_INCH ? 1 : 2;
    if (unit == 2 && fabs(x * 2.54 - round(x * 2.54)) < 0.05 &&
        fabs(y * 2.54 - round(y * 2.54)) < 0.05) {
        unit = 1;
        x *= 2.54;
        y *= 2.54;
    }
    return (jfif_density){unit, (unsigned)(x < 1 ? 1 : x > 65535 ? 65535 : lrint(x)),
                          (unsigned)(y < 1 ? 1 : y > 65535 ? 65535 : lrint(y))};
}

static void set_density(j_compress_ptr cinfo, const wt_image_meta *m)
{
    jfif_density d = density_of(m);
    cinfo->density_unit = (UINT8)d.unit;
    cinfo->X_density = (UINT16)d.x;
    cinfo->Y_density = (UINT16)d.y;
}

/* Where the metadata's marker segments go: libjpeg's compressor, or a file
 * (the GPU encoder's output). */
typedef struct marker_sink {
    j_compress_ptr cinfo; /* NULL: fp */
    FILE *fp;
} marker_sink;

/* One marker segment: @p id (its identifier string) then @p data. */
static void put_marker(const marker_sink *k, int marker, const uint8_t *id, size_t id_size,
                       const uint8_t *data, size_t size)
{
    if (k->cinfo) {
        jpeg_write_m_header(k->cinfo, marker, (unsigned)(id_size + size));
        for (size_t i = 0; i < id_size; i++)
            jpeg_write_m_byte(k->cinfo, id[i]);
        for (size_t i = 0; i < size; i++)
            jpeg_write_m_byte(k->cinfo, data[i]);
        return;
    }
    size_t length = 2 + id_size + size;
    const uint8_t head[4] = {0xff, (uint8_t)marker, (uint8_t)(length >> 8), (uint8_t)length};
    fwrite(head, 1, sizeof head, k->fp);
    if (id_size)
        fwrite(id, 1, id_size, k->fp);
    if (size)
        fwrite(data, 1, size, k->fp);
}

/* The ICC profile in APP2 pieces of at most 65519 bytes, each
 * "ICC_PROFILE\0", its number from 1 and the count (libjpeg-turbo's
 * jpeg_write_icc_profile). */
static void put_icc(const marker_sink *k, const uint8_t *icc, size_t size)
{
    enum { PIECE = 65533 - 14 };
    size_t count = (size + PIECE - 1) / PIECE;
    for (size_t i = 0; i < count && count < 256; i++) {
        uint8_t id[14] = "ICC_PROFILE";
        id[12] = (uint8_t)(i + 1);
        id[13] = (uint8_t)count;
        size_t n = size - i * PIECE < PIECE ? size - i * PIECE : PIECE;
        put_marker(k, JPEG_APP0 + 2, id, sizeof id, icc + i * PIECE, n);
    }
}

/* Exif (APP1), XMP (APP1), the ICC profile (APP2 pieces) and the description
 * (COM) of @p m, after the JFIF header; an XMP packet or description too long
 * for one marker is left out. */
static void write_markers(const marker_sink *k, const wt_image_meta *m)
{
    static const uint8_t exif_id[6] = {'E', 'x', 'i', 'f', 0, 0};
    if (m->exif && m->exif_size <= 65533 - sizeof exif_id)
        put_marker(k, JPEG_APP0 + 1, exif_id, sizeof exif_id, m->exif, m->exif_size);
    if (m->xmp && m->xmp_size <= 65533 - XMP_ID_SIZE)
        put_marker(k, JPEG_APP0 + 1, (const uint8_t *)XMP_ID, XMP_ID_SIZE,
                   (const uint8_t *)m->xmp, m->xmp_size);
    if (m->icc)
        put_icc(k, m->icc, m->icc_size);
    if (m->description && strlen(m->description) <= 65533)
        put_marker(k, JPEG_COM, NULL, 0, (const uint8_t *)m->description,
                   strlen(m->description));
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
        write_markers(&(marker_sink){cinfo, NULL}, meta);
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

/* nvJPEG's file @p jpg with our header: SOI, the JFIF segment with the
 * image's density (in place of nvJPEG's), the metadata's markers, then the
 * rest of nvJPEG's file. */
static wt_status write_gpu_file(FILE *fp, const char *name, const uint8_t *jpg, size_t size,
                                const wt_image_meta *meta)
{
    static const uint8_t soi[2] = {0xff, 0xd8};
    if (size < 4 || jpg[0] != 0xff || jpg[1] != 0xd8)
        return wt_error_set(WT_ERR_INVALID, "%s: JPEG encoder failed (nvJPEG wrote no SOI)", name);
    size_t at = 2;
    if (size >= 6 && jpg[2] == 0xff && jpg[3] == JPEG_APP0)
        at += 2 + ((size_t)jpg[4] << 8 | jpg[5]);
    if (at > size)
        return wt_error_set(WT_ERR_INVALID, "%s: JPEG encoder failed (bad APP0)", name);
    jfif_density d = density_of(meta);
    const uint8_t jfif[] = {'J', 'F', 'I', 'F', 0, 1, 1, (uint8_t)d.unit, (uint8_t)(d.x >> 8),
                            (uint8_t)d.x, (uint8_t)(d.y >> 8), (uint8_t)d.y, 0, 0};
    marker_sink k = {NULL, fp};
    fwrite(soi, 1, sizeof soi, fp);
    put_marker(&k, JPEG_APP0, jfif, sizeof jfif, NULL, 0);
    if (meta)
        write_markers(&k, meta);
    fwrite(jpg + at, 1, size - at, fp);
    if (ferror(fp))
        return wt_error_set(WT_ERR_IO, "%s: %s", name, strerror(errno ? errno : EIO));
    return WT_OK;
}

/* The 8-bit samples without alpha, rows packed: @p img's own, or *@p copy. */
static const uint8_t *opaque_samples(const wt_image *img, uint8_t **copy)
{
    *copy = NULL;
    if (img->channels == 1 || img->channels == 3)
        return img->pixels;
    int keep = img->channels - 1;
    size_t pixels = (size_t)img->width * img->height;
    uint8_t *out = malloc(pixels * (size_t)keep);
    const uint8_t *src = img->pixels;
    for (size_t i = 0; out && i < pixels; i++)
        memcpy(out + i * (size_t)keep, src + i * (size_t)img->channels, (size_t)keep);
    return *copy = out;
}

/* @p img through the GPU codec when it runs: 1 when done (or failed while
 * writing: *@p st); else its note says why libjpeg encodes it. */
static int gpu_encoded(FILE *fp, const char *name, const wt_image *img, int quality,
                       const wt_image_meta *meta, wt_status *st)
{
    if (!wt_gpu_jpeg_active(WT_GPU_JPEG_ENCODE))
        return 0;
    uint8_t *copy, *jpg = NULL;
    size_t size = 0;
    const uint8_t *samples = opaque_samples(img, &copy);
    wt_status enc = samples ? wt_gpu_jpeg_encode(name, samples, img->width, img->height,
                                                 img->channels <= 2 ? 1 : 3, quality, &jpg, &size)
                            : wt_error_set(WT_ERR_NOMEM, "%s: out of memory", name);
    free(copy);
    if (enc != WT_OK) {
        wt_gpu_jpeg_set_note("%s: encoded by libjpeg-turbo: %s", name, wt_error_message());
        return 0;
    }
    *st = write_gpu_file(fp, name, jpg, size, meta);
    free(jpg);
    return 1;
}

wt_status wt_jpeg_encode(FILE *fp, const char *name, const wt_image *img,
                         const wt_save_options *opt)
{
    wt_status st = check_encodable(name, img);
    if (st != WT_OK)
        return st;
    wt_gpu_jpeg_note_clear();
    if (gpu_encoded(fp, name, img, wt_save_option_value(&wt_codec_jpeg, "quality", opt),
                    wt_meta_to_write(img, opt), &st))
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
