/* The one .npy header parser (internal), shared by the .npz reader (src/npz.c)
 * and the .npy image codec (src/npy_io.c); each keeps its own policy on the
 * dtype, the order and the shape. */
#ifndef WT_NPY_HEADER_H
#define WT_NPY_HEADER_H

#include <stddef.h>
#include <stdint.h>

#define WT_NPY_MAGIC "\x93NUMPY"
/** numpy's most dimensions. */
#define WT_NPY_MAX_DIMS 32

/** A position in a Python or JSON literal: the next character and the end. */
typedef struct wt_text_cursor {
    const char *p, *end;
} wt_text_cursor;
/** Skip spaces, tabs and line ends. */
void wt_cursor_skip_space(wt_text_cursor *c);
/** After spaces: 1 and past @p ch when it comes next, else 0. */
int wt_cursor_accept_char(wt_text_cursor *c, char ch);
/** After spaces: 1 and past @p word when it comes next, else 0. */
int wt_cursor_accept_word(wt_text_cursor *c, const char *word);

/** What a .npy header says, as written. */
typedef struct wt_npy_header {
    char descr[16]; /**< the raw descr string: "<f4", "|u1", ">i2" */
    int fortran;    /**< fortran_order: True */
    int ndim;
    uint64_t shape[WT_NPY_MAX_DIMS]; /**< each below 2^63 */
    size_t header_len;               /**< bytes before the data (prefix and dict) */
} wt_npy_header;

typedef enum wt_npy_result {
    WT_NPY_OK = 0,
    WT_NPY_NOT_NPY,   /**< no magic, or a version other than 1-3 */
    WT_NPY_TRUNCATED, /**< the header is longer than the bytes at hand */
    WT_NPY_BAD,       /**< the dict is not exactly {descr, fortran_order, shape} */
} wt_npy_result;

/** Parse the header at the start of @p data (@p size bytes at hand; a dict
 *  longer than @p max_dict is WT_NPY_TRUNCATED). The dict must hold exactly
 *  the keys 'descr' (a string without escapes), 'fortran_order' (True or
 *  False) and 'shape' (a tuple of up to WT_NPY_MAX_DIMS integers), each once,
 *  followed only by padding. */
wt_npy_result wt_npy_parse_header(const uint8_t *data, size_t size, size_t max_dict,
                                  wt_npy_header *h);

/** Bytes of the data: itemsize times every dimension; 0 with *ok 0 on overflow. */
uint64_t wt_npy_data_bytes(const wt_npy_header *h, uint64_t itemsize, int *ok);

#endif
