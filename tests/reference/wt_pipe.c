/* Test driver: runs transforms requested on stdin, answers on stdout, so that
 * one process serves thousands of cases of a Python cross-check.
 *
 * Request: a text line "wavelet mode method levels height width channels device"
 * then height*width*channels float32 samples (native order).
 * Answer: int32 status, uint64 coefficient count, the coefficients (4 bytes
 * each, pywt.wavedec2 order: cA, then cH, cV, cD from the coarsest level),
 * then height*width*channels float32 of inverse(forward(x)).
 * On failure only the status (negative) and the message line on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wavetool.h"

static int answer(FILE *in, wt_engine *engines[2])
{
    char wname[64], mname[32], meth[16], dev[16];
    int levels, channels;
    size_t h, w;
    int got = fscanf(in, "%63s %31s %15s %d %zu %zu %d %15s", wname, mname, meth, &levels, &h,
                     &w, &channels, dev);
    if (got != 8)
        return 0;
    fgetc(in); /* the newline */
    size_t n = h * w * (size_t)channels;
    float *x = malloc(n * sizeof *x + 1), *y = malloc(n * sizeof *y + 1);
    if (fread(x, sizeof *x, n, in) != n)
        return 0;
    wt_params p = {wt_wavelet_find(wname), WT_MODE_ZERO, WT_METHOD_AUTO, levels};
    wt_pyramid pyr = {0};
    wt_status st = p.wavelet ? WT_OK : wt_error_set(WT_ERR_INVALID, "unknown wavelet %s", wname);
    if (st == WT_OK)
        st = wt_mode_parse(mname, &p.mode);
    if (st == WT_OK)
        st = wt_method_parse(meth, &p.method);
    if (st == WT_OK)
        st = wt_params_resolve(&p);
    if (st == WT_OK)
        st = wt_pyramid_alloc(&pyr, &p, h, w, channels);
    wt_engine *e = engines[strcmp(dev, "cuda") == 0 ? 1 : 0];
    if (st == WT_OK && !e)
        st = wt_error_set(WT_ERR_DEVICE, "no such engine");
    if (st == WT_OK)
        st = wt_forward(e, &p, x, &pyr);
    if (st == WT_OK)
        st = wt_inverse(e, &p, &pyr, y);
    int32_t code = st;
    fwrite(&code, sizeof code, 1, stdout);
    if (st == WT_OK) {
        uint64_t total = pyr.total;
        fwrite(&total, sizeof total, 1, stdout);
        fwrite(pyr.data, 4, pyr.total, stdout);
        fwrite(y, sizeof *y, n, stdout);
    } else {
        fprintf(stderr, "wt_pipe: %s\n", wt_error_message());
    }
    fflush(stdout);
    wt_pyramid_free(&pyr);
    free(x);
    free(y);
    return 1;
}

int main(int argc, char **argv)
{
    wt_engine *engines[2] = {NULL, NULL};
    if (wt_engine_open(&engines[0], "cpu") != WT_OK)
        return 1;
    if (argc > 1 && strcmp(argv[1], "--cuda") == 0 &&
        wt_engine_open(&engines[1], "cuda") != WT_OK) {
        fprintf(stderr, "wt_pipe: %s\n", wt_error_message());
        return 77;
    }
    while (answer(stdin, engines))
        ;
    wt_engine_close(engines[0]);
    wt_engine_close(engines[1]);
    return 0;
}
