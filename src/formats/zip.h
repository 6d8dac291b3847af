/* The zip container of coefficient files (internal): members stored (method 0)
 * or deflated (method 8), ZIP64 records for sizes and offsets of 4 GiB or
 * more, zlib's CRC-32. Written sequentially (zip_write_member, then
 * zip_write_directory) or with members reserved ahead and filled in place
 * (zip_write_at, zip_write_local_header: the stack writer of src/npz_stack.c);
 * read through a hostile-file reader that checks every offset and length. */
#ifndef WT_ZIP_H
#define WT_ZIP_H

#include <stdint.h>
#include <stdio.h>

#include "wavetool.h"

/* The most members of a coefficient file: the leaves of a packet tree of
 * WT_PACKET_MAX_LEVELS, its tree and meta (SWT with all_approx: 4L + 1). */
#define ZIP_MAX_MEMBERS ((1 << (2 * WT_PACKET_MAX_LEVELS)) + 2)
/* A member's short name ("cA", "cH12", "meta") with its NUL. */
#define ZIP_NAME_CAP 16
#define ZIP_LOCAL_LEN 30

/* Little-endian fields. */
uint8_t *zip_put16(uint8_t *p, unsigned v);
uint8_t *zip_put32(uint8_t *p, uint32_t v);
uint8_t *zip_put64(uint8_t *p, uint64_t v);
unsigned zip_get16(const uint8_t *p);
uint32_t zip_get32(const uint8_t *p);
uint64_t zip_get64(const uint8_t *p);

/* CRC-32 of @p len more bytes (zlib's, fed in pieces); zip_crc_start() first. */
uint32_t zip_crc_start(void);
uint32_t zip_crc_update(uint32_t crc, const void *data, uint64_t len);

/* ---- writing ------------------------------------------------------------- */

typedef struct zip_member {
    char name[ZIP_NAME_CAP + 4];  /* with ".npy" */
    uint64_t offset, size, csize; /* size: the .npy bytes; csize: as stored */
    uint32_t crc;
    unsigned method; /* 0 stored, 8 deflated */
} zip_member;

typedef struct zip_writer {
    FILE *fp;
    const char *path;
    uint64_t pos;
    int error;    /* errno of the first failed write */
    int compress; /* deflate members (numpy.savez_compressed) */
    int count;
    zip_member members[ZIP_MAX_MEMBERS];
} zip_writer;

/* Sizes from this many bytes on get ZIP64 records (tests lower it). */
int zip_needs_zip64(uint64_t v);
/* @p len bytes at the writer's position; at @p offset of the output. */
void zip_write_bytes(zip_writer *w, const void *data, uint64_t len);
void zip_write_at(zip_writer *w, uint64_t offset, const void *data, uint64_t len);
/* Bytes of @p m's local header (name and ZIP64 extra included). */
uint64_t zip_local_header_len(const zip_member *m);
void zip_write_local_header(zip_writer *w, const zip_member *m);
/* Member "@p name.npy": @p header then @p data, stored or (w->compress) deflated. */
void zip_write_member(zip_writer *w, const char *name, const void *header, size_t header_len,
                      const void *data, uint64_t data_len);
/* The central directory and end records of the members written. */
void zip_write_directory(zip_writer *w);

/* ---- reading --------------------------------------------------------------- */

/* A coefficient file being read: an open file, or stdin read into memory. */
typedef struct zip_reader {
    const char *name;
    int fd;
    uint8_t *mem;
    uint64_t size;
    uint64_t content; /* the .npy bytes its members declare (deflated: bounded by
                         deflate's ratio), the most coefficients it can hold */
} zip_reader;

/* One of our members ("NAME.npy"; other names are ignored), where its data are. */
typedef struct zip_entry {
    char name[ZIP_NAME_CAP];
    uint64_t data_offset, size, csize; /* size: the .npy bytes; csize: as stored */
    uint32_t crc;
    unsigned method; /* 0 stored, 8 deflated */
} zip_entry;

typedef struct zip_directory {
    uint64_t cd_offset, cd_size, entries, content;
    int count;
    zip_entry members[ZIP_MAX_MEMBERS + 1];
} zip_directory;

/* @p path ("-": stdin, read whole; so are pipes) opened for reading; a stream
 * is bounded by the coefficients @p max_pixels allows. */
wt_status zip_reader_open(zip_reader *r, const char *path, uint64_t max_pixels);
void zip_reader_close(zip_reader *r);
/* The members of the central directory, each checked against the file. */
wt_status zip_read_directory(const zip_reader *r, zip_directory *d);
const zip_entry *zip_find(const zip_directory *d, const char *name);
/* Bytes [@p skip, @p skip + @p len) of a member's content (inflated). */
wt_status zip_entry_read(const zip_reader *r, const zip_entry *m, uint64_t skip, void *buf,
                         uint64_t len);
/* "NAME: corrupt coefficient file (@p what)". */
wt_status zip_corrupt(const zip_reader *r, const char *what);

#endif
