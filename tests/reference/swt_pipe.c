/* Test driver of the undecimated transforms (tests/swt_check.py): one process
 * answers many requests.
 *
 * Request: a text line "TRANSFORM WAVELET LEVELS START NORM ALL_APPROX BORDER
 * HEIGHT WIDTH CHANNELS DIR" (DIR f: forward, i: inverse), then the float32
 * input (forward: C x h x w planes; inverse: the band stack).
 * Answer: int32 status, int32 band count, then the float32 output (forward:
 * the stack; inverse: the planes). On failure only the status and count 0,
 * and the message on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wavetool.h"

static int fail(wt_status st)
{
    int32_t head[2] = {st, 0};
    fprintf(stderr, "swt_pipe: %s\n", wt_error_message());
    fwrite(head, sizeof head, 1, stdout);
    fflush(stdout);
    return 1;
}

static int answer(FILE *in, wt_engine *engine)
{
    char tname[16], wname[64], bname[16], dir[4];
    wt_uparams p = {0};
    size_t h, w;
    int channels;
    if (fscanf(in, "%15s %63s %d %d %d %d %15s %zu %zu %d %3s", tname, wname, &p.levels,
               &p.start_level, &p.norm, &p.all_approx, bname, &h, &w, &channels, dir) != 11)
        return 0;
    fgetc(in); /* the newline */
    wt_status st = wt_transform_parse(tname, &p.transform);
    if (st == WT_OK)
        st = wt_border_parse(bname, &p.border);
    p.wavelet = wt_wavelet_find(wname);
    if (st == WT_OK)
        st = wt_uparams_check(&p, h, w);
    int nb = st == WT_OK ? wt_ustack_bands(&p) : 0;
    size_t plane = h * w * (size_t)channels, stack = plane * (size_t)nb;
    int fwd = dir[0] == 'f';
    size_t nin = fwd ? plane : stack, nout = fwd ? stack : plane;
    float *x = malloc(nin * sizeof *x + 4), *y = malloc(nout * sizeof *y + 4);
    if (!x || !y || fread(x, sizeof *x, nin, in) != nin)
        return 0;
    if (st == WT_OK)
        st = fwd ? wt_uforward(engine, &p, x, h, w, channels, y)
                 : wt_uinverse(engine, &p, x, h, w, channels, y);
    if (st != WT_OK)
        fail(st);
    else {
        int32_t head[2] = {0, nb};
        fwrite(head, sizeof head, 1, stdout);
        fwrite(y, sizeof *y, nout, stdout);
        fflush(stdout);
    }
    free(x);
    free(y);
    return 1;
}

int main(int argc, char **argv)
{
    wt_engine *engine = NULL;
    if (wt_engine_open(&engine, argc > 1 ? argv[1] : "cpu") != WT_OK) {
        fprintf(stderr, "swt_pipe: %s\n", wt_error_message());
        return 77;
    }
    while (answer(stdin, engine))
        ;
    wt_engine_close(engine);
    return 0;
}
