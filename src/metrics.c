/* Image quality: MSE and PSNR per channel, and of the mean MSE as ffmpeg's psnr
 * filter reports its "average". */
#include <math.h>
#include <string.h>

#include "wavetool.h"

static double psnr_of(double mse, double peak)
{
    return mse > 0.0 ? 10.0 * log10(peak * peak / mse) : INFINITY;
}

static wt_status check_comparable(const wt_image *a, const wt_image *b)
{
    if (a->width != b->width || a->height != b->height)
        return wt_error_set(WT_ERR_INVALID, "images differ in size (%ux%u vs %ux%u)", a->width,
                            a->height, b->width, b->height);
    if (a->channels != b->channels)
        return wt_error_set(WT_ERR_INVALID, "images differ in channels (%d vs %d)", a->channels,
                            b->channels);
    if (a->bit_depth != b->bit_depth)
        return wt_error_set(WT_ERR_INVALID, "images differ in bit depth (%d vs %d)",
                            a->bit_depth, b->bit_depth);
    if (a->channels < 1 || a->channels > 4 || (a->bit_depth != 8 && a->bit_depth != 16))
        return wt_error_set(WT_ERR_INVALID, "unsupported image layout (%d channels, %d-bit)",
                            a->channels, a->bit_depth);
    return WT_OK;
}

static unsigned sample_at(const wt_image *img, size_t index)
{
    if (img->bit_depth > 8)
        return ((const uint16_t *)img->pixels)[index];
    return ((const uint8_t *)img->pixels)[index];
}

wt_status wt_quality_compare(const wt_image *a, const wt_image *b, wt_quality *q)
{
    memset(q, 0, sizeof *q);
    wt_status st = check_comparable(a, b);
    if (st != WT_OK)
        return st;
    size_t n = (size_t)a->width * a->height, c = (size_t)a->channels;
    /* integer sums of squared differences are exact (< 2^32 per sample) */
    uint64_t sse[4] = {0, 0, 0, 0};
    long double big[4] = {0, 0, 0, 0}; /* spill-over for huge 16-bit images */
    for (size_t i = 0; i < n; i++)
        for (size_t ch = 0; ch < c; ch++) {
            int64_t d = (int64_t)sample_at(a, i * c + ch) - (int64_t)sample_at(b, i * c + ch);
            uint64_t sq = (uint64_t)(d * d);
            if (sse[ch] > UINT64_MAX - sq) {
                big[ch] += (long double)sse[ch];
                sse[ch] = 0;
            }
            sse[ch] += sq;
        }
    double peak = a->bit_depth > 8 ? 65535.0 : 255.0, sum = 0.0;
    q->channels = a->channels;
    for (size_t ch = 0; ch < c; ch++) {
        q->mse[ch] = n ? (double)((big[ch] + (long double)sse[ch]) / (long double)n) : 0.0;
        q->psnr[ch] = psnr_of(q->mse[ch], peak);
        sum += q->mse[ch];
    }
    q->mse_mean = sum / (double)c;
    q->psnr_mean = psnr_of(q->mse_mean, peak);
    return WT_OK;
}
