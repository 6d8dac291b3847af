/* The one .npy header codec (internal): parser, dtype parser and writer,
 * shared by the .npz members (src/npz.c) and the .npy image codec
 * (src/npy_io.c); each keeps its own policy on the dtype, the order and the
 * shape. */
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

/** A numeric dtype as a descr spells it: [<>|=], a kind letter, one digit. */
typedef struct wt_npy_dtype {
    char order;   /**< '<', '>', '|' or '=' (the host's) */
    char kind;    /**< 'u', 'i', 'f' */
    int itemsize; /**< 1-9 bytes */
    int swap;     /**< multi-byte items in the byte order other than the host's */
} wt_npy_dtype;

typedef enum wt_npy_dtype_result {
    WT_DTYPE_OK = 0,
    WT_DTYPE_NOT_NUMERIC, /**< no byte order, another kind, or no single-digit size */
    WT_DTYPE_BOOL,        /**< 'b' or '?' */
    WT_DTYPE_COMPLEX,     /**< 'c' */
} wt_npy_dtype_result;

/** Parse @p descr ("<f4", "|u1"); '|' with a multi-byte size is left to the
 *  caller's policy (its swap is 0). */
wt_npy_dtype_result wt_npy_parse_dtype(const char *descr, wt_npy_dtype *d);

/** A shape as a tuple's inside: "3, 4, 5", "7," (a 1-tuple keeps its comma). */
void wt_npy_shape_text(char *out, size_t cap, const uint64_t *shape, int ndim);

/** The .npy v1.0 header of a C-order array of @p descr and @p shape (@p ndim
 *  dimensions, up to 8), padded with spaces and a newline to a multiple of 64
 *  bytes as numpy writes it, into @p buf; its length, or 0 when it does not
 *  fit @p cap. */
size_t wt_npy_format_header(char *buf, size_t cap, const char *descr, const uint64_t *shape,
                            int ndim);

#endif
