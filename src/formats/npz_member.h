/* The .npy members of a coefficient file (internal): written with the shared
 * .npy header writer, read with the shared header and dtype parsers under the
 * .npz reader's policy (f, i or u of 1-8 bytes, any byte order, C order),
 * each checked for its length and CRC. */
#ifndef WT_NPZ_MEMBER_H
#define WT_NPZ_MEMBER_H

#include <stdint.h>

#include "npy_header.h"
#include "zip.h"

#define NPZ_HEADER_CAP 4096 /* our headers are < 128 bytes; numpy's stay small */

/* A member's .npy header as this reader takes it. */
typedef struct npy_array {
    char kind; /* 'f', 'i', 'u' */
    int itemsize;
    int swap; /* stored in the other byte order */
    int ndim;
    uint64_t shape[WT_NPY_MAX_DIMS];
    uint64_t header_len, data_len;
} npy_array;

/* The host's byte-order character, '<' or '>'. */
char npz_host_order(void);
/* Reverse the bytes of @p count 4-byte items. */
void npz_swap4(void *data, size_t count);
/* "(3, 4, 5)", "(7,)" */
void npz_format_shape(char *out, size_t cap, const uint64_t *shape, int ndim);

/* Member @p name: a .npy header of @p kind ('f', 'i', 'u'), @p itemsize
 * bytes in the host's order and @p shape, then @p data. */
void npz_write_array(zip_writer *w, const char *name, char kind, int itemsize,
                     const uint64_t *shape, int ndim, const void *data);
/* The .npy header of such an array into @p buf (@p cap bytes); its length, 0 if it does not fit. */
size_t npz_array_header(char *buf, size_t cap, char kind, int itemsize, const uint64_t *shape,
                        int ndim);

/* The .npy header at the start of member @p m, read into @p buf (@p cap bytes). */
wt_status npz_read_header(const zip_reader *r, const zip_entry *m, npy_array *a, uint8_t *buf,
                          size_t cap);
/* The member holds exactly the bytes its shape needs. */
wt_status npz_check_data_len(const zip_reader *r, const zip_entry *m, const npy_array *a);
/* A whole small member (at most @p cap bytes) into @p buf, its CRC checked. */
wt_status npz_read_small(const zip_reader *r, const zip_entry *m, uint8_t *buf, size_t cap);
/* Member @p name into @p dst: a 3-D array of 4-byte @p kind ('f' or 'i') of
 * shape @p expected, its length, its CRC; byte order made the host's. */
wt_status npz_read_array(const zip_reader *r, const zip_directory *d, const char *name, char kind,
                         const uint64_t *expected, uint8_t *dst);
/* The same of @p ndim axes; with ndim > 3 a member without the leading axis
 * of 1 (one channel) is taken too. */
wt_status npz_read_array_nd(const zip_reader *r, const zip_directory *d, const char *name,
                            char kind, const uint64_t *expected, int ndim, uint8_t *dst);

#endif
