/* Times the CPU engine's undecimated transforms (median of runs, wall clock):
 *   swt-speed swt|starlet WAVELET LEVELS HEIGHT WIDTH [RUNS] [THREADS]
 * Prints "forward_ms inverse_ms". Used by bench/swt_vs_pywt.py. Freed buffers
 * stay mapped between runs, as in the wavetool program (cli/main.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wavetool.h"
#include "wavetool_hooks.h" /* wt_keep_freed_buffers, wt_median, wt_seconds */

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: swt-speed swt|starlet WAVELET LEVELS HEIGHT WIDTH [RUNS] [THREADS]\n");
        return 2;
    }
    /* as cli/main.c: freed work planes stay mapped between calls */
    wt_keep_freed_buffers();
    wt_uparams p = {0};
    if (wt_transform_parse(argv[1], &p.transform) != WT_OK) {
        fprintf(stderr, "swt-speed: %s\n", wt_error_message());
        return 2;
    }
    p.wavelet = wt_wavelet_find(argv[2]);
    p.levels = atoi(argv[3]);
    size_t h = strtoul(argv[4], NULL, 10), w = strtoul(argv[5], NULL, 10);
    int runs = argc > 6 ? atoi(argv[6]) : 5;
    runs = runs < 1 ? 1 : (runs > 100 ? 100 : runs);
    wt_engine *e = NULL;
    if (wt_uparams_check(&p, h, w) != WT_OK || wt_engine_open(&e, "cpu") != WT_OK) {
        fprintf(stderr, "swt-speed: %s\n", wt_error_message());
        return 1;
    }
    if (argc > 7)
        wt_engine_set_threads(e, atoi(argv[7]));
    size_t n = h * w, nb = (size_t)wt_ustack_bands(&p);
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *s = malloc(nb * n * sizeof *s);
    if (!x || !y || !s)
        return 1;
    for (size_t i = 0; i < n; i++)
        x[i] = (float)((i * 2654435761u) % 256);
    double fwd[100], inv[100];
    for (int r = 0; r < runs; r++) {
        double t0 = 1e3 * wt_seconds();
        wt_uforward(e, &p, x, h, w, 1, s);
        double t1 = 1e3 * wt_seconds();
        wt_uinverse(e, &p, s, h, w, 1, y);
        fwd[r] = t1 - t0;
        inv[r] = 1e3 * wt_seconds() - t1;
    }
    printf("%.3f %.3f\n", wt_median(fwd, (size_t)runs), wt_median(inv, (size_t)runs));
    free(x);
    free(y);
    free(s);
    wt_engine_close(e);
    return 0;
}
