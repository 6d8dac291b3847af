/* Times wt_denoise_image on an engine, the image already in memory (median of
 * runs):  denoise_speed IMAGE [RUNS] [DEVICE] [METHOD] [CYCLE_SPIN] [resident]
 * Prints milliseconds: wall clock, and the process's CPU time (all threads);
 * on stderr the engine's phases (median ms of upload, transform, download:
 * wt_engine_get_times). "resident" adds a line "resident MS": the median of
 * wt_denoise_time_resident (the samples on the device, no transfers). On
 * stderr too: the noise estimate made first (wt_denoise_estimate) and the
 * engine's part alone (what a folder's worker holds the engine for).
 * Used by bench/denoise_vs_skimage.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wavetool.h"
#include "wavetool_hooks.h" /* wt_median, wt_keep_freed_buffers, wt_seconds */

/* The process's CPU time (all threads) in milliseconds. */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: denoise_speed IMAGE [RUNS] [DEVICE] [METHOD] [CYCLE_SPIN] [resident]\n");
        return 2;
    }
    /* as the wavetool program does (cli/main.c): freed buffers stay mapped */
    wt_keep_freed_buffers();
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    runs = runs < 1 ? 1 : (runs > 100 ? 100 : runs);
    wt_image img = {0}, out = {0};
    wt_engine *e = NULL;
    wt_denoise_options o;
    wt_denoise_defaults(&o);
    if (argc > 4 && wt_method_parse(argv[4], &o.params.method) != WT_OK) {
        fprintf(stderr, "denoise_speed: %s\n", wt_error_message());
        return 2;
    }
    if (argc > 5)
        o.cycle_spin = atoi(argv[5]);
    double t[100], cpu[100], up[100], tr[100], down[100];
    if (wt_image_load(argv[1], NULL, &img) != WT_OK ||
        wt_image_alloc(&out, img.width, img.height, img.channels, img.bit_depth) != WT_OK ||
        wt_engine_open(&e, argc > 3 ? argv[3] : "cpu") != WT_OK) {
        fprintf(stderr, "denoise_speed: %s\n", wt_error_message());
        return 1;
    }
    for (int i = 0; i < runs; i++) {
        wt_engine_times a, b;
        wt_engine_get_times(e, &a);
        double t0 = 1e3 * wt_seconds(), c0 = cpu_ms();
        if (wt_denoise_image(e, &o, &img, &out, NULL) != WT_OK) {
            fprintf(stderr, "denoise_speed: %s\n", wt_error_message());
            return 1;
        }
        t[i] = 1e3 * wt_seconds() - t0;
        cpu[i] = cpu_ms() - c0;
        wt_engine_get_times(e, &b);
        up[i] = 1e3 * (b.upload - a.upload);
        tr[i] = 1e3 * (b.transform - a.transform);
        down[i] = 1e3 * (b.download - a.download);
    }
    printf("%.3f %.3f\n", wt_median(t, (size_t)runs), wt_median(cpu, (size_t)runs));
    fprintf(stderr, "phases (median ms): upload %.3f transform+bands %.3f download %.3f\n",
            wt_median(up, (size_t)runs), wt_median(tr, (size_t)runs),
            wt_median(down, (size_t)runs));
    /* the noise estimate made first, as a folder's worker makes it before it
     * takes the engine, then the engine's part alone */
    double *est = malloc(wt_denoise_estimate_count(&o) * sizeof *est), t_est = 0.0;
    wt_denoise_options given = o;
    given.estimates = est;
    for (int i = 0; est && i < runs; i++) {
        double t0 = 1e3 * wt_seconds();
        if (wt_denoise_estimate(&o, &img, est) != WT_OK) {
            fprintf(stderr, "denoise_speed: %s\n", wt_error_message());
            return 1;
        }
        t_est = 1e3 * wt_seconds() - t0;
        t0 = 1e3 * wt_seconds();
        if (wt_denoise_image(e, &given, &img, &out, NULL) != WT_OK) {
            fprintf(stderr, "denoise_speed: %s\n", wt_error_message());
            return 1;
        }
        t[i] = 1e3 * wt_seconds() - t0;
        cpu[i] = t_est;
    }
    if (est)
        fprintf(stderr, "noise estimate first (median ms): estimate %.3f, then the engine %.3f\n",
                wt_median(cpu, (size_t)runs), wt_median(t, (size_t)runs));
    free(est);
    double resident;
    if (argc > 6 && strcmp(argv[6], "resident") == 0) {
        if (wt_denoise_time_resident(e, &o, &img, runs, &resident) != WT_OK) {
            fprintf(stderr, "denoise_speed: %s\n", wt_error_message());
            return 1;
        }
        printf("resident %.3f\n", resident);
    }
    wt_engine_close(e);
    wt_image_free(&img);
    wt_image_free(&out);
    return 0;
}
