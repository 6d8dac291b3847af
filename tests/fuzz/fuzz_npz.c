/* libFuzzer harness: the .npz coefficient readers (an image's, a volume's),
 * which take shapes and offsets from the file; a volume read is also
 * transformed back, as reconstruct --volume does. The bytes go through a memory file (memfd) because
 * the reader's interface is a path, as wavetool uses it. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wavetool.h"
#include "wavetool_hooks.h"

/* A volume's file, and its inverse when small (the file bounds the bands,
 * not the volume they describe). */
static void load_volume(const char *path)
{
    wt_volume_spec spec;
    wt_vcoeffs c;
    wt_npz_meta meta;
    const wt_load_options opt = {.max_pixels = (uint64_t)1 << 20};
    if (wt_npz_load_volume(path, &opt, &spec, &c, &meta) != WT_OK)
        return;
    size_t n = (size_t)meta.depth * meta.height * meta.width * (size_t)meta.channels;
    float *planes = n <= ((size_t)1 << 16) ? malloc(n * sizeof *planes + 4) : NULL;
    if (planes)
        wt_volume_inverse(&spec, &c, planes, 1);
    free(planes);
    wt_vcoeffs_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz.npz", 0);
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        return 0;
    wt_pyramid pyr = {0};
    wt_npz_meta meta;
    if (wt_npz_load(path, &pyr, &meta) == WT_OK)
        wt_pyramid_free(&pyr);
    load_volume(path);
    return 0;
}
