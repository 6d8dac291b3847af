/* Test helper for npz_check.py: transforms seeded random planes with the CPU
 * engine and writes the coefficients (.npz) and the input (raw float32, C×h×w,
 * little-endian).
 * Usage: npz_write OUT.npz RAW.f32 WAVELET MODE LEVELS CHANNELS HEIGHT WIDTH [zip64] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wavetool_hooks.h"
#include "wavetool.h"

static int fail(const char *what)
{
    fprintf(stderr, "npz_write: %s: %s\n", what, wt_error_message());
    return 1;
}

static float *random_planes(size_t n, int integer)
{
    float *x = malloc(n * sizeof *x + 1);
    uint64_t s = 0x9E3779B97F4A7C15ull ^ n;
    for (size_t i = 0; i < n && x; i++) {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        uint32_t r = (uint32_t)((s * 2685821657736338717ull) >> 40);
        x[i] = integer ? (float)(r % 256) : (float)r / (float)(1 << 24) * 255.0f;
    }
    return x;
}

int main(int argc, char **argv)
{
    if (argc < 9) {
        fprintf(stderr, "usage: npz_write OUT.npz RAW.f32 WAVELET MODE LEVELS CHANNELS "
                        "HEIGHT WIDTH [zip64|compress|zip64+compress]\n");
        return 2;
    }
    wt_params p = {wt_wavelet_find(argv[3]), WT_MODE_SYMMETRIC, WT_METHOD_AUTO, atoi(argv[5])};
    int channels = atoi(argv[6]);
    size_t h = strtoul(argv[7], NULL, 10), w = strtoul(argv[8], NULL, 10);
    if (argc > 9 && strstr(argv[9], "zip64"))
        wt_npz_set_zip64_threshold(0);
    if (!p.wavelet || wt_mode_parse(argv[4], &p.mode) != WT_OK || wt_params_resolve(&p) != WT_OK)
        return fail("parameters");
    size_t n = (size_t)channels * h * w;
    float *x = random_planes(n, p.wavelet->integer);
    wt_engine *e = NULL;
    wt_pyramid pyr;
    if (wt_engine_open(&e, "cpu") != WT_OK || wt_pyramid_alloc(&pyr, &p, h, w, channels) != WT_OK ||
        wt_forward(e, &p, x, &pyr) != WT_OK)
        return fail("transform");
    wt_npz_meta meta = {.mode = p.mode, .method = p.method, .levels = p.levels,
                        .width = (uint32_t)w, .height = (uint32_t)h, .channels = channels,
                        .bit_depth = 8, .color = (wt_color)channels};
    snprintf(meta.wavelet, sizeof meta.wavelet, "%s", p.wavelet->name);
    meta.compress = argc > 9 && strstr(argv[9], "compress") != NULL;
    if (wt_npz_save(argv[1], &pyr, &meta) != WT_OK)
        return fail("save");
    FILE *raw = fopen(argv[2], "wb");
    if (!raw || fwrite(x, sizeof *x, n, raw) != n || fclose(raw) != 0)
        return fail(argv[2]);
    wt_pyramid_free(&pyr);
    wt_engine_close(e);
    free(x);
    return 0;
}
