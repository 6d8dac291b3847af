/* Times the CPU engine's forward (or inverse) transform (median of runs,
 * wall clock, or with "cpu" the process's processor time, which other
 * processes sharing the cores do not inflate):
 *   cpu_speed WAVELET MODE METHOD LEVELS HEIGHT WIDTH [RUNS] [wall|cpu] [forward|inverse] [TOP]
 * on samples scattered over 0..TOP (255; legall53 lifts samples beyond 2^28
 * in its saturated steps). Prints milliseconds. Used by bench/cpu_vs_pywt.py
 * and bench/cpu_per_core.py. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wavetool.h"
#include "wavetool_hooks.h" /* wt_seconds, wt_median */

int main(int argc, char **argv)
{
    if (argc < 7) {
        fprintf(stderr, "usage: cpu_speed WAVELET MODE METHOD LEVELS HEIGHT WIDTH [RUNS]\n");
        return 2;
    }
    wt_params p = {wt_wavelet_find(argv[1]), WT_MODE_SYMMETRIC, WT_METHOD_AUTO, atoi(argv[4])};
    size_t h = strtoul(argv[5], NULL, 10), w = strtoul(argv[6], NULL, 10);
    int runs = argc > 7 ? atoi(argv[7]) : 5;
    int cpu_time = argc > 8 && strcmp(argv[8], "cpu") == 0;
    int inverse = argc > 9 && strcmp(argv[9], "inverse") == 0;
    wt_engine *e;
    wt_pyramid pyr;
    if (!p.wavelet || wt_mode_parse(argv[2], &p.mode) || wt_method_parse(argv[3], &p.method) ||
        wt_params_resolve(&p) || wt_engine_open(&e, "cpu") ||
        wt_pyramid_alloc(&pyr, &p, h, w, 1)) {
        fprintf(stderr, "cpu_speed: %s\n", wt_error_message());
        return 1;
    }
    unsigned long long top = argc > 10 ? strtoull(argv[10], NULL, 10) : 255;
    float *x = malloc(h * w * sizeof *x);
    for (size_t i = 0; i < h * w; i++)
        x[i] = (float)((uint32_t)(i * 2654435761u) % (top + 1));
    double t[64];
    runs = runs > 64 ? 64 : runs;
    if (inverse)
        wt_forward(e, &p, x, &pyr);
    for (int r = 0; r < runs; r++) {
        double t0 = cpu_time ? (double)clock() / CLOCKS_PER_SEC : wt_seconds();
        if (inverse)
            wt_inverse(e, &p, &pyr, x);
        else
            wt_forward(e, &p, x, &pyr);
        t[r] = ((cpu_time ? (double)clock() / CLOCKS_PER_SEC : wt_seconds()) - t0) * 1e3;
    }
    printf("%.3f\n", wt_median(t, (size_t)runs));
    wt_pyramid_free(&pyr);
    wt_engine_close(e);
    free(x);
    return 0;
}
