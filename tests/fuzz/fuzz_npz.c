/* libFuzzer harness: the .npz coefficient reader, which takes shapes and
 * offsets from the file. The bytes go through a memory file (memfd) because
 * the reader's interface is a path, as wavetool uses it. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wavetool.h"

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
    return 0;
}
