/* How a mosaic shows the bands: --scale --transfer --colormap --clip --grid
 * --labels --alpha --depth --layers (decompose, bench --pipeline). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "options.h"

#define AT(field) offsetof(cli_options, field)

/* --scale: comma-separated words, a detail display and/or a range. */
static int parse_scale(const cli_arg *a)
{
    static const char *const scales[] = {"auto", "abs", "offset", NULL};
    static const char *const ranges[] = {"band", "level", "global", NULL};
    cli_options *o = a->o;
    char word[32];
    for (const char *p = a->value;; p += strcspn(p, ",") + 1) {
        int len = (int)strcspn(p, ","), found = 0;
        snprintf(word, sizeof word, "%.*s", len, p);
        for (int i = 0; scales[i] && !found; i++)
            if (strcmp(word, scales[i]) == 0) {
                o->scale = o->style.scale = (wt_scale)i;
                found = 1;
            }
        for (int i = 0; ranges[i] && !found; i++)
            if (strcmp(word, ranges[i]) == 0) {
                o->style.range = (wt_mosaic_range)i;
                found = 1;
            }
        if (!found || len >= (int)sizeof word)
            return cli_usage_error(a->cmd, "invalid argument '%s' for option --scale; should be "
                                           "auto, abs or offset and/or band, level or global "
                                           "(e.g. level,offset)",
                                   a->value);
        if (!p[len])
            return CLI_CONTINUE;
    }
}

static const char *const transfers[] = {"linear", "sqrt", "log", NULL};
static const char *const colormaps[] = {"gray", "diverging", NULL};
static const char *const alphas[] = {"opaque", "keep", "only", NULL};

static const cli_opt mosaic_rows[] = {
    {"scale", 0, "S[,R]", parse_scale, 0,
     "detail display: auto or abs (|v|), offset (mid-grey + v);\n"
     "range: band, level or global (one for all details)",
     "auto,band", NULL},
    {"transfer", 0, "T", cli_opt_choice, AT(style.transfer),
     "detail magnitude curve: linear, sqrt, log", "linear",
     &(cli_choices){transfers, "linear, sqrt or log"}},
    {"colormap", 0, "C", cli_opt_choice, AT(style.colormap),
     "gray or diverging (signed details blue-white-red, RGB)", "gray",
     &(cli_choices){colormaps, "gray or diverging"}},
    {"clip", 0, "P", cli_opt_real, AT(style.clip),
     "details: the P-th percentile of |v| is full scale", "100: max",
     &(cli_real_range){1e-6, 100.0}},
    {"grid", 0, NULL, cli_opt_flag, AT(style.grid), "1-pixel lines between the bands", NULL, NULL},
    {"labels", 0, NULL, cli_opt_flag, AT(style.labels),
     "band names (cA3, cH1, ...) in each band's corner", NULL, NULL},
    {"alpha", 0, "A", cli_opt_choice, AT(alpha),
     "mosaics of images with alpha: opaque (colour only),\n"
     "keep (alpha's bands as the mosaic's alpha), only (alpha's bands)",
     "opaque", &(cli_choices){alphas, "opaque, keep or only"}},
    {"depth", 0, "8|16|f32", cli_parse_depth, AT(depth),
     "mosaic bit depth; --layers: f32 writes float32\n.tif/.npy layers",
     "the input's; 8 for JPEG", NULL},
    {"layers", 0, NULL, cli_opt_flag, AT(layers),
     "swt/starlet: each band its own image OUT_BAND.png and a sidecar\n"
     "OUT_layers.txt that 'reconstruct' reads back",
     NULL, NULL},
};
const cli_group cli_group_mosaic = CLI_GROUP(mosaic_rows, 0);
