/* The engine interface: device selection and argument checks shared by the
 * CPU and CUDA engines. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_impl.h"

const char *wt_backends(void)
{
#if WT_HAVE_CUDA
    return "cpu cuda";
#else
    return "cpu";
#endif
}

int wt_gpu_count(void)
{
#if WT_HAVE_CUDA
    return wt_cuda_device_count();
#else
    return 0;
#endif
}

/* "cuda" -> -1, "cuda:N" -> N; -2 when malformed. */
static int parse_cuda_index(const char *device)
{
    if (strcmp(device, "cuda") == 0)
        return -1;
    if (strncmp(device, "cuda:", 5) != 0 || !device[5])
        return -2;
    char *end;
    long n = strtol(device + 5, &end, 10);
    return (*end || n < 0 || n > 1024) ? -2 : (int)n;
}

wt_status wt_engine_open(wt_engine **engine, const char *device)
{
    *engine = NULL;
    if (!device || strcmp(device, "cpu") == 0)
        return wt_cpu_engine_open(engine);
    if (strcmp(device, "auto") == 0) { /* why the GPU was not taken: wt_warning_message() */
        wt_warning_clear();
#if WT_HAVE_CUDA
        if (wt_cuda_engine_open(engine, -1) == WT_OK)
            return WT_OK;
        wt_warning_set("GPU engine not used: %s", wt_error_message());
#else
        wt_warning_set("GPU engine not used: this wavetool was built without CUDA");
#endif
        return wt_cpu_engine_open(engine);
    }
    int index = parse_cuda_index(device);
    if (index == -2)
        return wt_error_set(WT_ERR_INVALID, "unknown device '%s' (auto, cpu, cuda, cuda:N)",
                            device);
#if WT_HAVE_CUDA
    return wt_cuda_engine_open(engine, index);
#else
    return wt_error_set(WT_ERR_DEVICE, "this wavetool was built without CUDA (device '%s')",
                        device);
#endif
}

void wt_engine_close(wt_engine *engine)
{
    if (engine)
        engine->ops->close(engine);
}

const char *wt_engine_name(const wt_engine *engine)
{
    return engine->name;
}

int wt_engine_is_cpu(const wt_engine *engine)
{
    return engine->is_cpu;
}

void wt_engine_set_threads(wt_engine *engine, int threads)
{
    engine->threads = threads < 0 ? 0 : threads;
}

void *wt_engine_host_alloc(const wt_engine *engine, size_t bytes)
{
    void *p = engine->ops->host_alloc ? engine->ops->host_alloc(engine, bytes)
                                      : malloc(bytes ? bytes : 1);
    if (!p && !engine->ops->host_alloc)
        wt_error_set(WT_ERR_NOMEM, "out of memory for %zu bytes", bytes);
    return p;
}

void wt_engine_host_free(const wt_engine *engine, void *ptr)
{
    if (ptr && engine->ops->host_free)
        engine->ops->host_free(engine, ptr);
    else
        free(ptr);
}

double wt_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void wt_engine_get_times(const wt_engine *engine, wt_engine_times *times)
{
    *times = engine->times;
}

wt_status wt_check_transform(wt_params *p, const wt_pyramid *pyr, const wt_image *img)
{
    wt_status st = wt_params_resolve(p);
    if (st != WT_OK)
        return st;
    wt_pyramid plan;
    st = wt_pyramid_plan(&plan, p, pyr->height, pyr->width, pyr->channels);
    if (st != WT_OK)
        return st;
    if (plan.total != pyr->total || plan.levels != pyr->levels || plan.dtype != pyr->dtype ||
        !pyr->data)
        return wt_error_set(WT_ERR_INVALID, "coefficients do not match the requested transform");
    if (img && (img->height != pyr->height || img->width != pyr->width ||
                img->channels != pyr->channels || !img->pixels))
        return wt_error_set(WT_ERR_INVALID, "image and coefficients differ in shape");
    return WT_OK;
}

/* log2 of how much a transform of @p p can grow the largest |sample|, on
 * its way forward and back: a 1-D pass multiplies it by at most the largest
 * L1 norm G of the filters (times E, the border extension's own growth:
 * smooth and antireflect extrapolate), an inverse pass by 2G. */
static double growth_log2(const wt_params *p)
{
    const wt_wavelet *w = p->wavelet;
    const double *filters[4] = {w->dec_lo, w->dec_hi, w->rec_lo, w->rec_hi};
    int j2k = w->kind == WT_KIND_JPEG2000; /* their true lengths (dwt_line.c) */
    const int taps[4] = {j2k ? w->support_lo : w->filter_len, j2k ? w->support_hi : w->filter_len,
                         j2k ? w->support_hi : w->filter_len, j2k ? w->support_lo : w->filter_len};
    double g = 1.0;
    for (int f = 0; f < 4; f++) {
        double l1 = 0.0;
        for (int i = 0; filters[f] && i < taps[f]; i++)
            l1 += fabs(filters[f][i]);
        g = l1 > g ? l1 : g;
    }
    double e = p->mode == WT_MODE_SMOOTH || p->mode == WT_MODE_ANTIREFLECT ? 3.0 : 1.0;
    return 2.0 * p->levels * (log2(e * g) + log2(2.0 * g)) + 4.0 /* rounding, lifting */;
}

/* Float32-held samples: finite, and small enough that no level overflows
 * (1e38 or float64 1e300 came back as NaN while the report said PSNR inf). */
static wt_status check_float_range(const wt_params *p, const wt_image *img)
{
    size_t n = (size_t)img->width * img->height * (size_t)img->channels;
    const float *s = img->pixels;
    float top = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float a = fabsf(s[i]);
        size_t pixel = i / (size_t)img->channels;
        if (!(a <= FLT_MAX))
            return wt_error_set(WT_ERR_LIMIT, "the sample at (%zu, %zu) is %s: the transforms "
                                "take finite values (float64 beyond float32's 3.4e38 is infinite)",
                                pixel % img->width, pixel / img->width,
                                isnan(s[i]) ? "NaN" : "infinite");
        top = a > top ? a : top;
    }
    /* legall53 truncates float samples to int32 and lifts them exactly within 16 bits */
    double limit = p->wavelet->integer ? 65535.0
                                       : ldexp(1.0, (int)floor(log2(FLT_MAX) - growth_log2(p)));
    if (top <= limit)
        return WT_OK;
    if (p->wavelet->integer)
        return wt_error_set(WT_ERR_LIMIT, "samples up to %.3g do not fit legall53's integer "
                            "lifting (exact within +-65535): scale them, or use bior2.2", top);
    return wt_error_set(WT_ERR_LIMIT, "samples up to %.3g could overflow float32 in %d levels of "
                        "%s (at most %.3g here): scale them down", top, p->levels,
                        p->wavelet->name, limit);
}

/* legall53 lifts 32-bit integers on both engines: samples of up to 16 bits
 * and their levels' growth fit; 32-bit samples would saturate (a uint32
 * maximum came back as 2^31, exit 0). Refused rather than wrong. */
wt_status wt_check_samples_fit(const wt_params *p, const wt_image *img, int input)
{
    wt_sample_type t = wt_image_stored(img);
    if (p->wavelet->integer && t.kind != WT_SAMPLE_FLOAT && t.bits > 16)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s %d-bit samples do not fit legall53's 32-bit integer lifting "
                            "(exact up to 16 bits): convert them, or use bior2.2 (floating point)",
                            t.kind == WT_SAMPLE_INT ? "signed" : "unsigned", t.bits);
    return input && img->bit_depth == WT_DEPTH_F32 ? check_float_range(p, img) : WT_OK;
}

static wt_status timed(wt_engine *engine, double *part, wt_status st, double t0)
{
    *part += wt_seconds() - t0;
    engine->times.calls++;
    return st;
}

/* wt_forward (@p planes into @p pyr) and wt_inverse (back): the parameters
 * resolved and checked against @p pyr, then the engine's op, timed. */
static wt_status engine_transform(wt_engine *engine, const wt_params *params, int inverse,
                                  float *planes, wt_pyramid *pyr)
{
    wt_params p = *params;
    wt_status st = wt_check_transform(&p, pyr, NULL);
    if (st != WT_OK)
        return st;
    double t0 = wt_seconds();
    st = inverse ? engine->ops->inverse(engine, &p, pyr, planes)
                 : engine->ops->forward(engine, &p, planes, pyr);
    return timed(engine, &engine->times.transform, st, t0);
}

wt_status wt_forward(wt_engine *engine, const wt_params *params, const float *planes,
                     wt_pyramid *out)
{
    return engine_transform(engine, params, 0, (float *)planes /* read only */, out);
}

wt_status wt_inverse(wt_engine *engine, const wt_params *params, const wt_pyramid *in,
                     float *planes)
{
    return engine_transform(engine, params, 1, planes, (wt_pyramid *)in /* read only */);
}
