/**
 * @file wavetool.h
 * @brief wavetool library: 2D discrete wavelet transforms of images on CPU and GPU.
 *
 * The one public header. Every function that can fail returns a ::wt_status;
 * on failure the function that detected the problem has written one message,
 * readable with wt_error_message() (thread-local). Callers propagate the code
 * and never re-word the message.
 */
#ifndef WAVETOOL_H
#define WAVETOOL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WT_VERSION_MAJOR 0
#define WT_VERSION_MINOR 1
#define WT_VERSION_PATCH 0
#define WT_VERSION_STRING "0.1.0"

/** Deepest decomposition the library accepts. */
#define WT_MAX_LEVELS 32

/* ------------------------------------------------------------------------ */
/** @name Errors */

/** Status codes. Zero is success, every failure is negative. */
typedef enum wt_status {
    WT_OK = 0,                /**< success */
    WT_ERR_INVALID = -1,      /**< invalid argument or impossible request */
    WT_ERR_NOMEM = -2,        /**< host memory exhausted */
    WT_ERR_IO = -3,           /**< file could not be opened, read or written */
    WT_ERR_FORMAT = -4,       /**< file is corrupt, truncated or not of the expected format */
    WT_ERR_LIMIT = -5,        /**< a size or resource limit was exceeded (pixels, scans, shapes) */
    WT_ERR_UNSUPPORTED = -6,  /**< valid input that wavetool does not handle (e.g. 12-bit JPEG) */
    WT_ERR_DEVICE = -7,       /**< no usable GPU, or the GPU failed */
    WT_ERR_DEVICE_NOMEM = -8, /**< GPU memory exhausted */
    WT_ERR_INTERRUPTED = -9,  /**< stopped by a signal */
} wt_status;

/** Message of the last failure in this thread ("" when none). */
const char *wt_error_message(void);
/** Record a failure message (printf format) for this thread; returns @p code.
 *  Control characters in it (from file names, file contents) are escaped as
 *  by wt_escape_controls(): a message is always one line. */
wt_status wt_error_set(wt_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/** Forget the last message. */
void wt_error_clear(void);
/** What the last load or engine open in this thread recovered from or
 *  decided without failing ("" when nothing): corrupt data accepted under
 *  wt_load_options.lenient; why wt_engine_open(…, "auto") took the CPU.
 *  wt_image_load() and wt_engine_open(…, "auto") clear it first. */
const char *wt_warning_message(void);
/** Record such a warning (printf format) for this thread; the first one of a
 *  load is kept. */
void wt_warning_set(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/** Forget the last warning. */
void wt_warning_clear(void);
/** Short name of a status code ("invalid argument", ...). */
const char *wt_status_name(wt_status code);
/** Copy @p in to @p out (@p cap bytes, always terminated, cut if needed) with
 *  control characters written as \\n \\r \\t or \\xHH (bytes 0x01-0x1f and
 *  0x7f), so that text from file names or files prints as one harmless line.
 *  Returns @p out. */
char *wt_escape_controls(char *out, size_t cap, const char *in);

/* ------------------------------------------------------------------------ */
/** @name Wavelets */

/** How a wavelet is defined. */
typedef enum wt_wavelet_kind {
    WT_KIND_FILTER_BANK = 0, /**< PyWavelets filter bank (all PyWavelets modes) */
    WT_KIND_JPEG2000 = 1,    /**< JPEG 2000 style: whole-sample symmetric extension,
                                  ceil(N/2) low / floor(N/2) high coefficients */
} wt_wavelet_kind;

/** One lifting step on the polyphase pair (a = even/low, d = odd/high).
 *  Predict: d[k] += sum_i taps[i] * a[k + offset + i].
 *  Update:  a[k] += sum_i taps[i] * d[k + offset + i]. */
typedef struct wt_lifting_step {
    int update;       /**< 0 predict (modifies d), 1 update (modifies a) */
    int offset;       /**< index of the first tap relative to k */
    int ntaps;        /**< number of taps (<= 8) */
    double taps[8];   /**< coefficients */
} wt_lifting_step;

/** A lifting factorisation of a wavelet's analysis polyphase matrix.
 *  Forward: a = x[2k], d = x[2k+1] (after @p input_shift), steps in order,
 *  then low[k] = scale_lo * a[k + shift_lo], high[k] = scale_hi * d[k + shift_hi]. */
typedef struct wt_lifting {
    int nsteps;
    wt_lifting_step steps[8];
    double scale_lo, scale_hi;
    int shift_lo, shift_hi;
    int input_shift; /**< the sample that becomes a[0] is x[input_shift] */
} wt_lifting;

/** A discrete wavelet. Filters follow PyWavelets (all of even length). */
typedef struct wt_wavelet {
    const char *name;       /**< "db3", "cdf97", ... */
    const char *family;     /**< "Daubechies", ... */
    wt_wavelet_kind kind;
    int orthogonal;         /**< 1 orthogonal, 0 biorthogonal */
    int integer;            /**< 1 for integer-to-integer (legall53) */
    int filter_len;         /**< dec_len of PyWavelets (filters padded to even length) */
    const double *dec_lo, *dec_hi, *rec_lo, *rec_hi;
    const wt_lifting *lifting; /**< NULL when no lifting scheme exists */
    int support_lo, support_hi; /**< JPEG 2000 kinds: true odd filter lengths (9/7, 5/3, 13/7) */
} wt_wavelet;

/** Find a wavelet by name (case-sensitive, PyWavelets' names); NULL if unknown. */
const wt_wavelet *wt_wavelet_find(const char *name);
/** Number of wavelets known. */
size_t wt_wavelet_count(void);
/** The i-th wavelet (0 <= i < wt_wavelet_count()). */
const wt_wavelet *wt_wavelet_at(size_t i);
/** Closest known name to @p name (for "did you mean"), never NULL. */
const char *wt_wavelet_suggest(const char *name);

/* ------------------------------------------------------------------------ */
/** @name Modes and methods */

/** Signal extension modes, PyWavelets' definitions. */
typedef enum wt_mode {
    WT_MODE_ZERO = 0,
    WT_MODE_CONSTANT,
    WT_MODE_SYMMETRIC,
    WT_MODE_REFLECT,
    WT_MODE_PERIODIC,
    WT_MODE_SMOOTH,
    WT_MODE_ANTISYMMETRIC,
    WT_MODE_ANTIREFLECT,
    WT_MODE_PERIODIZATION,
    WT_MODE_COUNT
} wt_mode;

/** Parse a mode name; returns WT_ERR_INVALID (with message) if unknown. */
wt_status wt_mode_parse(const char *name, wt_mode *mode);
/** Name of a mode. */
const char *wt_mode_name(wt_mode mode);

typedef enum wt_method {
    WT_METHOD_AUTO = 0,
    WT_METHOD_CONV,
    WT_METHOD_LIFTING,
} wt_method;

wt_status wt_method_parse(const char *name, wt_method *method);
const char *wt_method_name(wt_method method);

/** What to compute. */
typedef struct wt_params {
    const wt_wavelet *wavelet;
    wt_mode mode;
    wt_method method; /**< AUTO is resolved by wt_params_resolve() */
    int levels;       /**< 0..WT_MAX_LEVELS */
} wt_params;

/** Check a combination and resolve AUTO method. WT_ERR_INVALID with a message
 *  when the wavelet does not support the mode or method. */
wt_status wt_params_resolve(wt_params *p);

/** Number of coefficients of one level along an axis of length n. */
size_t wt_coeff_len(size_t n, const wt_wavelet *w, wt_mode mode, int high);
/** PyWavelets' dwt_max_level for a 2D image of h×w. */
int wt_max_level(size_t h, size_t w, const wt_wavelet *wavelet);

/* ------------------------------------------------------------------------ */
/** @name Coefficient pyramids */

typedef enum wt_dtype { WT_FLOAT32 = 0, WT_INT32 = 1 } wt_dtype;

/** Bands of one level: PyWavelets' meaning (H: high-pass along y). */
typedef enum wt_band { WT_BAND_A = 0, WT_BAND_H = 1, WT_BAND_V = 2, WT_BAND_D = 3 } wt_band;

/** A multi-level decomposition of C planes of height×width.
 *  Band data are contiguous (C, h, w) blocks of 4-byte elements, in the order
 *  cA_L, then for l = L..1: cH_l, cV_l, cD_l (the order of pywt.wavedec2). */
typedef struct wt_pyramid {
    size_t height, width; /**< original plane size */
    int channels;
    int levels;
    wt_dtype dtype;
    /** Per level l (0 = input): approximation size; lo_h[l] × lo_w[l]. */
    size_t lo_h[WT_MAX_LEVELS + 1], lo_w[WT_MAX_LEVELS + 1];
    /** Per level l >= 1: size of high-pass axis (detail bands). */
    size_t hi_h[WT_MAX_LEVELS + 1], hi_w[WT_MAX_LEVELS + 1];
    size_t total;        /**< elements of all bands, all channels */
    void *data;          /**< owned by the pyramid when @p owned */
    int owned;
    /** Spatial axes, set by wt_pyramid_plan(): 2 for an image (depth 1). */
    int rank;
    size_t depth; /**< samples along z: 1 for an image */
} wt_pyramid;

/** Compute the shapes of a decomposition (no allocation). */
wt_status wt_pyramid_plan(wt_pyramid *p, const wt_params *params, size_t height,
                          size_t width, int channels);
/** Plan and allocate zeroed data. */
wt_status wt_pyramid_alloc(wt_pyramid *p, const wt_params *params, size_t height,
                           size_t width, int channels);
/** Free owned data. */
void wt_pyramid_free(wt_pyramid *p);
/** Element offset of band @p b of level @p level (cA only at level L) for channel c. */
size_t wt_pyramid_offset(const wt_pyramid *p, int level, wt_band b, int c);
/** Rows and columns of a band. */
void wt_pyramid_band_shape(const wt_pyramid *p, int level, wt_band b, size_t *h, size_t *w);

/* ------------------------------------------------------------------------ */
/** @name Images */

/** PNG-style colour types: number of planes and what they mean. */
typedef enum wt_color {
    WT_COLOR_GRAY = 1,
    WT_COLOR_GRAY_ALPHA = 2,
    WT_COLOR_RGB = 3,
    WT_COLOR_RGBA = 4,
} wt_color;

/** wt_image.bit_depth of float32 samples. */
#define WT_DEPTH_F32 32
/** Channels (planes) of an image, at most: TIFF extra samples beyond RGBA
 *  and (H, W, C) arrays are independent planes. */
#define WT_MAX_CHANNELS 64

/** How a file stores its samples (TIFF's SampleFormat). */
typedef enum wt_sample_kind {
    WT_SAMPLE_UINT = 0,  /**< unsigned integers */
    WT_SAMPLE_INT = 1,   /**< signed (two's complement) integers */
    WT_SAMPLE_FLOAT = 2, /**< IEEE floating point */
} wt_sample_kind;

/** A stored sample type: uint 8/16/32, int 8/16/32, float 32/64. {0, 0}: the
 *  natural type of the image's bit_depth (uint8, uint16, float32). */
typedef struct wt_sample_type {
    wt_sample_kind kind;
    int bits;
} wt_sample_type;

/** A decoded image: interleaved samples (native byte order), channels =
 *  (int)color (more than 4: independent planes); 8-bit, 16-bit or (bit_depth
 *  WT_DEPTH_F32) float32. Every stored type but 8/16-bit unsigned is held as
 *  float32 in its own units, @p stored its file's type for writing it back. */
/** Units of wt_image_meta's resolution. */
typedef enum wt_res_unit {
    WT_RES_NONE = 0, /**< no resolution */
    WT_RES_ASPECT,   /**< a pixel aspect ratio only */
    WT_RES_INCH,     /**< pixels per inch */
    WT_RES_CM,       /**< pixels per centimetre */
} wt_res_unit;

/** What a decoded file says about its pixels beyond the samples, shared
 *  (reference-counted) by the images made of it: PNG pHYs, iCCP, eXIf, iTXt
 *  XMP, text chunks; JPEG JFIF density, APP2 ICC profile, APP1 Exif and XMP,
 *  COM; TIFF resolution, ICC profile, XMP (tag 700), ImageDescription. */
typedef struct wt_image_meta {
    int refs;
    wt_res_unit unit;
    double xres, yres;
    uint8_t *icc;  /**< the ICC profile, or NULL */
    size_t icc_size;
    uint8_t *exif; /**< Exif as TIFF-structured bytes ("II*" or "MM*"), or NULL */
    size_t exif_size;
    uint8_t *xmp;  /**< the XMP packet (UTF-8 XML), or NULL */
    size_t xmp_size;
    /** PNG text chunks but XMP and Description, each record a byte (0: Latin-1,
     *  from tEXt or zTXt; 1: UTF-8, from iTXt), the keyword, 0, the text, 0; or NULL */
    uint8_t *text;
    size_t text_size;
    char *description; /**< TIFF ImageDescription, PNG tEXt "Description", JPEG COM; or NULL */
} wt_image_meta;

/** Memory that images borrow for their pixels instead of owning them: a
 *  buffer its owner keeps from image to image (a file worker's page-locked
 *  buffer, which a GPU engine copies from and into directly) and frees
 *  itself. wt_pixel_room_reserve grows it through @p reserve. */
typedef struct wt_pixel_room {
    void *data;  /**< @p size bytes, or NULL */
    size_t size;
    /** Make @p data at least @p bytes (its contents may go): 1, or 0 when it
     *  cannot (the caller then allocates as usual). */
    int (*reserve)(struct wt_pixel_room *room, size_t bytes);
    void *owner; /**< for @p reserve */
} wt_pixel_room;

typedef struct wt_image {
    uint32_t width, height;
    int channels;  /**< 1 .. WT_MAX_CHANNELS */
    int bit_depth; /**< 8, 16 or WT_DEPTH_F32 */
    wt_color color;
    void *pixels;
    wt_sample_type stored; /**< the type to write; {0, 0}: that of bit_depth */
    wt_image_meta *meta;   /**< a reference (wt_image_free drops it); NULL: none */
    /** NULL: the image owns @p pixels (malloc'd). Else they are this room's
     *  memory, borrowed: never free()d or realloc'd through the image
     *  (wt_image_free and wt_image_drop_pixels only forget them), and valid
     *  until the room's owner reuses it. */
    const wt_pixel_room *room;
} wt_image;

/** Drop a reference to @p m (NULL: nothing); the last frees it. */
void wt_image_meta_release(wt_image_meta *m);

/** @p to shares @p from's metadata (its own, if any, dropped): images of an
 *  input written with its resolution, ICC profile and Exif. */
void wt_image_share_meta(wt_image *to, const wt_image *from);

/** Allocate an image (pixels zeroed): 1 .. WT_MAX_CHANNELS channels of 8, 16 or
 *  WT_DEPTH_F32 bits; stored {0, 0}. WT_ERR_LIMIT when the size overflows. */
wt_status wt_image_alloc(wt_image *img, uint32_t width, uint32_t height, int channels,
                         int bit_depth);
void wt_image_free(wt_image *img);
/** wt_image_alloc without zeroing, the pixels in @p room when it is not NULL
 *  and can hold them (img->room set), else malloc'd: for a decoder that
 *  writes every sample. */
wt_status wt_image_alloc_in(wt_image *img, wt_pixel_room *room, uint32_t width, uint32_t height,
                            int channels, int bit_depth);
/** The pixels let go (freed when the image owns them, else only forgotten):
 *  pixels NULL, room NULL, the rest kept. */
void wt_image_drop_pixels(wt_image *img);
/** Bytes of the pixel buffer (overflow-checked; 0 on overflow). */
size_t wt_image_bytes(const wt_image *img);

/** The type @p img is written as: img->stored, or that of its bit_depth. */
wt_sample_type wt_image_stored(const wt_image *img);
/** "uint8", "int16", "float32", ... into @p buf (cut to @p size); returns @p buf. */
const char *wt_sample_type_name(wt_sample_type type, char *buf, size_t size);
/** 1 for uint8 and uint16 (the exact integer path). */
int wt_sample_type_is_exact(wt_sample_type type);
/** The depth an image of @p type is held at: 8, 16 or WT_DEPTH_F32. */
int wt_sample_type_depth(wt_sample_type type);
/** @p v rounded to nearest and clamped to @p type's range (NaN: 0); float types:
 *  @p v as it is. */
double wt_sample_clamp(wt_sample_type type, double v);
/** A copy of @p src held for @p type (wt_sample_type_depth), samples converted
 *  in sample units (no rescaling): to uint8/uint16 rounded and clamped, to any
 *  other type as float32 (rounded and clamped for integer types). */
wt_status wt_image_convert(const wt_image *src, wt_sample_type type, wt_image *dst);

/** Planar float copy of the samples: C × h × w. */
wt_status wt_image_to_planes(const wt_image *img, float *planes);
/** Interleave planes into @p img (already allocated): 8/16-bit rounded and
 *  clamped; float32 copied, rounded and clamped to img->stored when that is an
 *  integer type. */
void wt_image_from_planes(wt_image *img, const float *planes);

/* ------------------------------------------------------------------------ */
/** @name Image files (src/formats/)
 * Every message names the file: "in.png: truncated PNG data". */

/** Limits and policy for decoding untrusted files. */
typedef struct wt_load_options {
    uint64_t max_pixels; /**< width*height above this: WT_ERR_LIMIT (0 = default 1 Gpixel) */
    int max_scans;       /**< progressive JPEG scan limit (0 = default 1000) */
    int lenient;         /**< 1: libpng/libjpeg recoverable corruption warnings are not fatal */
    uint64_t max_memory; /**< bytes processing one image may take, estimated as
                              WT_MEMORY_PER_SAMPLE per sample: above, WT_ERR_LIMIT
                              before decoding (0 = no limit) */
    int stack;           /**< wt_stack_layout: how wt_stack_open() reads a 3-D .npy */
    int coeff_image_meta; /**< 1: wt_npz_load_any reads the input's metadata a coefficient
                               file of one image stores into wt_npz_meta.image */
    wt_pixel_room *room; /**< non-NULL: decoders that write every sample (JPEG) decode
                              into it (wt_image_alloc_in); the image borrows it */
} wt_load_options;

#define WT_DEFAULT_MAX_PIXELS ((uint64_t)1 << 30)
/** Width and height of every image read, at most (below 2^24), whatever its format. */
#define WT_MAX_SIDE ((1u << 24) - 1)
/** Peak memory of decompose/roundtrip per sample (pixel x channel), measured
 *  14-19 bytes (4096x4096 gray 8-bit: 238-266 MB; 2048x2048 RGBA 16-bit:
 *  266-311 MB), with headroom. */
#define WT_MEMORY_PER_SAMPLE 20

/** WT_ERR_LIMIT, with a message naming @p name, when an image of that size
 *  needs more than @p opt->max_memory (decoders call it before allocating). */
wt_status wt_memory_check(const wt_load_options *opt, const char *name, uint32_t width,
                          uint32_t height, int channels);

/** A row of the format registry (src/formats/format.c): 1 … wt_format_count(), 0 = unknown.
 *  The first formats have names here; later ones are found by extension or by
 *  their bytes, and described by wt_format_describe(). */
typedef enum wt_file_format {
    WT_FORMAT_UNKNOWN = 0,
    WT_FORMAT_PNG,
    WT_FORMAT_JPEG,
    WT_FORMAT_NPZ,
} wt_file_format;

/** What a format holds (wt_format_info.holds). */
#define WT_HOLDS_IMAGE 1u  /**< images: wt_image_load() / wt_image_save() */
#define WT_HOLDS_COEFFS 2u /**< wavelet coefficients: wt_npz_load() / wt_npz_save() */

/** A save option a format declares (model: libvips' saver options, FFmpeg's
 *  AVOption rows): an integer in [min, max] carried by the int of
 *  wt_save_options at @p offset; a value below min means "the default". */
typedef struct wt_save_option_info {
    const char *name; /**< "quality", "level" */
    const char *help; /**< "JPEG quality" */
    int min, max, def;
    size_t offset; /**< offsetof(wt_save_options, ...) */
} wt_save_option_info;

/** A format as the registry describes it. */
typedef struct wt_format_info {
    const char *name;              /**< "PNG" */
    const char *const *extensions; /**< lower case, no dot, NULL-terminated; [0] the usual one */
    unsigned holds;                /**< WT_HOLDS_* */
    unsigned depths;               /**< integer sample depths written, as bits: 1u << 8 | 1u << 16 */
    int max_channels;              /**< channels written, at most */
    int floats;                    /**< 1: holds every stored sample type (signed, 32-bit, float) */
    const wt_save_option_info *options; /**< its save options, ended by a NULL name; NULL: none */
    unsigned meta;                 /**< WT_META_*: the image metadata it writes */
} wt_format_info;

/** Image metadata a format writes (wt_format_info.meta). */
#define WT_META_RESOLUTION 1u
#define WT_META_ICC 2u
#define WT_META_EXIF 4u
#define WT_META_XMP 8u
#define WT_META_TEXT 16u        /**< PNG text chunks (wt_image_meta.text) */
#define WT_META_DESCRIPTION 32u

/** More selectors of wt_format_list(): formats whose codec holds stacks of
 *  images (many pages), image formats that hold every sample type (floats),
 *  and a flag naming each format by its usual extension only (extensions[0]). */
#define WT_HOLDS_STACK 4u
#define WT_HOLDS_FLOATS 8u
#define WT_LIST_USUAL 16u

/** Number of formats in the registry (the last wt_file_format). */
int wt_format_count(void);
/** The registry's row for @p format, or NULL for WT_FORMAT_UNKNOWN or out of range. */
const wt_format_info *wt_format_describe(wt_file_format format);
/** Format named by an extension, with or without its dot ("png", ".JPG"; case-insensitive). */
wt_file_format wt_format_from_ext(const char *ext);
/** Format named by a path's extension (.png, .jpg, .jpeg, .npz, …; case-insensitive). */
wt_file_format wt_format_from_path(const char *path);
/** The extensions of every format that holds any of @p holds (WT_HOLDS_*;
 *  with WT_LIST_USUAL: each format's usual one), each after @p dot ("" or
 *  "."), joined by @p sep and, before the last one, by @p last:
 *  (".", ", ", " or ") gives ".png, .jpg, .jpeg or .npz". Returns @p buf
 *  (cut to @p size, always terminated). */
const char *wt_format_list(char *buf, size_t size, unsigned holds, const char *dot,
                           const char *sep, const char *last);
/** 1 when @p format holds any of @p holds (WT_HOLDS_*, stacks and floats included). */
int wt_format_holds(wt_file_format format, unsigned holds);
/** The save option @p name that @p format declares ("quality" of JPEG), or NULL. */
const wt_save_option_info *wt_format_option(wt_file_format format, const char *name);
/** The depth to write a @p wanted-bit image as in @p format: @p wanted when the
 *  format holds it, else the largest depth it holds below (or its smallest). */
int wt_format_depth(wt_file_format format, int wanted);

/** Decode an image file, its format recognised by its first bytes ("-" = stdin).
 *  Samples exact: no gamma or colour conversion; palette expanded; 1/2/4-bit
 *  gray scaled to 8 bits; 16-bit kept; signed, 32-bit and float samples (TIFF,
 *  .npy) held as float32 with img->stored saying their type. */
wt_status wt_image_load(const char *path, const wt_load_options *opt, wt_image *img);
/** Decode from memory; @p name is used in messages. */
wt_status wt_image_load_memory(const void *data, size_t size, const char *name,
                               const wt_load_options *opt, wt_image *img);

typedef struct wt_save_options {
    int png_level;    /**< deflate level 0-9; -1 = default (fast: 1) */
    int jpeg_quality; /**< 1-100; 0 = default 90 */
    int tiff_level;   /**< deflate level 1-9; 0 = default 6 */
    int strip;        /**< 1: write no metadata (wt_image.meta ignored) */
} wt_save_options;

/** WT_ERR_UNSUPPORTED, naming @p name, when image format @p format cannot hold
 *  samples of @p type (PNG, JPEG: uint8/16 only) or @p channels channels. */
wt_status wt_image_check_holds(wt_file_format format, const char *name, wt_sample_type type,
                               int channels);
/** Encode by the path's extension; written through wt_outfile (atomic). "-" = stdout
 *  (format then from @p fallback). JPEG of 16-bit images is refused (WT_ERR_UNSUPPORTED);
 *  JPEG and Netpbm drop alpha (Netpbm: P5 for gray, P6 for RGB, whatever the extension). The image's stored type is written (wt_image_stored; float32
 *  held, uint8/16 stored: converted first); formats that cannot hold it refuse
 *  (wt_image_check_holds) before any file exists. */
wt_status wt_image_save(const char *path, const wt_image *img, const wt_save_options *opt,
                        wt_file_format fallback);

/* ------------------------------------------------------------------------ */
/** @name Stacks (src/formats/stack.c): multi-page TIFF and 3-D .npy, a page at a time
 * A stack is a file of pages, 2-D images of one size and sample type, read
 * one page at a time (a regular file is never read whole): processing a stack
 * takes the memory of a page, whatever its length. Pages are numbered from 0. */

/** How a 3-D .npy is read (wt_load_options.stack). */
typedef enum wt_stack_layout {
    WT_STACK_AUTO = 0, /**< (H, W) gray, (H, W, C) with C <= WT_MAX_CHANNELS channels: one page */
    WT_STACK_FIRST,    /**< (N, H, W): N gray pages */
    WT_STACK_LAST,     /**< (H, W, N): N gray pages */
} wt_stack_layout;

typedef struct wt_stack wt_stack;

/** Open @p path as a stack: a TIFF file's pages (each checked against page 0),
 *  a 3-D .npy file's pages under @p opt->stack FIRST or LAST; anything else
 *  (PNG, JPEG, a 2-D .npy, a pipe or standard input) is one page, read by
 *  wt_image_load(). Messages name the file, and the page ("a.tif: page 3: ..."). */
wt_status wt_stack_open(const char *path, const wt_load_options *opt, wt_stack **out);
/** Its number of pages (at least 1). */
size_t wt_stack_pages(const wt_stack *s);
/** Page @p k (0 <= k < pages) into @p img (allocated here). */
wt_status wt_stack_read(wt_stack *s, size_t k, wt_image *img);
/** wt_stack_read with @p room as wt_load_options.room: the decoders that
 *  write every sample (JPEG) put the page's pixels there (img->room). */
wt_status wt_stack_read_in(wt_stack *s, size_t k, wt_pixel_room *room, wt_image *img);
void wt_stack_close(wt_stack *s);

/** A band of consecutive rows of a page: @p band (its height the band's
 *  rows, its pixels valid during the call) starts at the page's row @p y0. */
typedef wt_status (*wt_rows_fn)(void *ctx, const wt_image *band, uint32_t y0);
/** 1 when wt_stack_reread_rows() can read @p s's pages (TIFF files, strips
 *  or tiles; a 3-D .npy read as pages). */
int wt_stack_rereads_rows(const wt_stack *s);
/** Page @p k read again, from the top down, a row of strips or tiles at a
 *  time (.npy: about a million samples; the memory of a band, not of the
 *  page), each band handed to @p fn;
 *  @p fn's error stops the read and is returned. The file must be as
 *  wt_stack_open() found it: a file written to since (size, modification or
 *  change time) is WT_ERR_IO, "NAME: changed since it was read". */
wt_status wt_stack_reread_rows(wt_stack *s, size_t k, wt_rows_fn fn, void *ctx);

/** A stack of images written one page at a time into @p path (atomically, as
 *  wt_image_save): a multi-page TIFF or an (N, H, W[, C]) .npy (by extension,
 *  or @p fallback for "-"); other formats hold one image (WT_ERR_UNSUPPORTED).
 *  Every page has the first one's size, channels and depth. */
typedef struct wt_stack_writer wt_stack_writer;
wt_status wt_stack_writer_open(const char *path, wt_file_format fallback, size_t pages,
                               wt_stack_writer **out);
wt_status wt_stack_writer_add(wt_stack_writer *w, const wt_image *page);
/** Finish (all pages written) and rename into place; frees @p w. */
wt_status wt_stack_writer_commit(wt_stack_writer *w);
/** Remove the temporary output; frees @p w (NULL: nothing). */
void wt_stack_writer_abort(wt_stack_writer *w);

/* ------------------------------------------------------------------------ */
/** @name Atomic output files (src/formats/outfile.c) */

/** An output being written: a temporary file in the target's directory, renamed
 *  into place by wt_outfile_commit(); removed by wt_outfile_abort(). A program
 *  that removes temporary files on fatal signals learns of them through
 *  wt_outfile_set_temp_hooks(). The file never gets descriptor 0, 1 or 2. */
typedef struct wt_outfile {
    void *fp;            /**< FILE* to write to */
    char final_path[4096];
    char tmp_path[4096];
    int is_stdout;
    int token;           /**< the create hook's, for its forget hook */
} wt_outfile;

wt_status wt_outfile_open(wt_outfile *f, const char *path);
/** Flush, fsync-free close and rename. Any write error seen: WT_ERR_IO, nothing left behind. */
wt_status wt_outfile_commit(wt_outfile *f);
void wt_outfile_abort(wt_outfile *f);
/** wt_image_save's encoding (@p format, checks and stored type as there) into
 *  the open output @p out, not committed: a set of outputs that must appear
 *  together (decompose --layers) is written, then committed or aborted as one. */
wt_status wt_image_write(wt_outfile *out, const wt_image *img, const wt_save_options *opt,
                         wt_file_format format);

/** How temporary output files are made and let go of, process-wide (the
 *  program's business, e.g. cli/process.c: a list its fatal-signal handler
 *  empties). create: mkstemp()'s job on the template @p tmpl (the name is
 *  written back), returning the descriptor or -1 with errno, and setting
 *  *token; forget: the file @p tmpl made with @p token was renamed or removed.
 *  Both are called from any thread. Default (or NULL): mkostemp() alone. */
typedef struct wt_temp_hooks {
    int (*create)(char *tmpl, int *token);
    void (*forget)(const char *tmpl, int token);
} wt_temp_hooks;
/** Set before the first output is opened; @p hooks must outlive every output. */
void wt_outfile_set_temp_hooks(const wt_temp_hooks *hooks);
/** 1 when both paths exist and are the same file (device and inode): an output
 *  must never replace its input. */
int wt_same_file(const char *a, const char *b);

/* ------------------------------------------------------------------------ */
/** @name Transforms and borders */

/** Which transform: the decimated DWT (wt_forward), the stationary wavelet
 *  transform (= pywt.swt2), or the isotropic undecimated starlet. */
typedef enum wt_transform {
    WT_TRANSFORM_DWT = 0,
    WT_TRANSFORM_SWT = 1,
    WT_TRANSFORM_STARLET = 2,
    WT_TRANSFORM_PACKET = 3, /**< wavelet packets (wt_packet_forward) */
} wt_transform;
wt_status wt_transform_parse(const char *name, wt_transform *t);
const char *wt_transform_name(wt_transform t);

/** Starlet border: scipy.ndimage's 'mirror' (d c b | a b c d | c b a),
 *  'wrap' (periodic) and 'nearest'. */
typedef enum wt_border {
    WT_BORDER_MIRROR = 0,
    WT_BORDER_PERIODIC = 1,
    WT_BORDER_NEAREST = 2,
} wt_border;
wt_status wt_border_parse(const char *name, wt_border *b);
const char *wt_border_name(wt_border b);

/** What an undecimated transform computes. */
typedef struct wt_uparams {
    wt_transform transform;    /**< WT_TRANSFORM_SWT or WT_TRANSFORM_STARLET */
    const wt_wavelet *wavelet; /**< SWT: a filter-bank wavelet */
    int levels;                /**< 1..WT_MAX_LEVELS */
    int start_level;           /**< SWT: pywt's start_level (filters upsampled by
                                    2^(start_level + j - 1) at level j) */
    int norm;                  /**< SWT: pywt's norm=True (filters scaled by 1/sqrt 2) */
    int all_approx;            /**< SWT: also keep cA of every level (trim_approx=False) */
    wt_border border;          /**< starlet */
} wt_uparams;

/* ------------------------------------------------------------------------ */
/** @name Coefficient files (.npz, src/formats/npz*.c) */

/** What a coefficient file says about its transform and image. */
typedef struct wt_npz_meta {
    char wavelet[32];
    wt_mode mode;
    wt_method method;
    int levels;
    uint32_t width, height;
    int channels;
    int bit_depth;     /**< 8, 16 or WT_DEPTH_F32 */
    wt_color color;
    wt_sample_type stored; /**< bit_depth WT_DEPTH_F32: the image's stored type (meta
                                key "samples"); {0, 0} float32 */
    /* Undecimated transforms (zero: the DWT); written as meta keys
     * "transform", "start_level", "norm", "all_approx", "border". */
    wt_transform transform;
    int start_level, norm, all_approx;
    wt_border border;
    /* Writing only (not stored): deflate every member, as numpy.savez_compressed. */
    int compress;
    uint64_t pages; /**< a stack's page count (meta "pages", members (N, C, h, w)); 0: one image */
    uint32_t depth; /**< a volume's z size (meta "depth"); 0: an image */
    char axes[4];   /**< a volume's axes in order as digits, "012" (meta "axes": "0,1,2") */
    /** The input image's resolution (meta "resolution_unit", "x_resolution",
     *  "y_resolution"), ICC profile, Exif and XMP (uint8 members "icc_profile",
     *  "exif", "xmp"); NULL: none. Writing: borrowed, stored by files of one image
     *  (not stacks). Reading (wt_load_options.coeff_image_meta): a reference
     *  of the caller's, dropped with wt_image_meta_release. */
    wt_image_meta *image;
} wt_npz_meta;

/** Write members cA, cH1..cHL, cV1.., cD1.. ((C, h, w) float32 or int32) and meta
 *  (UTF-8 JSON as uint8) as a zip, members deflated with @p meta->compress
 *  (np.load without pickle). */
wt_status wt_npz_save(const char *path, const wt_pyramid *pyr, const wt_npz_meta *meta);
/** Read and validate a coefficient file: meta parsed, shapes checked against the
 *  plan of its transform (overflow-safe), pyramid allocated and filled. */
wt_status wt_npz_load(const char *path, wt_pyramid *pyr, wt_npz_meta *meta);
/** Write an undecimated band stack (see wt_uforward) with its meta: SWT members
 *  cA, cH{l}, cV{l}, cD{l} (and cA{l}, l < L, with all_approx), starlet c and
 *  w1..wL, each (C, h, w) float32. @p meta->transform says which. */
wt_status wt_npz_save_stack(const char *path, const wt_uparams *params, const float *bands,
                            const wt_npz_meta *meta);
/** Read any coefficient file: a DWT file into @p pyr (*@p stack NULL), an
 *  undecimated one into *@p stack (malloc'ed, wt_ustack_bands x C x h x w;
 *  @p params from its meta; pyr left empty); @p stack NULL: DWT files only.
 *  The image the file describes gets the limits of @p opt (max_pixels, width
 *  and height below 2^24; NULL = defaults) before anything is allocated. */
wt_status wt_npz_load_any(const char *path, const wt_load_options *opt, wt_pyramid *pyr,
                          float **stack, wt_uparams *params, wt_npz_meta *meta);

/** A stack's coefficient file written a page at a time into members of shape
 *  (N, C, h, w) (N = @p meta->pages) reserved in the seekable output, headers
 *  at the end. @p ustack NULL: DWT pages of @p shape's plan
 *  (wt_npz_stack_add_pyramid); else band stacks (wt_npz_stack_add_bands).
 *  Stored members only; not to standard output. */
typedef struct wt_npz_stack_writer wt_npz_stack_writer;
wt_status wt_npz_stack_writer_open(const char *path, const wt_npz_meta *meta,
                                   const wt_pyramid *shape, const wt_uparams *ustack,
                                   wt_npz_stack_writer **out);
wt_status wt_npz_stack_add_pyramid(wt_npz_stack_writer *w, const wt_pyramid *pyr);
wt_status wt_npz_stack_add_bands(wt_npz_stack_writer *w, const float *bands);
/** After every page: headers, meta, directory; renamed into place; frees @p w. */
wt_status wt_npz_stack_writer_commit(wt_npz_stack_writer *w);
void wt_npz_stack_writer_abort(wt_npz_stack_writer *w);

/** A stack's coefficient file read a page at a time (meta "pages" > 0):
 *  wt_npz_stack_reader_open reads and checks the meta and every member's
 *  header; each page is then read into @p pyr (DWT; allocated by the first
 *  call, reused) or *@p bands (undecimated; malloc'ed by the first call).
 *  Pages are read in order; CRCs are checked after the last page. */
typedef struct wt_npz_stack_reader wt_npz_stack_reader;
wt_status wt_npz_stack_reader_open(const char *path, const wt_load_options *opt,
                                   wt_npz_stack_reader **out, wt_npz_meta *meta,
                                   wt_uparams *params);
wt_status wt_npz_stack_read_page(wt_npz_stack_reader *r, uint64_t k, wt_pyramid *pyr,
                                 float **bands);
void wt_npz_stack_reader_close(wt_npz_stack_reader *r);
/** 1 when @p path is a coefficient file of a stack (meta "pages" > 0); 0
 *  otherwise or when it cannot be read (then wt_npz_load_any says why). */
int wt_npz_is_stack(const char *path);

/* ------------------------------------------------------------------------ */
/** @name Mosaics and metrics (src/analysis/) */

typedef enum wt_scale {
    WT_SCALE_AUTO = 0, /**< approximation to full range, details by |value| */
    WT_SCALE_ABS,      /**< details: |v| / max|v| of the band to full range */
    WT_SCALE_OFFSET,   /**< details: mid-grey + v / (2 max|v|) of the band */
} wt_scale;

/** Size of the mosaic of a pyramid (pywt.coeffs_to_array layout). */
void wt_mosaic_size(const wt_pyramid *pyr, size_t *height, size_t *width);
/** Render a pyramid into an image of @p bit_depth (8/16) with pyr->channels
 *  channels (allocated here), per-band display scaling. */
wt_status wt_mosaic_render(const wt_pyramid *pyr, wt_scale scale, int bit_depth, wt_image *out);

/** Display options beyond wt_scale (wavetool decompose --scale/--transfer/...).
 *  The CUDA engine draws the plain style (wt_mosaic_image); any other is drawn
 *  on the host by wt_mosaic_render_style from a downloaded pyramid. */
typedef enum wt_mosaic_range {
    WT_RANGE_BAND = 0, /**< each detail band its own range (as wt_mosaic_render) */
    WT_RANGE_LEVEL,    /**< one range for the three detail bands of a level */
    WT_RANGE_GLOBAL,   /**< one range for all detail bands */
} wt_mosaic_range;
typedef enum wt_transfer {
    WT_TRANSFER_LINEAR = 0, /**< u = |v| / M */
    WT_TRANSFER_SQRT,       /**< sqrt(u) */
    WT_TRANSFER_LOG,        /**< log(1 + 255 u) / log(256) */
} wt_transfer;
typedef enum wt_colormap {
    WT_COLORMAP_GRAY = 0,   /**< one sample per channel, as wt_mosaic_render */
    WT_COLORMAP_DIVERGING,  /**< RGB: negative details blue, zero white, positive red;
                                 several channels are shown by their mean (the transform
                                 is linear: the coefficients of the mean image) */
} wt_colormap;
typedef struct wt_mosaic_style {
    wt_scale scale;        /**< details by |v| (AUTO, ABS) or around mid-grey (OFFSET) */
    wt_mosaic_range range; /**< which detail bands share their display maximum M */
    wt_transfer transfer;  /**< curve from |v| / M to the display */
    wt_colormap colormap;
    double clip;           /**< M = this percentile of |v| (numpy's linear method); 100: max |v|;
                                larger |v| saturate */
    int grid;              /**< 1-pixel lines over the band borders (white; black on diverging) */
    int labels;            /**< band names (cA3, cH1, ...) in each band's corner, built-in font */
} wt_mosaic_style;

/** The style of wt_mosaic_render with @p scale (band ranges, linear, gray, max, no grid). */
wt_mosaic_style wt_mosaic_style_plain(wt_scale scale);
/** 1 when @p s draws exactly as wt_mosaic_render(s->scale) (so any engine can draw it). */
int wt_mosaic_style_is_plain(const wt_mosaic_style *s);
/** Render with a style: pyr->channels channels (diverging: 3), @p bit_depth 8 or 16. The
 *  plain style gives wt_mosaic_render's bytes. */
wt_status wt_mosaic_render_style(const wt_pyramid *pyr, const wt_mosaic_style *style,
                                 int bit_depth, wt_image *out);

/** Per-channel MSE and PSNR, and the PSNR of the mean MSE (peak 2^bitdepth - 1;
 *  float32-held images: max - min of @p a); INFINITY for identical images. WT_ERR_INVALID (naming both files) when size,
 *  channels or bit depth differ. */
typedef struct wt_quality {
    int channels;
    double mse[WT_MAX_CHANNELS], psnr[WT_MAX_CHANNELS];
    double mse_mean, psnr_mean;
} wt_quality;

wt_status wt_quality_compare(const wt_image *a, const wt_image *b, wt_quality *q);
/** wt_quality_compare with the PSNR's peak given (@p peak > 0; 0: the rule
 *  above): float32-held copies of 8/16-bit images keep their 255 or 65535. */
wt_status wt_quality_compare_peak(const wt_image *a, const wt_image *b, double peak,
                                  wt_quality *q);

/** A comparison fed rows at a time, from the top down (the reference read
 *  again in bands): the numbers of wt_quality_compare_peak of the whole
 *  images, bit for bit. Its fields are the comparison's own. */
typedef struct wt_quality_rows {
    wt_image layout;                  /* the images' size and samples (no pixels) */
    size_t done;                      /* pixels compared */
    uint64_t chunk[WT_MAX_CHANNELS];  /* 8/16-bit: the sums of the chunk being filled */
    long double sse[WT_MAX_CHANNELS]; /* the sums of squared differences */
    double lo, hi;                    /* float32: the reference's range so far */
} wt_quality_rows;
/** Start comparing two images laid out as @p layout. */
wt_status wt_quality_rows_start(wt_quality_rows *s, const wt_image *layout);
/** The next @p a->height rows: @p a of the reference, @p b of the other. */
wt_status wt_quality_rows_add(wt_quality_rows *s, const wt_image *a, const wt_image *b);
/** Every row fed: PSNR (@p peak > 0, else wt_quality_compare_peak's rule)
 *  and MSE into @p q. */
wt_status wt_quality_rows_finish(wt_quality_rows *s, double peak, wt_quality *q);

/** Threshold the detail coefficients of @p pyr in place (cA untouched), as
 *  pywt.threshold: hard zeroes |v| < @p value; soft also moves the others
 *  @p value towards zero (int32 pyramids: rounded to the nearest integer).
 *  @p kept (may be NULL): the fraction of detail coefficients left nonzero
 *  (1 when there are none). */
wt_status wt_pyramid_threshold(wt_pyramid *pyr, double value, int soft, double *kept);
/** Keep the round(@p fraction × n) largest-magnitude detail coefficients (ties:
 *  the first in storage order), zero the others; @p kept as above. */
wt_status wt_pyramid_keep(wt_pyramid *pyr, double fraction, double *kept);

/* ------------------------------------------------------------------------ */
/** @name Engines
 * An engine object is not thread-safe (it caches work areas): use one per
 * thread, or serialise calls. */

typedef struct wt_engine wt_engine;

/** Open an engine: "auto" (first working CUDA device, else CPU), "cpu",
 *  "cuda", "cuda:N". WT_ERR_DEVICE when a requested GPU cannot be used. */
wt_status wt_engine_open(wt_engine **engine, const char *device);
void wt_engine_close(wt_engine *engine);
/** "cpu" or "cuda:0 (NVIDIA H100 ...)" */
const char *wt_engine_name(const wt_engine *engine);
/** 1 if this engine is the CPU engine. */
int wt_engine_is_cpu(const wt_engine *engine);
/** Set worker threads of the CPU engine (0 = number of cores). */
void wt_engine_set_threads(wt_engine *engine, int threads);
/** Host memory that @p engine copies from and into fastest, for pixels kept
 *  from image to image (wt_pixel_room): page-locked on a GPU engine (usable
 *  by every GPU of the process), malloc'd on the CPU engine; NULL (with a
 *  message) when it cannot. Free it with wt_engine_host_free of the same kind
 *  of engine, which may be called from any thread. */
void *wt_engine_host_alloc(const wt_engine *engine, size_t bytes);
void wt_engine_host_free(const wt_engine *engine, void *ptr);

/** Forward transform of C planes (C × h × w floats) into @p out, which must have
 *  been planned with the same params/size and have data allocated. For integer
 *  wavelets the planes must hold integers; out is WT_INT32. */
wt_status wt_forward(wt_engine *engine, const wt_params *params, const float *planes,
                     wt_pyramid *out);
/** Inverse transform: planes (C × h × w) of the original size. Integer wavelets
 *  produce exact integers. */
wt_status wt_inverse(wt_engine *engine, const wt_params *params, const wt_pyramid *in,
                     float *planes);

/** @name Image transforms on an engine
 * The same numbers as wt_image_to_planes + wt_forward (+ wt_mosaic_render), or
 * wt_inverse + wt_image_from_planes, but the engine does the conversions where
 * it computes: a GPU engine moves only the 8/16-bit samples and the result over
 * the bus, through pinned staging buffers that overlap transfers with compute. */

/** Forward transform of an image's samples into @p out (planned and allocated
 *  for img's height, width and channels). */
wt_status wt_forward_image(wt_engine *engine, const wt_params *params, const wt_image *img,
                           wt_pyramid *out);
/** Inverse transform into @p img, allocated with the original's size, channels
 *  and depth: samples rounded to nearest and clamped to the depth's range. */
wt_status wt_inverse_image(wt_engine *engine, const wt_params *params, const wt_pyramid *in,
                           wt_image *img);
/** Forward transform and its mosaic (@p bit_depth 8 or 16), exactly as
 *  wt_mosaic_render draws it. @p mosaic is {0} (pixels allocated here), or an
 *  image from an earlier call or wt_image_alloc: its pixels are drawn into when
 *  the mosaic's size, channels and depth match (no allocation, no first-touch
 *  page faults: callers drawing many mosaics of one size keep it), else
 *  replaced. On failure the pixels are freed. */
wt_status wt_mosaic_image(wt_engine *engine, const wt_params *params, const wt_image *img,
                          wt_scale scale, int bit_depth, wt_image *mosaic);
/** wt_forward_image of an image the caller gives up: @p out planned and
 *  allocated here, img's pixels freed (NULL) on return, success or not. The
 *  CPU engine transforms float32 coefficients in the image's own storage
 *  (grown to the pyramid's size), with work space of a quarter of the float
 *  samples besides, where wt_forward_image holds the image, float planes, the
 *  pyramid and a work area as large as the planes. */
wt_status wt_forward_image_consume(wt_engine *engine, const wt_params *params, wt_image *img,
                                   wt_pyramid *out);
/** Forward then inverse transform: the reconstruction into @p back, allocated
 *  with img's size, channels and depth. The CPU engine computes in one buffer
 *  of the pyramid's size; for one channel it frees back's pixels first and
 *  gives back that buffer, converted, as new ones (gone on failure). */
wt_status wt_roundtrip_image(wt_engine *engine, const wt_params *params, const wt_image *img,
                             wt_image *back);
/** wt_roundtrip_image of an image the caller gives up: img's pixels freed
 *  (NULL) on return, success or not. The CPU engine transforms in the image's
 *  own storage grown to the pyramid's size, back's pixels freed first and
 *  allocated again (one channel: that storage, converted and shrunk) after
 *  the inverse: the image and the reconstruction are never held together. */
wt_status wt_roundtrip_image_consume(wt_engine *engine, const wt_params *params, wt_image *img,
                                     wt_image *back);

/** Where an engine's time went since it was opened (seconds, summed over
 *  calls). upload: samples or coefficients into the engine's working form
 *  (host to device, conversions); transform: the levels (and band work);
 *  download: results out (device to host, rounding, mosaic). The CPU engine
 *  and the band work: wall clock of the calling thread. The CUDA engine's
 *  image calls: the device's clock (events between the phases, the host's
 *  staging copies the device waits for included), read at the call's one
 *  wait. */
typedef struct wt_engine_times {
    double upload, transform, download;
    unsigned long calls;
} wt_engine_times;
void wt_engine_get_times(const wt_engine *engine, wt_engine_times *times);

/** Number of CUDA devices this process sees (0 without CUDA). */
int wt_gpu_count(void);

/** Names compiled in: "cpu" or "cpu cuda". */
const char *wt_backends(void);

/* ------------------------------------------------------------------------ */
/** @name Engine-resident pyramids
 * A pyramid held where its engine computes (device memory on a GPU engine, host
 * memory on the CPU engine). It moves only by explicit upload/download, so a
 * forward transform, band operations and the inverse chain without transfers
 * (the model: FFmpeg's hardware frames and av_hwframe_transfer_data). One
 * epyramid belongs to one engine and is used from one thread at a time. */

typedef struct wt_epyramid wt_epyramid;

/** One band of one channel: level 1..L (1 the finest); WT_BAND_A only at level L. */
typedef struct wt_band_ref {
    int level;
    wt_band band;
    int channel;
} wt_band_ref;

/** Create a pyramid on @p engine for @p params (resolved here; levels as given)
 *  and @p channels planes of height x width. */
wt_status wt_epyramid_create(wt_engine *engine, const wt_params *params, size_t height,
                             size_t width, int channels, wt_epyramid **out);
void wt_epyramid_destroy(wt_epyramid *p);
/** Its shapes: a planned wt_pyramid (data NULL), and its resolved params. */
const wt_pyramid *wt_epyramid_shape(const wt_epyramid *p);
const wt_params *wt_epyramid_params(const wt_epyramid *p);

/** Forward transform into the pyramid, from host planes (C x h x w float) or from an
 *  image's samples (same numbers as wt_forward / wt_forward_image). */
wt_status wt_epyramid_forward(wt_epyramid *p, const float *planes);
wt_status wt_epyramid_forward_image(wt_epyramid *p, const wt_image *img);
/** Inverse transform of the pyramid into host planes of the original size, or into
 *  @p img (allocated by the caller with the original size, channels and depth;
 *  rounded and clamped as wt_inverse_image). The pyramid is left unchanged. */
wt_status wt_epyramid_inverse(wt_epyramid *p, float *planes);
wt_status wt_epyramid_inverse_image(wt_epyramid *p, wt_image *img);
/** Explicit transfers between the engine and a host pyramid of the same plan
 *  (data allocated, host layout of wt_pyramid). */
wt_status wt_epyramid_upload(wt_epyramid *p, const wt_pyramid *host);
wt_status wt_epyramid_download(const wt_epyramid *p, wt_pyramid *host);

/** Cycle spinning without a transfer per shift: wt_epyramid_spin_load keeps
 *  @p img's samples on the engine as float planes (the one upload);
 *  wt_epyramid_spin_forward transforms them rolled by (dy, dx) as np.roll on
 *  both axes; wt_epyramid_spin_inverse_add inverts the pyramid, clips the
 *  samples to [lo, hi], rolls them back by (dy, dx) and adds them into an
 *  accumulator on the engine (double); wt_epyramid_spin_result writes
 *  accumulator / count into @p img (the one download; clipped to the depth's
 *  range, nearest with ties to even). Shifts are taken modulo the size. */
wt_status wt_epyramid_spin_load(wt_epyramid *p, const wt_image *img);
wt_status wt_epyramid_spin_forward(wt_epyramid *p, size_t dy, size_t dx);
wt_status wt_epyramid_spin_inverse_add(wt_epyramid *p, size_t dy, size_t dx, double lo,
                                       double hi);
wt_status wt_epyramid_spin_result(wt_epyramid *p, double count, wt_image *img);

/** Element-wise operations on bands, each with one argument t per band. */
typedef enum wt_band_op {
    WT_OP_HARD = 0, /**< c = |c| < t ? 0 : c            (pywt.threshold 'hard') */
    WT_OP_SOFT,     /**< c = sign(c) * max(|c| - t, 0)  (pywt.threshold 'soft') */
    WT_OP_SCALE,    /**< c = t * c */
    WT_OP_ZERO,     /**< c = 0 (t ignored) */
    WT_OP_QUANTIZE, /**< dead-zone uniform quantiser of step t > 0 and midpoint
                         reconstruction: q = sign(c) floor(|c| / t),
                         c = q == 0 ? 0 : sign(c) (|q| + 1/2) t  (JPEG 2000, r = 1/2) */
} wt_band_op;
/** Apply @p op with argument args[i] to band sel[i] for i < n (one pass on the
 *  device for all of them). int32 pyramids: results rounded to nearest. */
wt_status wt_epyramid_map(wt_epyramid *p, wt_band_op op, const wt_band_ref *sel,
                          const double *args, size_t n);

/** Statistics of one band, accumulated in double. */
typedef struct wt_band_stats {
    uint64_t count;         /**< coefficients in the band */
    double sum, sum_sq;     /**< sum of c and of c^2 */
    double min, max;        /**< smallest and largest c */
    double max_abs;         /**< largest |c| */
    uint64_t zeros;         /**< coefficients equal to 0 */
    uint64_t at_most;       /**< coefficients with |c| <= t[i] (t NULL: 0) */
} wt_band_stats;
/** Reduce each selected band to its statistics (one pass for all of them). */
wt_status wt_epyramid_reduce(const wt_epyramid *p, const wt_band_ref *sel, const double *t,
                             size_t n, wt_band_stats *out);

/** numpy's median of |c| of each selected band (mean of the two middle values for
 *  an even count); @p nonzero_only: of its nonzero coefficients only, as
 *  skimage's sigma estimate does (NaN when there are none). By selection on the
 *  engine, not a host sort. */
wt_status wt_epyramid_median_abs(const wt_epyramid *p, const wt_band_ref *sel, size_t n,
                                 int nonzero_only, double *out);
/** Zeroth-order entropy, in bits per coefficient, of each selected band's
 *  dead-zone quantiser indices q = sign(c) floor(|c| / @p step) (@p step > 0):
 *  -sum p_q log2 p_q over the distinct q of the band. The histogram is built on
 *  the host after one download of the pyramid (no engine operation counts
 *  distinct values). */
wt_status wt_epyramid_entropy(const wt_epyramid *p, const wt_band_ref *sel, size_t n,
                              double step, double *bits);
/** The k-th smallest |c| (0-based) over the union of the selected bands. */
wt_status wt_epyramid_kth_abs(const wt_epyramid *p, const wt_band_ref *sel, size_t n,
                              uint64_t k, double *out);

/** Zero the coefficients of the selected bands with |c| < @p cut, and of those
 *  with |c| == @p cut all but the first @p ties, counted in the order of @p sel
 *  (each band in storage order); the others are unchanged. With
 *  wt_epyramid_kth_abs and wt_epyramid_reduce it keeps exactly the k largest
 *  magnitudes, ties broken by position. Bands may not repeat. */
wt_status wt_epyramid_zero_below(wt_epyramid *p, const wt_band_ref *sel, size_t n, double cut,
                                 uint64_t ties);
/** The detail bands of every channel in storage order (cH_L, cV_L, cD_L, ...,
 *  cD_1; channel by channel inside a band) into @p sel, which has room for
 *  3 x levels x channels refs; returns their number. */
size_t wt_epyramid_details(const wt_epyramid *p, wt_band_ref *sel);
/** wt_pyramid_threshold and wt_pyramid_keep on the engine: the same numbers and
 *  the same @p kept, without moving the pyramid. */
wt_status wt_epyramid_threshold(wt_epyramid *p, double value, int soft, double *kept);
wt_status wt_epyramid_keep(wt_epyramid *p, double fraction, double *kept);
/** L2 norm of the synthesis basis function of band @p band at level @p level
 *  (1 the finest; WT_BAND_A: of the approximation) of @p w, on an unbounded
 *  signal: 1 for orthonormal wavelets. A coefficient c of the band adds
 *  |c| x this norm to the reconstruction. NaN for a level < 1. */
double wt_band_synthesis_norm(const wt_wavelet *w, int level, wt_band band);
/** wt_epyramid_keep ranked by |c| x wt_band_synthesis_norm() of the band (each
 *  coefficient's contribution to the reconstruction) instead of |c|: the same
 *  kept set for cdf97 and bior4.4 (filters equal up to gains). Orthonormal
 *  wavelets: exactly wt_epyramid_keep. Float pyramids stay on the engine;
 *  int32 ones (legall53) are ranked on the host. */
wt_status wt_epyramid_keep_weighted(wt_epyramid *p, double fraction, double *kept);

/* ------------------------------------------------------------------------ */
/** @name Wavelet packets (src/transforms/packet.c)
 *  The full packet tree = pywt.WaveletPacket2D(x, wavelet, mode, maxlevel):
 *  every node of level l < L split by one level of the 2-D DWT (wt_forward
 *  with 1 level) into its children a, h, v, d (pywt's paths). Node k of
 *  level l (0 <= k < 4^l) has the path whose letters are k's base-4 digits,
 *  the first the most significant (a 0, h 1, v 2, d 3); its children are
 *  4k .. 4k + 3. Every node of a level has the same shape. A basis marks
 *  each node of levels 0..L, numbered level by level (wt_packet_node_id),
 *  as a leaf, split, or below a leaf. Filter-bank wavelets only. */

/** Deepest packet tree: its leaves (4^L at most) are members of a .npz. */
#define WT_PACKET_MAX_LEVELS 6

/** A basis's mark of a node. */
enum { WT_PACKET_OUT = 0, WT_PACKET_LEAF = 1, WT_PACKET_SPLIT = 2 };

/** A packet tree of C planes of height x width to params.levels levels. */
typedef struct wt_packet_tree {
    wt_params params;     /**< wavelet (filter bank), mode, method; levels = depth L */
    size_t height, width; /**< the image */
    int channels;
    /** Shape of every node of level l (0: the image). */
    size_t node_h[WT_MAX_LEVELS + 1], node_w[WT_MAX_LEVELS + 1];
    /** Where level l's nodes start in data, in floats; [L + 1]: the total. */
    size_t level_at[WT_MAX_LEVELS + 2];
    /** Every level's nodes in index order, each C x h x w floats (level 0 the image). */
    float *data;
} wt_packet_tree;

/** How a best basis weighs a node's coefficients c (as MATLAB's wentropy). */
typedef enum wt_packet_cost_kind {
    WT_COST_SHANNON = 0, /**< -sum c^2 log(c^2), 0 log 0 = 0 */
    WT_COST_LOGENERGY,   /**< sum log(c^2) over c != 0 */
    WT_COST_THRESHOLD,   /**< the count of |c| > T */
    WT_COST_NORM,        /**< sum |c|^P */
} wt_packet_cost_kind;
typedef struct wt_packet_cost {
    wt_packet_cost_kind kind;
    double param; /**< T or P */
} wt_packet_cost;
/** "shannon", "logenergy", "threshold:T" (T >= 0) or "norm:P" (P >= 1). */
wt_status wt_packet_cost_parse(const char *text, wt_packet_cost *cost);
/** Its text, as parsed ("norm:1.5"). */
void wt_packet_cost_name(const wt_packet_cost *cost, char *buf, size_t size);

/** Which basis: the full tree's leaves (level L), the best (MATLAB's
 *  besttree), or every node of one level. */
typedef enum wt_packet_rule_kind {
    WT_BASIS_FULL = 0,
    WT_BASIS_BEST,
    WT_BASIS_LEVEL,
} wt_packet_rule_kind;
typedef struct wt_packet_rule {
    wt_packet_rule_kind kind;
    int level; /**< WT_BASIS_LEVEL: 0..L */
} wt_packet_rule;
/** "full", "best" or "level:N". */
wt_status wt_packet_rule_parse(const char *text, wt_packet_rule *rule);
void wt_packet_rule_name(const wt_packet_rule *rule, char *buf, size_t size);

/** Nodes of levels 0..@p levels: (4^(L+1) - 1) / 3. */
size_t wt_packet_node_count(int levels);
/** Number of node k of level l in a basis: (4^l - 1) / 3 + k. */
size_t wt_packet_node_id(int level, size_t k);
/** The path of node k of level l ("" for the root) into @p out (l + 1 bytes). */
void wt_packet_path(int level, size_t k, char *out);
/** Level and index of a path of a, h, v, d (at most WT_MAX_LEVELS letters);
 *  0 when it is not one. */
int wt_packet_path_parse(const char *path, int *level, size_t *k);

/** Shapes of the tree of @p params.levels levels (no allocation); WT_ERR_INVALID
 *  for a JPEG 2000 wavelet, or more levels than pywt.dwt_max_level or
 *  WT_PACKET_MAX_LEVELS allow. */
wt_status wt_packet_plan(wt_packet_tree *t, const wt_params *params, size_t height,
                         size_t width, int channels);
/** Plan and allocate (zeroed). */
wt_status wt_packet_alloc(wt_packet_tree *t, const wt_params *params, size_t height,
                          size_t width, int channels);
void wt_packet_free(wt_packet_tree *t);
/** Node k of level l: C x node_h[l] x node_w[l] floats. */
float *wt_packet_node(const wt_packet_tree *t, int level, size_t k);
/** Floats of one node of level l (all channels). */
size_t wt_packet_node_size(const wt_packet_tree *t, int level);

/** Every node of the tree from C planes (C x height x width), each split one
 *  wt_forward call of one level on @p engine. */
wt_status wt_packet_forward(wt_engine *engine, wt_packet_tree *t, const float *planes);
/** The image back from the leaves of @p basis (every split node rebuilt from
 *  its children by one wt_inverse call, as pywt's reconstruct), into @p planes. */
wt_status wt_packet_inverse(wt_engine *engine, wt_packet_tree *t, const unsigned char *basis,
                            float *planes);

/** wt_packet_forward and wt_packet_choose in one call, so that an engine
 *  that keeps the tree resident (CUDA) splits and costs every node there and
 *  copies back only the leaves of the chosen basis (every node when
 *  @p all_nodes): the other nodes of t->data are then left as they were.
 *  The CPU engine fills every node. @p costs (NULL: not wanted) gets every
 *  node's cost, summed on the engine (the CUDA engine: in another order, of
 *  its own coefficients; the rule that chooses is the same). */
wt_status wt_packet_decompose(wt_engine *engine, wt_packet_tree *t, const float *planes,
                              const wt_packet_rule *rule, const wt_packet_cost *cost,
                              unsigned char *basis, double *costs, int all_nodes);
/** A node's cost over all its channels. */
double wt_packet_node_cost(const wt_packet_tree *t, int level, size_t k,
                           const wt_packet_cost *cost);
/** The basis @p rule chooses on @p t (wt_packet_node_count marks into @p basis);
 *  @p costs (NULL: not wanted) gets every node's cost. Best: bottom-up from
 *  level L, a split node becomes a leaf, its subtree pruned, when its cost is
 *  at most the sum of its children's best costs (MATLAB's besttree). */
wt_status wt_packet_choose(const wt_packet_tree *t, const wt_packet_rule *rule,
                           const wt_packet_cost *cost, unsigned char *basis, double *costs);
/** The basis whose leaves are @p paths (@p n of them, any order) in a tree of
 *  @p levels levels: WT_ERR_INVALID (message naming the path) unless they
 *  tile the tree exactly once. */
wt_status wt_packet_basis_from_paths(int levels, const char *const *paths, size_t n,
                                     unsigned char *basis);
/** The leaves of @p basis depth first, a h v d order: their levels and indices
 *  (either NULL: only counted); returns how many. */
size_t wt_packet_leaves(int levels, const unsigned char *basis, int *level, size_t *k);

/** Write the leaves of @p basis as members named by their paths (the root
 *  leaf "root"), (C, h, w) float32, a member "tree" (the leaves' paths, one a
 *  line, uint8 text) and the meta (transform "packet", levels L). */
wt_status wt_npz_save_packets(const char *path, const wt_packet_tree *t,
                              const unsigned char *basis, const wt_npz_meta *meta);
/** Read a packet file: @p t allocated to the meta's levels, the leaves its
 *  "tree" lists filled (any set that tiles the tree once), *@p basis
 *  (malloc'ed, wt_packet_node_count marks) their basis. */
wt_status wt_npz_load_packets(const char *path, const wt_load_options *opt, wt_packet_tree *t,
                              unsigned char **basis, wt_npz_meta *meta);
/** The L2 norm of the synthesis basis function of node k of level l (as
 *  wt_band_synthesis_norm for DWT bands; 1 for orthonormal wavelets). */
double wt_packet_synthesis_norm(const wt_wavelet *w, int level, size_t k);
/** On the detail leaves of @p basis (every leaf but a..a, kept as cA is):
 *  pywt.threshold at @p value (hard or @p soft); keep the round(fraction x N)
 *  largest |c| (@p weighted: times the leaf's synthesis norm), zero the rest;
 *  the dead-zone quantiser of wt_band_op's WT_OP_QUANTIZE at @p step, *@p bpp
 *  the zeroth-order entropy of every leaf's indices (the approximation's too)
 *  per image pixel. *@p kept: nonzero detail coefficients / all of them. */
wt_status wt_packet_threshold(wt_packet_tree *t, const unsigned char *basis, double value,
                              int soft, double *kept);
wt_status wt_packet_keep(wt_packet_tree *t, const unsigned char *basis, double fraction,
                         int weighted, double *kept);
wt_status wt_packet_quantize(wt_packet_tree *t, const unsigned char *basis, double step,
                             double *bpp);
/** The mosaic of @p basis's leaves (1 to 4 channels, @p bit_depth 8 or 16):
 *  each in its quadrant of the tree (a top-left, v top-right, h bottom-left,
 *  d bottom-right), scaled as wt_mosaic_render's bands (the leaf a..a as the
 *  approximation); style: scale, grid (leaf borders), labels (paths);
 *  WT_ERR_UNSUPPORTED for any other display option. */
wt_status wt_packet_mosaic(const wt_packet_tree *t, const unsigned char *basis,
                           const wt_mosaic_style *style, int bit_depth, wt_image *out);
/** 1 when @p path is a regular file holding wavelet packets. */
int wt_npz_is_packets(const char *path);

/* ------------------------------------------------------------------------ */
/** @name Denoising (src/analysis/denoise.c)
 * Wavelet shrinkage equal to scikit-image 0.19.3's
 * `denoise_wavelet(img, channel_axis=-1, rescale_sigma=True, ...)` and
 * `estimate_sigma`, computed on an engine's resident pyramids. Integer images
 * are processed in sample units and come back at their depth (clipped,
 * rounded half to even as img_as_ubyte/img_as_uint do). */

/** How the thresholds are chosen. */
typedef enum wt_shrink_rule {
    WT_RULE_BAYES = 0, /**< BayesShrink: per detail band t = s^2 / sqrt(max(mean(d^2) - s^2, eps)) */
    WT_RULE_VISU,      /**< VisuShrink: t = s sqrt(2 ln N), N pixels of a channel */
    WT_RULE_FIXED,     /**< one threshold for every detail band (wt_denoise_options.threshold) */
} wt_shrink_rule;

/** The noise model. */
typedef enum wt_noise_model {
    WT_NOISE_GAUSSIAN = 0, /**< additive white Gaussian noise */
    WT_NOISE_POISSON,      /**< photon counts: Anscombe 2 sqrt(x + 3/8), denoise with s = 1,
                                Makitalo-Foi closed-form unbiased inverse */
} wt_noise_model;

/** What wt_denoise_image() does. wt_denoise_defaults() gives scikit-image's defaults. */
typedef struct wt_denoise_options {
    wt_params params;    /**< wavelet (db1), mode (symmetric), method; levels 0 =
                              max(wt_max_level(h, w) - 3, 1) as scikit-image */
    wt_shrink_rule rule; /**< WT_RULE_BAYES */
    int soft;            /**< 1 soft (default), 0 hard shrinkage (pywt.threshold) */
    double threshold;    /**< WT_RULE_FIXED: the threshold in sample units */
    double sigma;        /**< noise sigma in sample units (0-255 for 8-bit); NaN: estimated
                              per channel from its finest diagonal band */
    int ycbcr;           /**< RGB only: denoise in scikit-image's YCbCr, each channel
                              min-max normalised */
    int cycle_spin;      /**< N > 0: mean over the (N+1)^2 circular shifts 0..N on both
                              axes (skimage.restoration.cycle_spin(max_shifts=N)) */
    wt_noise_model noise;
    int nlevel_scale;    /**< thresholds of level l (1 the finest) <= nlevel_scale are */
    double level_scale[WT_MAX_LEVELS]; /**< multiplied by level_scale[l - 1] */
    int swt;             /**< 1: the stationary wavelet transform (wt_uforward, = pywt.swt2
                              with trim_approx=True, mode and method ignored) instead of
                              the DWT; levels 0 = max(wt_umax_level - 3, 1); on the host */
    int packet;          /**< 1: wavelet packets (mode and method as the DWT's), the
                              leaves of @p basis shrunk as DWT bands (the all-approximation
                              leaf kept); levels 0 = as the DWT's */
    wt_packet_rule basis; /**< packets: which basis */
    wt_packet_cost cost;  /**< packets: the best basis's cost */
    int starlet;         /**< 1: the starlet (mirror border), Sparse2D mr_filter's k-sigma
                              thresholding: scale j at k sigma ||psi_j|| (@p rule unused;
                              mr_filter's is hard: soft = 0); levels 0 = 3 (mr_filter's
                              4 scales) or fewer on small images */
    double k;            /**< starlet: the threshold in noise sigmas of each scale (3) */
    const double *estimates; /**< NULL, or what wt_denoise_estimate() gave for this image
                                  under these options: the host's noise estimate is not
                                  made again (a batch makes it before taking a shared
                                  engine, so a GPU does not wait on it) */
} wt_denoise_options;

/** What a denoise found. */
typedef struct wt_denoise_info {
    int levels;      /**< levels of the decomposition */
    int channels;
    double sigma[4]; /**< sigma used per channel (sample units; YCbCr: of the YCbCr channel
                          in scikit-image's units, Y' 16-235,
                          Poisson: 1 in Anscombe units; NaN: no nonzero finest diagonal
                          coefficient, the channel is left as it is). With cycle
                          spinning: of the unshifted image. */
    double support[WT_MAX_LEVELS]; /**< starlet: share of scale j's coefficients (all
                                        channels) in the multiresolution support, j = 1..levels */
} wt_denoise_info;

/** scikit-image's defaults: BayesShrink, soft, db1, symmetric, default levels. */
void wt_denoise_defaults(wt_denoise_options *o);
/** scikit-image's default level count: max(wt_max_level(h, w, wavelet) - 3, 1). */
int wt_denoise_levels(size_t height, size_t width, const wt_wavelet *wavelet);
/** Denoise @p in into @p out (allocated by the caller with in's size, channels and
 *  depth, or float32 for the unrounded result of 8/16-bit samples: clipped to
 *  0..peak as integer images are, values in sample units). The noise estimate
 *  is scikit-image's (float64, on the samples / peak), whatever @p out holds.
 *  @p info may be NULL. WT_ERR_UNSUPPORTED: --ycbcr on a non-RGB image.
 *  Without YCbCr, Poisson noise or cycle spinning, the pyramid never leaves the
 *  engine: only samples go in and out. */
wt_status wt_denoise_image(wt_engine *engine, const wt_denoise_options *o, const wt_image *in,
                           wt_image *out, wt_denoise_info *info);
/** Values wt_denoise_estimate() writes: 4 per cycle-spin shift. */
size_t wt_denoise_estimate_count(const wt_denoise_options *o);
/** The noise estimate that wt_denoise_image() makes on the host for @p in under
 *  @p o, into @p sigma (wt_denoise_estimate_count() values: 4 per cycle-spin
 *  shift (dy, dx), dy-major; sample units; NaN where wt_denoise_image() makes
 *  none on the host: a fixed threshold, a wavelet or mode whose estimate the
 *  engine makes, the SWT, starlet, YCbCr and Poisson paths; --sigma where given).
 *  Pass it back in o->estimates: the same result, without that work on the
 *  engine's time. About @p threads threads (each shift's channels on threads of
 *  their own; 0: the processors). */
wt_status wt_denoise_estimate(const wt_denoise_options *o, const wt_image *in, int threads,
                              double *sigma);
/** 1 when wt_denoise_image() on @p engine makes the noise estimate for @p in
 *  under @p o on the engine itself (the CUDA engine: the same bits as the
 *  host's, in the engine's own time), so wt_denoise_estimate() beforehand
 *  would only add host work; 0 otherwise (the CPU engine, other transforms,
 *  YCbCr, Poisson, --sigma, a fixed threshold, WT_DENOISE_HOST_ESTIMATE=1). */
int wt_denoise_estimates_on_engine(const wt_engine *engine, const wt_denoise_options *o,
                                   const wt_image *in);
/** estimate_sigma per channel (one-level db2, symmetric, the diagonal band's
 *  median(|nonzero c|) / 0.6745) in sample units, into @p sigma (img->channels
 *  values; NaN when the band holds no nonzero coefficient). */
wt_status wt_estimate_sigma(wt_engine *engine, const wt_image *img, double *sigma);

/* ------------------------------------------------------------------------ */
/** @name Undecimated transforms (src/transforms/undecimated.c): SWT and starlet
 * Every band has the input's full size. A stack holds them as
 * nbands x C x height x width floats (band-major, then channel). */

/** Check a combination (wavelet kind, levels, sizes) for @p height x @p width. */
wt_status wt_uparams_check(const wt_uparams *p, size_t height, size_t width);
/** Number of full-size bands: SWT 1 + 3L (+ L - 1 with all_approx); starlet L + 1. */
int wt_ustack_bands(const wt_uparams *p);
/** Index of a band in the stack. SWT: @p level 1..L, @p band A (level L, or any
 *  level with all_approx), H, V, D. Starlet: level 0 = the smooth plane c_L,
 *  level j = w_j (band ignored). -1 when the stack has no such band.
 *  Order: SWT cA_L, then cH_l, cV_l, cD_l for l = L..1, then cA_1..cA_{L-1};
 *  starlet c, w1..wL. */
int wt_ustack_index(const wt_uparams *p, int level, wt_band band);
/** Deepest number of levels for an image: SWT pywt.swt_max_level of the
 *  shorter side (at least 1); starlet floor(log2(shorter side)) (at least 1). */
int wt_umax_level(const wt_uparams *p, size_t height, size_t width);

/** Forward transform of C planes (C x h x w) into @p bands (wt_ustack_bands x
 *  C x h x w floats, allocated by the caller). */
wt_status wt_uforward(wt_engine *engine, const wt_uparams *params, const float *planes,
                      size_t height, size_t width, int channels, float *bands);
/** Size of the mosaic of a band stack: a grid of full-size tiles. SWT: 4 tiles
 *  wide (cA, cH, cV, cD), one row per level, coarsest on top; the cA column
 *  holds cA_L on the top row, cA_l below with all_approx, else black. Starlet:
 *  one row, c then w_L ... w_1. */
void wt_umosaic_size(const wt_uparams *p, size_t height, size_t width, size_t *mh, size_t *mw);
/** Render a band stack's mosaic (allocated here), each tile scaled as
 *  wt_mosaic_render scales a band (cA and c as approximations). */
wt_status wt_umosaic_render(const wt_uparams *p, const float *bands, size_t height, size_t width,
                            int channels, wt_scale scale, int bit_depth, wt_image *out);
/** Inverse: SWT = pywt.iswt2 (extra cA bands ignored); starlet: the sum of all
 *  bands. */
wt_status wt_uinverse(wt_engine *engine, const wt_uparams *params, const float *bands,
                      size_t height, size_t width, int channels, float *planes);



#ifdef __cplusplus
}
#endif
#endif
