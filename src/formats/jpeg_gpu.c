/* The GPU JPEG codec's note (why libjpeg-turbo did a file), and the codec
 * itself where the build has no nvJPEG: never started, never active. */
#include <stdarg.h>
#include <stdio.h>

#include "jpeg_gpu.h"

static _Thread_local char note[512];

void wt_gpu_jpeg_set_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note, sizeof note, fmt, ap);
    va_end(ap);
}

void wt_gpu_jpeg_note_clear(void)
{
    note[0] = '\0';
}

const char *wt_gpu_jpeg_note(void)
{
    return note;
}

#if !WT_HAVE_NVJPEG
int wt_gpu_jpeg_built(void)
{
    return 0;
}

wt_status wt_gpu_jpeg_start(wt_engine *engine, unsigned what, char *backend, size_t size)
{
    (void)engine;
    (void)what;
    if (backend && size)
        backend[0] = '\0';
    return wt_error_set(WT_ERR_UNSUPPORTED, "this wavetool was built without nvJPEG");
}

void wt_gpu_jpeg_stop(void)
{
}

int wt_gpu_jpeg_active(unsigned what)
{
    (void)what;
    return 0;
}

wt_status wt_gpu_jpeg_decode(const void *data, size_t size, const char *name, wt_image *img)
{
    (void)data;
    (void)size;
    (void)img;
    return wt_error_set(WT_ERR_UNSUPPORTED, "%s: built without nvJPEG", name);
}

wt_status wt_gpu_jpeg_encode(const char *name, const uint8_t *pixels, uint32_t width,
                             uint32_t height, int channels, int quality, uint8_t **out,
                             size_t *size)
{
    (void)pixels;
    (void)width;
    (void)height;
    (void)channels;
    (void)quality;
    *out = NULL;
    *size = 0;
    return wt_error_set(WT_ERR_UNSUPPORTED, "%s: built without nvJPEG", name);
}
#endif
