/* The engine interface: device selection and argument checks shared by the
 * CPU and CUDA engines. */
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
    return img ? wt_check_integer_lifting(pyr->dtype == WT_INT32, img) : WT_OK;
}

/* legall53 lifts 32-bit integers on both engines: samples of up to 16 bits
 * and their levels' growth fit; 32-bit samples would saturate (a uint32
 * maximum came back as 2^31, exit 0). Refused rather than wrong. */
wt_status wt_check_integer_lifting(int integer, const wt_image *img)
{
    wt_sample_type t = wt_image_stored(img);
    if (!integer || t.kind == WT_SAMPLE_FLOAT || t.bits <= 16)
        return WT_OK;
    return wt_error_set(WT_ERR_UNSUPPORTED,
                        "%s %d-bit samples do not fit legall53's 32-bit integer lifting "
                        "(exact up to 16 bits): convert them, or use bior2.2 (floating point)",
                        t.kind == WT_SAMPLE_INT ? "signed" : "unsigned", t.bits);
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
