/* The layouts of coefficient files: see npz_layout.h. */
#include "npz_layout.h"

#include <stdio.h>

#include "transform.h"
#include "zip.h"

static const char band_letter[] = {'A', 'H', 'V', 'D'};

static void band_name(char *out, wt_band band, int level)
{
    if (band == WT_BAND_A)
        snprintf(out, ZIP_NAME_CAP, "cA");
    else
        snprintf(out, ZIP_NAME_CAP, "c%c%d", band_letter[band], level);
}

/* The level and band of DWT member @p i. */
static void dwt_band(const wt_pyramid *p, int i, int *level, wt_band *band)
{
    *level = i == 0 ? p->levels : 1 + (i - 1) / 3;
    *band = i == 0 ? WT_BAND_A : (wt_band)(WT_BAND_H + (i - 1) % 3);
}

int npz_dwt_members(const wt_pyramid *p)
{
    return 1 + 3 * p->levels;
}

void npz_dwt_member(const wt_pyramid *p, int i, char *name, uint64_t *shape)
{
    int level;
    wt_band band;
    size_t h, w;
    dwt_band(p, i, &level, &band);
    band_name(name, band, level);
    wt_pyramid_band_shape(p, level, band, &h, &w);
    shape[0] = (uint64_t)p->channels, shape[1] = h, shape[2] = w;
}

size_t npz_dwt_member_offset(const wt_pyramid *p, int i)
{
    int level;
    wt_band band;
    dwt_band(p, i, &level, &band);
    return wt_pyramid_offset(p, level, band, 0);
}

int npz_ustack_members(const wt_uparams *p)
{
    return wt_ustack_bands(p);
}

void npz_ustack_member_name(const wt_uparams *p, int i, char *out)
{
    wt_uclass(p)->member_name(p, i, out, ZIP_NAME_CAP); /* its module's names */
}
