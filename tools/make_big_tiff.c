/* make-big-tiff: write a large tiled 16-bit gray TIFF tile by tile with libtiff,
 * never holding more than one tile (no numpy needed: the GPU machine has none).
 *
 *   make-big-tiff OUT.tif WIDTH HEIGHT [TILE] [none|deflate]
 *
 * The samples are a deterministic photo-like field (smooth gradients, a few
 * rings, some noise), so deflate compresses them a little and transforms see
 * structure at every scale. BigTIFF when the samples pass 3 GiB. Defaults:
 * 512x512 tiles, deflate. tools/measure_memory.sh uses it for 30000x30000. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

/* The sample at (x, y) of a W x H field, 0..65535. */
static uint16_t field(uint32_t x, uint32_t y, uint32_t w, uint32_t h)
{
    uint32_t hash = x * 0x9E3779B1u ^ (y * 0x85EBCA77u + 0x27d4eb2fu);
    hash ^= hash >> 15;
    hash *= 0x2c1b3c6du;
    hash ^= hash >> 12;
    double fx = (double)x / w, fy = (double)y / h;
    double dx = fx - 0.5, dy = fy - 0.5, r2 = dx * dx + dy * dy;
    double ring = (double)((uint32_t)(r2 * 4000.0) & 1u) * 6000.0;
    double v = 18000.0 + 20000.0 * fx + 12000.0 * fy + ring + (double)(hash & 1023u);
    return (uint16_t)(v < 65535.0 ? v : 65535.0);
}

static int usage(void)
{
    fputs("usage: make-big-tiff OUT.tif WIDTH HEIGHT [TILE] [none|deflate]\n", stderr);
    return 2;
}

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return 0;
    *out = (uint32_t)v;
    return 1;
}

static int set_tags(TIFF *tif, uint32_t w, uint32_t h, uint32_t tile, int deflate)
{
    return TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, w) && TIFFSetField(tif, TIFFTAG_IMAGELENGTH, h) &&
           TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1) &&
           TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 16) &&
           TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT) &&
           TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK) &&
           TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) &&
           TIFFSetField(tif, TIFFTAG_TILEWIDTH, tile) &&
           TIFFSetField(tif, TIFFTAG_TILELENGTH, tile) &&
           TIFFSetField(tif, TIFFTAG_COMPRESSION,
                        deflate ? COMPRESSION_ADOBE_DEFLATE : COMPRESSION_NONE) &&
           (!deflate || TIFFSetField(tif, TIFFTAG_ZIPQUALITY, 1));
}

/* Every tile, row of tiles by row of tiles. */
static int write_tiles(TIFF *tif, uint32_t w, uint32_t h, uint32_t tile)
{
    uint16_t *buf = malloc((size_t)tile * tile * sizeof *buf);
    int ok = buf != NULL;
    for (uint32_t ty = 0; ok && ty < h; ty += tile)
        for (uint32_t tx = 0; ok && tx < w; tx += tile) {
            for (uint32_t y = 0; y < tile; y++)
                for (uint32_t x = 0; x < tile; x++)
                    buf[(size_t)y * tile + x] =
                        tx + x < w && ty + y < h ? field(tx + x, ty + y, w, h) : 0;
            ok = TIFFWriteTile(tif, buf, tx, ty, 0, 0) >= 0;
        }
    free(buf);
    return ok;
}

int main(int argc, char **argv)
{
    uint32_t w, h, tile = 512;
    int deflate = 1;
    if (argc < 4 || argc > 6 || !parse_u32(argv[2], 1, (1u << 24) - 1, &w) ||
        !parse_u32(argv[3], 1, (1u << 24) - 1, &h) ||
        (argc > 4 && (!parse_u32(argv[4], 16, 4096, &tile) || tile % 16)))
        return usage();
    if (argc > 5) {
        if (strcmp(argv[5], "none") != 0 && strcmp(argv[5], "deflate") != 0)
            return usage();
        deflate = strcmp(argv[5], "deflate") == 0;
    }
    int big = (uint64_t)w * h * 2 > ((uint64_t)3 << 30);
    TIFF *tif = TIFFOpen(argv[1], big ? "w8" : "w");
    if (!tif)
        return 1;
    int ok = set_tags(tif, w, h, tile, deflate) && write_tiles(tif, w, h, tile) &&
             TIFFWriteDirectory(tif);
    TIFFClose(tif);
    if (!ok) {
        fprintf(stderr, "make-big-tiff: %s: write failed\n", argv[1]);
        remove(argv[1]);
        return 1;
    }
    return 0;
}
