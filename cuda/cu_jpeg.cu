/* The GPU JPEG codec: nvJPEG's decoder and encoder for src/formats/jpeg_io.c
 * (src/formats/jpeg_gpu.h; started by wt_gpu_jpeg_start, wavetool_hooks.h).
 *
 * Decoding: through the hardware JPEG engine (A100, H100, H200:
 * NVJPEG_BACKEND_HARDWARE, nvjpegDecodeBatched with a batch of one per
 * caller, the callers' batches running side by side) when it takes the file
 * (nvjpegDecodeBatchedSupported), else and on GPUs without the engine through
 * the GPU hybrid backend (nvjpegDecode); the
 * pixels come back into the caller's host image (directly when it is
 * page-locked, a worker's pixel room; else through the slot's page-locked
 * buffer), and an encoder's input goes up the same way. Encoding: nvjpegEncodeImage
 * (RGB, 4:2:0) or nvjpegEncodeYUV (gray) on a handle of the default backend,
 * at libjpeg's quality, baseline
 * Huffman with the standard tables, as libjpeg's defaults.
 *
 * Each call takes a slot (its stream, decoder and encoder states, a device
 * buffer for the pixels) from a pool that grows to the number of threads
 * calling at once. Every nvJPEG status becomes ours in cu_fail_nvjpeg
 * (cu_engine.cu), every CUDA error in cu_fail. Compiled out (and
 * src/formats/jpeg_gpu.c stands in) where the build has no nvJPEG, the host
 * emulation (cuda/emu) included. */
#include "config.h"

#if WT_HAVE_NVJPEG
#include <nvjpeg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_engine.h"
#include "cu_jpeg_color.cuh"
extern "C" {
#include "jpeg_gpu.h"
}

#define NV_TRY(name, what, call)                                                                \
    do {                                                                                        \
        nvjpegStatus_t nv_st_ = (call);                                                         \
        if (nv_st_ != NVJPEG_STATUS_SUCCESS)                                                    \
            return cu_fail_nvjpeg((int)nv_st_, what, name);                                     \
    } while (0)

/* One caller's nvJPEG objects. */
typedef struct jpeg_slot {
    struct jpeg_slot *next;
    cudaStream_t stream;
    nvjpegJpegState_t hw_state;    /* hardware decoder: a batch of one */
    nvjpegJpegStream_t hw_parsed;  /* the header, for nvjpegDecodeBatchedSupported */
    int hw_format;                 /* output format hw_state is set up for; -1 none */
    nvjpegJpegState_t state;       /* GPU hybrid decoder */
    nvjpegEncoderState_t enc;
    nvjpegEncoderParams_t enc_params;
    unsigned char *d_pixels;
    size_t d_bytes;
    unsigned char *h_pixels; /* page-locked: the pixels' copies at the copy engine's speed */
    size_t h_bytes;
} jpeg_slot;

static struct {
    int device;
    unsigned what;       /* WT_GPU_JPEG_*: 0 while stopped */
    nvjpegHandle_t hw;   /* NULL: no hardware decoder (or no decoding) */
    nvjpegHandle_t gpu;  /* the GPU hybrid decoder */
    nvjpegHandle_t enc;  /* the encoder (the default backend) */
    pthread_mutex_t lock;
    jpeg_slot *free_slots;
} codec = {-1, 0, NULL, NULL, NULL, PTHREAD_MUTEX_INITIALIZER, NULL};

extern "C" int wt_gpu_jpeg_built(void)
{
    return 1;
}

extern "C" int wt_gpu_jpeg_active(unsigned what)
{
    return (codec.what & what) != 0;
}

/* ---- slots ------------------------------------------------------------- */

static void slot_free(jpeg_slot *s)
{
    if (!s)
        return;
    if (s->enc_params)
        nvjpegEncoderParamsDestroy(s->enc_params);
    if (s->enc)
        nvjpegEncoderStateDestroy(s->enc);
    if (s->state)
        nvjpegJpegStateDestroy(s->state);
    if (s->hw_parsed)
        nvjpegJpegStreamDestroy(s->hw_parsed);
    if (s->hw_state)
        nvjpegJpegStateDestroy(s->hw_state);
    if (s->d_pixels)
        cudaFree(s->d_pixels);
    if (s->h_pixels)
        cudaFreeHost(s->h_pixels);
    if (s->stream)
        cudaStreamDestroy(s->stream);
    free(s);
}

/* A new slot's objects, for what the codec was started for. */
static wt_status slot_init(jpeg_slot *s, const char *name)
{
    s->hw_format = -1;
    CU_CHECK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    if (codec.what & WT_GPU_JPEG_DECODE) {
        NV_TRY(name, "nvjpegJpegStateCreate", nvjpegJpegStateCreate(codec.gpu, &s->state));
        if (codec.hw) {
            NV_TRY(name, "nvjpegJpegStateCreate", nvjpegJpegStateCreate(codec.hw, &s->hw_state));
            NV_TRY(name, "nvjpegJpegStreamCreate",
                   nvjpegJpegStreamCreate(codec.hw, &s->hw_parsed));
        }
    }
    if (codec.what & WT_GPU_JPEG_ENCODE) {
        NV_TRY(name, "nvjpegEncoderStateCreate",
               nvjpegEncoderStateCreate(codec.enc, &s->enc, s->stream));
        NV_TRY(name, "nvjpegEncoderParamsCreate",
               nvjpegEncoderParamsCreate(codec.enc, &s->enc_params, s->stream));
    }
    return WT_OK;
}

/* A slot of the pool, or a new one; on this thread, the codec's device. */
static wt_status slot_take(jpeg_slot **out, const char *name)
{
    CU_CHECK(cudaSetDevice(codec.device));
    pthread_mutex_lock(&codec.lock);
    jpeg_slot *s = codec.free_slots;
    if (s)
        codec.free_slots = s->next;
    pthread_mutex_unlock(&codec.lock);
    if (!s) {
        s = (jpeg_slot *)calloc(1, sizeof *s);
        if (!s)
            return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", name);
        wt_status st = slot_init(s, name);
        if (st != WT_OK) {
            slot_free(s);
            return st;
        }
    }
    *out = s;
    return WT_OK;
}

static void slot_give(jpeg_slot *s)
{
    pthread_mutex_lock(&codec.lock);
    s->next = codec.free_slots;
    codec.free_slots = s;
    pthread_mutex_unlock(&codec.lock);
}

/* The slot's device buffer, at least @p bytes. */
static wt_status slot_pixels(jpeg_slot *s, size_t bytes)
{
    if (s->d_bytes >= bytes)
        return WT_OK;
    if (s->d_pixels)
        CU_CHECK(cudaFree(s->d_pixels));
    s->d_pixels = NULL;
    s->d_bytes = 0;
    cudaError_t err = cudaMalloc((void **)&s->d_pixels, bytes);
    if (err != cudaSuccess)
        return cu_fail(NULL, err, "cudaMalloc (GPU JPEG)", bytes);
    s->d_bytes = bytes;
    return WT_OK;
}

/* The slot's page-locked host buffer, at least @p bytes: pageable copies of
 * a whole image serialise the workers on the driver's own staging. */
static wt_status slot_host(jpeg_slot *s, size_t bytes)
{
    if (s->h_bytes >= bytes)
        return WT_OK;
    if (s->h_pixels)
        CU_CHECK(cudaFreeHost(s->h_pixels));
    s->h_pixels = NULL;
    s->h_bytes = 0;
    cudaError_t err = cudaHostAlloc((void **)&s->h_pixels, bytes, cudaHostAllocDefault);
    if (err != cudaSuccess)
        return cu_fail_host(err, "cudaHostAlloc (GPU JPEG)", bytes);
    s->h_bytes = bytes;
    return WT_OK;
}

/* Whether @p p is page-locked (a file worker's pixel room, cli/pipeline.c):
 * copied directly, without the slot's staging copy. */
static int page_locked(const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError(); /* not known to CUDA: pageable */
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

/* ---- start and stop ------------------------------------------------------ */

extern "C" void wt_gpu_jpeg_stop(void)
{
    if (!codec.what)
        return;
    cudaSetDevice(codec.device);
    while (codec.free_slots) {
        jpeg_slot *s = codec.free_slots;
        codec.free_slots = s->next;
        slot_free(s);
    }
    nvjpegHandle_t handles[3] = {codec.hw, codec.gpu, codec.enc};
    for (int i = 0; i < 3; i++)
        if (handles[i])
            nvjpegDestroy(handles[i]);
    codec.hw = codec.gpu = codec.enc = NULL;
    codec.what = 0;
    codec.device = -1;
}

/* The decoders' handles: the hardware one where the GPU has the JPEG engine
 * (elsewhere nvjpegCreateEx refuses the backend), and the GPU hybrid one
 * (else the default backend). */
static wt_status create_decoders(void)
{
    if (nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, NULL, NULL, 0, &codec.hw) != NVJPEG_STATUS_SUCCESS)
        codec.hw = NULL;
    nvjpegStatus_t st = nvjpegCreateEx(NVJPEG_BACKEND_GPU_HYBRID, NULL, NULL, 0, &codec.gpu);
    if (st != NVJPEG_STATUS_SUCCESS)
        st = nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, NULL, NULL, 0, &codec.gpu);
    if (st != NVJPEG_STATUS_SUCCESS)
        codec.gpu = NULL;
    return st == NVJPEG_STATUS_SUCCESS ? WT_OK : cu_fail_nvjpeg((int)st, "nvjpegCreateEx", "GPU JPEG");
}

static wt_status create_handles(unsigned what)
{
    if (what & WT_GPU_JPEG_DECODE)
        WT_TRY(create_decoders());
    if (what & WT_GPU_JPEG_ENCODE)
        NV_TRY("GPU JPEG", "nvjpegCreateSimple", nvjpegCreateSimple(&codec.enc));
    return WT_OK;
}

extern "C" wt_status wt_gpu_jpeg_start(wt_engine *engine, unsigned what, char *backend,
                                       size_t size)
{
    wt_gpu_jpeg_stop();
    if (backend && size)
        backend[0] = '\0';
    int device = cu_engine_device(engine);
    if (device < 0)
        return wt_error_set(WT_ERR_UNSUPPORTED, "GPU JPEG needs the CUDA engine");
    CU_CHECK(cudaSetDevice(device));
    codec.device = device;
    codec.what = what;
    wt_status st = create_handles(what);
    if (st != WT_OK) {
        wt_gpu_jpeg_stop();
        return st;
    }
    if (backend && size)
        snprintf(backend, size, "%s", codec.hw ? "hardware" : "GPU hybrid");
    return WT_OK;
}

/* ---- decoding ------------------------------------------------------------ */

/* @p data through the hardware decoder into @p dest; WT_ERR_UNSUPPORTED
 * for a file it does not take. */
static wt_status decode_hardware(jpeg_slot *s, const unsigned char *data, size_t size,
                                 nvjpegOutputFormat_t format, nvjpegImage_t *dest,
                                 const char *name)
{
    NV_TRY(name, "nvjpegJpegStreamParseHeader",
           nvjpegJpegStreamParseHeader(codec.hw, data, size, s->hw_parsed));
    int unsupported = 1;
    NV_TRY(name, "nvjpegDecodeBatchedSupported",
           nvjpegDecodeBatchedSupported(codec.hw, s->hw_parsed, &unsupported));
    if (unsupported)
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: not for the hardware JPEG decoder", name);
    if (s->hw_format != (int)format) {
        NV_TRY(name, "nvjpegDecodeBatchedInitialize",
               nvjpegDecodeBatchedInitialize(codec.hw, s->hw_state, 1, 1, format));
        s->hw_format = (int)format;
    }
    NV_TRY(name, "nvjpegDecodeBatched",
           nvjpegDecodeBatched(codec.hw, s->hw_state, &data, &size, dest, s->stream));
    return WT_OK;
}

/* ---- decoding into the host image ------------------------------------------ */

/* @p data through the hardware decoder, else the hybrid one, into @p dest. */
static wt_status decode_into(jpeg_slot *s, const unsigned char *data, size_t size,
                             nvjpegOutputFormat_t format, nvjpegImage_t *dest, const char *name)
{
    if (!codec.hw || decode_hardware(s, data, size, format, dest, name) != WT_OK)
        NV_TRY(name, "nvjpegDecode",
               nvjpegDecode(codec.gpu, s->state, data, size, format, dest, s->stream));
    return WT_OK;
}

/* Chroma subsampling libjpeg-turbo interpolates: h2v2, h2v1, h1v2 into
 * *@p hs, *@p vs; 0 for none (4:4:4: nvJPEG's RGB is libjpeg-turbo's) or
 * others (4:1:1..., which libjpeg-turbo decodes). */
static int fancy_subsampling(nvjpegChromaSubsampling_t css, int *hs, int *vs)
{
    *hs = css == NVJPEG_CSS_420 || css == NVJPEG_CSS_422 ? 2 : 1;
    *vs = css == NVJPEG_CSS_420 || css == NVJPEG_CSS_440 ? 2 : 1;
    return *hs * *vs > 1;
}

/* A subsampled colour file: its planes (after the RGB image in the slot's
 * buffer), then RGB by ycc_to_rgb_kernel into the buffer's start. */
static wt_status decode_planes(jpeg_slot *s, const unsigned char *data, size_t size, int hs,
                               int vs, const int nv_size[2], const char *name,
                               const wt_image *img)
{
    const int w = (int)img->width, h = (int)img->height;
    const int cw = (w + hs - 1) / hs, ch = (h + vs - 1) / vs; /* libjpeg's downsampled size */
    /* room for nvJPEG's chroma planes should it size them otherwise */
    const int cpitch = nv_size[0] > cw ? nv_size[0] : cw, crows = nv_size[1] > ch ? nv_size[1] : ch;
    const size_t rgb = (size_t)w * h * 3, luma = (size_t)w * h, chroma = (size_t)cpitch * crows;
    WT_TRY(slot_pixels(s, rgb + luma + 2 * chroma + 64));
    nvjpegImage_t dest;
    memset(&dest, 0, sizeof dest);
    dest.channel[0] = s->d_pixels + rgb;
    dest.channel[1] = dest.channel[0] + luma;
    dest.channel[2] = dest.channel[1] + chroma;
    dest.pitch[0] = (size_t)w;
    dest.pitch[1] = dest.pitch[2] = (size_t)cpitch;
    WT_TRY(decode_into(s, data, size, NVJPEG_OUTPUT_YUV, &dest, name));
    WT_LAUNCH(ycc_to_rgb_kernel, dim3(1, (unsigned)h), 256, 0, s->stream, dest.channel[0],
              dest.pitch[0], dest.channel[1], dest.channel[2], (size_t)cpitch, cw, ch, hs, vs, w,
              s->d_pixels);
    CU_CHECK(cudaGetLastError());
    return WT_OK;
}

static wt_status decode_on(jpeg_slot *s, const unsigned char *data, size_t size,
                           const char *name, wt_image *img)
{
    const size_t pitch = (size_t)img->width * (size_t)img->channels;
    const size_t bytes = pitch * img->height;
    int components = 0, widths[NVJPEG_MAX_COMPONENT], heights[NVJPEG_MAX_COMPONENT], hs, vs;
    nvjpegChromaSubsampling_t css = NVJPEG_CSS_UNKNOWN;
    NV_TRY(name, "nvjpegGetImageInfo",
           nvjpegGetImageInfo(codec.gpu, data, size, &components, &css, widths, heights));
    const int fancy = components == 3 && fancy_subsampling(css, &hs, &vs);
    if (img->channels == 3 && !fancy && !(components == 3 && css == NVJPEG_CSS_444))
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: chroma subsampling the GPU does not upsample as libjpeg-turbo",
                            name);
    if (img->channels == 3 && fancy) {
        const int chroma_size[2] = {widths[1], heights[1]};
        WT_TRY(decode_planes(s, data, size, hs, vs, chroma_size, name, img));
    } else {
        WT_TRY(slot_pixels(s, bytes));
        nvjpegImage_t dest;
        memset(&dest, 0, sizeof dest);
        dest.channel[0] = s->d_pixels;
        dest.pitch[0] = pitch;
        WT_TRY(decode_into(s, data, size,
                           img->channels == 1 ? NVJPEG_OUTPUT_Y : NVJPEG_OUTPUT_RGBI, &dest, name));
    }
    int direct = page_locked(img->pixels);
    if (!direct)
        WT_TRY(slot_host(s, bytes));
    CU_CHECK(cudaMemcpyAsync(direct ? img->pixels : s->h_pixels, s->d_pixels, bytes,
                             cudaMemcpyDeviceToHost, s->stream));
    CU_CHECK(cudaStreamSynchronize(s->stream));
    if (!direct)
        memcpy(img->pixels, s->h_pixels, bytes);
    return WT_OK;
}

extern "C" wt_status wt_gpu_jpeg_decode(const void *data, size_t size, const char *name,
                                        wt_image *img)
{
    if (!(codec.what & WT_GPU_JPEG_DECODE))
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: GPU JPEG decoding not started", name);
    if (img->bit_depth != 8 || (img->channels != 1 && img->channels != 3))
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: %d channels", name, img->channels);
    jpeg_slot *s = NULL;
    wt_status st = slot_take(&s, name);
    if (st == WT_OK) {
        st = decode_on(s, (const unsigned char *)data, size, name, img);
        slot_give(s);
    }
    return wt_error_prefix(st, name);
}

/* ---- encoding ------------------------------------------------------------ */

static wt_status encode_on(jpeg_slot *s, const char *name, const uint8_t *pixels,
                           uint32_t width, uint32_t height, int channels, int quality,
                           uint8_t **out, size_t *size)
{
    const size_t pitch = (size_t)width * (size_t)channels;
    const uint8_t *from = pixels; /* page-locked: read by the copy itself */
    WT_TRY(slot_pixels(s, pitch * height));
    if (!page_locked(pixels)) {
        WT_TRY(slot_host(s, pitch * height));
        memcpy(s->h_pixels, pixels, pitch * height);
        from = s->h_pixels;
    }
    CU_CHECK(cudaMemcpyAsync(s->d_pixels, from, pitch * height, cudaMemcpyHostToDevice,
                             s->stream));
    nvjpegChromaSubsampling_t css = channels == 1 ? NVJPEG_CSS_GRAY : NVJPEG_CSS_420;
    NV_TRY(name, "nvjpegEncoderParamsSetQuality",
           nvjpegEncoderParamsSetQuality(s->enc_params, quality, s->stream));
    NV_TRY(name, "nvjpegEncoderParamsSetOptimizedHuffman",
           nvjpegEncoderParamsSetOptimizedHuffman(s->enc_params, 0, s->stream));
    NV_TRY(name, "nvjpegEncoderParamsSetSamplingFactors",
           nvjpegEncoderParamsSetSamplingFactors(s->enc_params, css, s->stream));
    nvjpegImage_t src;
    memset(&src, 0, sizeof src);
    src.channel[0] = s->d_pixels;
    src.pitch[0] = pitch;
    if (channels == 3)
        NV_TRY(name, "nvjpegEncodeImage",
               nvjpegEncodeImage(codec.enc, s->enc, s->enc_params, &src, NVJPEG_INPUT_RGBI,
                                 (int)width, (int)height, s->stream));
    else
        NV_TRY(name, "nvjpegEncodeYUV",
               nvjpegEncodeYUV(codec.enc, s->enc, s->enc_params, &src, css, (int)width,
                               (int)height, s->stream));
    size_t length = 0;
    NV_TRY(name, "nvjpegEncodeRetrieveBitstream",
           nvjpegEncodeRetrieveBitstream(codec.enc, s->enc, NULL, &length, s->stream));
    CU_CHECK(cudaStreamSynchronize(s->stream));
    uint8_t *buf = (uint8_t *)malloc(length ? length : 1);
    if (!buf)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", name);
    nvjpegStatus_t nv = nvjpegEncodeRetrieveBitstream(codec.enc, s->enc, buf, &length, s->stream);
    cudaError_t err = nv == NVJPEG_STATUS_SUCCESS ? cudaStreamSynchronize(s->stream) : cudaSuccess;
    if (nv != NVJPEG_STATUS_SUCCESS || err != cudaSuccess) {
        free(buf);
        return nv != NVJPEG_STATUS_SUCCESS
                   ? cu_fail_nvjpeg((int)nv, "nvjpegEncodeRetrieveBitstream", name)
                   : cu_fail(NULL, err, "cudaStreamSynchronize (GPU JPEG)", 0);
    }
    *out = buf;
    *size = length;
    return WT_OK;
}

extern "C" wt_status wt_gpu_jpeg_encode(const char *name, const uint8_t *pixels, uint32_t width,
                                        uint32_t height, int channels, int quality,
                                        uint8_t **out, size_t *size)
{
    *out = NULL;
    *size = 0;
    if (!(codec.what & WT_GPU_JPEG_ENCODE))
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: GPU JPEG encoding not started", name);
    if (channels != 1 && channels != 3)
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: %d channels", name, channels);
    jpeg_slot *s = NULL;
    wt_status st = slot_take(&s, name);
    if (st == WT_OK) {
        st = encode_on(s, name, pixels, width, height, channels, quality, out, size);
        slot_give(s);
    }
    return wt_error_prefix(st, name);
}
#endif
