/* test_io: .npz coefficient files (round trips, ZIP64, hostile files,
 * limits, streams). Helpers, main and shared declarations: test_io.c,
 * test_io.h. */
#include "test_io.h"

/* ---- .npz ------------------------------------------------------------------- */

void forward_random(wt_pyramid *pyr, const char *wavelet, wt_mode mode, int levels,
                    int channels, size_t h, size_t w)
{
    wt_params p = {wt_wavelet_find(wavelet), mode, WT_METHOD_AUTO, levels};
    assert_non_null(p.wavelet);
    assert_int_equal(wt_params_resolve(&p), WT_OK);
    size_t n = (size_t)channels * h * w;
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(rand32() % 256);
    wt_engine *e;
    assert_int_equal(wt_engine_open(&e, "cpu"), WT_OK);
    assert_int_equal(wt_pyramid_alloc(pyr, &p, h, w, channels), WT_OK);
    assert_int_equal(wt_forward(e, &p, x, pyr), WT_OK);
    wt_engine_close(e);
    free(x);
}

wt_npz_meta meta_for(const wt_pyramid *pyr, const char *wavelet, wt_mode mode,
                     wt_method method)
{
    wt_npz_meta m = {.mode = mode, .method = method, .levels = pyr->levels,
                     .width = (uint32_t)pyr->width, .height = (uint32_t)pyr->height,
                     .channels = pyr->channels, .bit_depth = 8,
                     .color = (wt_color)pyr->channels};
    snprintf(m.wavelet, sizeof m.wavelet, "%s", wavelet);
    return m;
}

static void npz_roundtrip(const char *wavelet, wt_mode mode, wt_method method, int levels,
                          int channels, size_t h, size_t w)
{
    wt_pyramid pyr, back;
    forward_random(&pyr, wavelet, mode, levels, channels, h, w);
    wt_npz_meta meta = meta_for(&pyr, wavelet, mode, method), got;
    const char *path = scratch("c.npz");
    assert_int_equal(wt_npz_save(path, &pyr, &meta), WT_OK);
    if (wt_npz_load(path, &back, &got) != WT_OK)
        fail_msg("%s", wt_error_message());
    assert_int_equal(back.dtype, pyr.dtype);
    assert_int_equal(back.total, pyr.total);
    assert_int_equal(back.levels, levels);
    assert_memory_equal(back.data, pyr.data, pyr.total * 4);
    assert_string_equal(got.wavelet, wavelet);
    assert_int_equal(got.mode, mode);
    assert_int_equal(got.method, method);
    assert_int_equal(got.width, w);
    assert_int_equal(got.height, h);
    assert_int_equal(got.channels, channels);
    assert_int_equal(got.color, channels);
    assert_int_equal(got.bit_depth, 8);
    wt_pyramid_free(&pyr);
    wt_pyramid_free(&back);
}

void test_npz_roundtrip(void **state)
{
    (void)state;
    npz_roundtrip("haar", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 3, 3, 37, 50);
    npz_roundtrip("db4", WT_MODE_PERIODIZATION, WT_METHOD_CONV, 2, 1, 1, 1);
    npz_roundtrip("sym5", WT_MODE_ZERO, WT_METHOD_CONV, 4, 4, 64, 33);
    npz_roundtrip("cdf97", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 3, 2, 29, 31);
    npz_roundtrip("legall53", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 5, 3, 41, 40);
    npz_roundtrip("legall53", WT_MODE_PERIODIZATION, WT_METHOD_LIFTING, 1, 1, 2, 3);
    npz_roundtrip("haar", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 0, 1, 5, 7);
    assert_int_equal(count_entries(work_dir), 1);
}

/* ZIP64 records (forced on a small file) are written and read back. */
void test_npz_zip64(void **state)
{
    (void)state;
    wt_npz_set_zip64_threshold(0);
    npz_roundtrip("db2", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 2, 3, 20, 21);
    size_t n;
    uint8_t *data = read_file(scratch("c.npz"), &n);
    wt_npz_set_zip64_threshold(0xffffffffu);
    int found = 0; /* the ZIP64 end-of-directory locator */
    for (size_t i = 0; i + 4 <= n; i++)
        found |= memcmp(data + i, "PK\x06\x07", 4) == 0;
    assert_true(found);
    free(data);
}

static uint8_t *save_small_npz(const char *path, size_t *size)
{
    wt_pyramid pyr;
    forward_random(&pyr, "haar", WT_MODE_SYMMETRIC, 2, 2, 6, 5);
    wt_npz_meta meta = meta_for(&pyr, "haar", WT_MODE_SYMMETRIC, WT_METHOD_CONV);
    assert_int_equal(wt_npz_save(path, &pyr, &meta), WT_OK);
    wt_pyramid_free(&pyr);
    return read_file(path, size);
}

/* Load @p data as a file; the status, with any message naming the file. */
static wt_status load_npz_bytes(const uint8_t *data, size_t size)
{
    const char *path = scratch("h.npz");
    write_file(path, data, size);
    wt_pyramid pyr;
    wt_npz_meta meta;
    wt_status st = wt_npz_load(path, &pyr, &meta);
    if (st == WT_OK)
        wt_pyramid_free(&pyr);
    else if (!strstr(wt_error_message(), "h.npz: "))
        fail_msg("message does not name the file: %s", wt_error_message());
    return st;
}

void test_npz_truncated(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = save_small_npz(scratch("s.npz"), &size);
    for (size_t cut = 0; cut < size; cut++) {
        wt_status st = load_npz_bytes(data, cut);
        if (st != WT_ERR_FORMAT)
            fail_msg("cut at %zu: %d %s", cut, st, wt_error_message());
    }
    free(data);
}

void test_npz_crc(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = save_small_npz(scratch("s.npz"), &size);
    uint8_t *npy = memmem(data, size, "\x93NUMPY", 6);
    uint8_t *cA = memchr(npy, '\n', 256) + 1; /* first member: cA, after its header */
    cA[5] ^= 1;
    assert_int_equal(load_npz_bytes(data, size), WT_ERR_FORMAT);
    assert_message_has("(CRC mismatch)");
    free(data);
}

/* Every single-byte change gives a clean result: loaded or a named error. */
void test_npz_byte_flips(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = save_small_npz(scratch("s.npz"), &size);
    int loaded = 0;
    for (size_t i = 0; i < size; i++) {
        data[i] ^= 0xff;
        loaded += load_npz_bytes(data, size) == WT_OK;
        data[i] ^= 0xff;
    }
    /* only fields nobody reads load: versions, times, attributes, local copies */
    if (loaded >= (int)size / 3)
        fail_msg("%d of %zu byte flips loaded", loaded, size);
    free(data);
}

/* ---- hand-made hostile .npz files ---- */

typedef struct test_member {
    const char *name;
    const void *data;
    size_t size;
    int method;
} test_member;

static uint8_t *le16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return p + 2;
}

static uint8_t *le32(uint8_t *p, uint32_t v)
{
    return le16(le16(p, v & 0xffff), v >> 16);
}

/* The fields local and central zip headers share: flags, method, time and
 * date (0), CRC, sizes, name length. */
static uint8_t *zip_entry_fields(uint8_t *p, const test_member *m, uint32_t crc)
{
    p = le16(p, 0);
    p = le16(p, (unsigned)m->method);
    p = le32(p, 0);
    p = le32(p, crc);
    p = le32(p, (uint32_t)m->size);
    p = le32(p, (uint32_t)m->size);
    return le16(p, (unsigned)strlen(m->name));
}

/* A stored zip of @p members at @p path (correct CRCs unless told otherwise). */
static void make_zip(const char *path, const test_member *m, int n)
{
    uint8_t *out = malloc(1 << 20), *p = out;
    uint32_t offsets[16], crcs[16];
    for (int i = 0; i < n; i++) {
        size_t name_len = strlen(m[i].name);
        offsets[i] = (uint32_t)(p - out);
        crcs[i] = (uint32_t)crc32(0, m[i].data, (uInt)m[i].size);
        p = le32(p, 0x04034b50);
        p = le16(p, 20);
        p = zip_entry_fields(p, &m[i], crcs[i]);
        p = le16(p, 0);
        memcpy(p, m[i].name, name_len);
        p += name_len;
        memcpy(p, m[i].data, m[i].size);
        p += m[i].size;
    }
    uint8_t *cd = p;
    for (int i = 0; i < n; i++) {
        size_t name_len = strlen(m[i].name);
        p = le32(p, 0x02014b50);
        p = le16(p, 20);
        p = le16(p, 20);
        p = zip_entry_fields(p, &m[i], crcs[i]);
        p = le32(p, 0);
        p = le32(p, 0);
        p = le32(p, 0);
        p = le32(p, offsets[i]);
        memcpy(p, m[i].name, name_len);
        p += name_len;
    }
    uint32_t cd_size = (uint32_t)(p - cd), cd_offset = (uint32_t)(cd - out);
    p = le32(p, 0x06054b50);
    p = le32(p, 0);
    p = le16(p, (unsigned)n);
    p = le16(p, (unsigned)n);
    p = le32(p, cd_size);
    p = le32(p, cd_offset);
    p = le16(p, 0);
    write_file(path, out, (size_t)(p - out));
    free(out);
}

/* A .npy v1.0 member: header dict (padded) then @p data. */
static size_t make_npy(uint8_t *out, const char *dict, const void *data, size_t size)
{
    size_t len = strlen(dict), total = (10 + len + 1 + 63) / 64 * 64;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    le16(out + 8, (unsigned)(total - 10));
    memcpy(out + 10, dict, len);
    memset(out + 10 + len, ' ', total - 10 - len - 1);
    out[total - 1] = '\n';
    memcpy(out + total, data, size);
    return total + size;
}

typedef struct crafted {
    uint8_t meta[1024], bands[4][512];
    test_member members[6];
    int count;
} crafted;

static const char good_meta[] =
    "{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", \"levels\": 1, "
    "\"width\": 4, \"height\": 4, \"channels\": 1, \"bit_depth\": 8, \"color\": \"gray\"}";

/* A valid 1-level haar file of a 4x4 gray image, to be spoiled by each test. */
static void craft(crafted *c, const char *meta_json, const char *band_dict)
{
    static const float zeros[16];
    static const char *names[] = {"cA.npy", "cH1.npy", "cV1.npy", "cD1.npy"};
    char dict[256];
    snprintf(dict, sizeof dict, "{'descr': '|u1', 'fortran_order': False, 'shape': (%zu,), }",
             strlen(meta_json));
    size_t meta_size = make_npy(c->meta, dict, meta_json, strlen(meta_json));
    c->count = 0;
    for (int b = 0; b < 4; b++) {
        const char *d = band_dict && b == 1 ? band_dict
                                            : "{'descr': '<f4', 'fortran_order': False, "
                                              "'shape': (1, 2, 2), }";
        c->members[c->count++] = (test_member){names[b], c->bands[b],
                                               make_npy(c->bands[b], d, zeros, 16), 0};
    }
    c->members[c->count++] = (test_member){"meta.npy", c->meta, meta_size, 0};
}

static wt_status load_crafted(const crafted *c)
{
    const char *path = scratch("h.npz");
    make_zip(path, c->members, c->count);
    wt_pyramid pyr;
    wt_npz_meta meta;
    wt_status st = wt_npz_load(path, &pyr, &meta);
    if (st == WT_OK)
        wt_pyramid_free(&pyr);
    return st;
}

void test_npz_crafted(void **state)
{
    (void)state;
    crafted c;
    craft(&c, good_meta, NULL);
    if (load_crafted(&c) != WT_OK)
        fail_msg("%s", wt_error_message());

    c.count--; /* no meta */
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("h.npz: not a wavetool coefficient file (no meta member)");

    craft(&c, good_meta, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 3), }");
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("h.npz: member cH1 has shape (1, 2, 3), expected (1, 2, 2)");

    craft(&c, good_meta,
          "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 65536, 65536), }");
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("h.npz: member cH1 has shape (1, 65536, 65536), expected (1, 2, 2)");

    craft(&c, good_meta,
          "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 2), }");
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("h.npz: member cH1 has a bad .npy header");

    craft(&c, good_meta,
          "{'descr': '<f4', 'fortran_order': False, "
          "'shape': (4294967296, 4294967296, 4294967296), }");
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);

    craft(&c, good_meta, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2, 2), }");
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("h.npz: member cH1 is not float32");

    craft(&c, good_meta, "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2, 2), }");
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("h.npz: member cH1 has a bad .npy header");

    craft(&c, good_meta, "{'descr': '<f4', 'shape': (1, 2, 2), }");
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);

    craft(&c, good_meta, NULL);
    c.members[3] = c.members[4]; /* drop cD1 */
    c.count--;
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("h.npz: member cD1 is missing");

    craft(&c, good_meta, NULL);
    c.members[2].name = "cH1.npy"; /* twice */
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("appears twice");

    craft(&c, good_meta, NULL);
    c.members[0].method = 8; /* stored bytes said to be deflated */
    assert_int_equal(load_crafted(&c), WT_ERR_FORMAT);
    assert_message_has("h.npz: member cA is damaged");

    craft(&c, good_meta, NULL);
    c.members[0].method = 12; /* bzip2 */
    assert_int_equal(load_crafted(&c), WT_ERR_UNSUPPORTED);
    assert_message_has("h.npz: member cA uses zip method 12");
}

static void expect_meta_error(const char *json, wt_status code, const char *text)
{
    crafted c;
    craft(&c, json, NULL);
    double t0 = wt_seconds();
    wt_status st = load_crafted(&c);
    if (st != code || !strstr(wt_error_message(), text))
        fail_msg("%s -> %d %s", json, st, wt_error_message());
    assert_true(wt_seconds() - t0 < 1.0);
}

void test_npz_meta(void **state)
{
    (void)state;
    expect_meta_error("{", WT_ERR_FORMAT, "h.npz: unreadable meta member");
    expect_meta_error("[1, 2]", WT_ERR_FORMAT, "unreadable meta member");
    expect_meta_error("{\"wavelet\": \"haar\"}", WT_ERR_FORMAT, "unreadable meta member");
    expect_meta_error("{\"wavelet\": \"nope\", \"mode\": \"symmetric\", \"method\": \"conv\", "
                      "\"levels\": 1, \"width\": 4, \"height\": 4, \"channels\": 1, "
                      "\"bit_depth\": 8, \"color\": \"gray\"}",
                      WT_ERR_FORMAT, "h.npz: unknown wavelet 'nope'");
    expect_meta_error("{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", "
                      "\"levels\": 1, \"width\": -4, \"height\": 4, \"channels\": 1, "
                      "\"bit_depth\": 8, \"color\": \"gray\"}",
                      WT_ERR_FORMAT, "unreadable meta member");
    expect_meta_error("{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", "
                      "\"levels\": 1, \"width\": 4, \"height\": 4, \"channels\": 3, "
                      "\"bit_depth\": 8, \"color\": \"gray\"}",
                      WT_ERR_FORMAT, "impossible image description");
    expect_meta_error("{\"wavelet\": \"legall53\", \"mode\": \"zero\", \"method\": \"auto\", "
                      "\"levels\": 1, \"width\": 4, \"height\": 4, \"channels\": 1, "
                      "\"bit_depth\": 8, \"color\": \"gray\"}",
                      WT_ERR_FORMAT, "h.npz: wavelet legall53 supports modes");
    /* huge declared image: refused before any allocation */
    expect_meta_error("{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", "
                      "\"levels\": 1, \"width\": 30000, \"height\": 30000, "
                      "\"channels\": 1, \"bit_depth\": 16, \"color\": \"gray\"}",
                      WT_ERR_FORMAT, "needs more data than the file holds");
    /* the limits of every image read (issue 18 item 5) */
    expect_meta_error("{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", "
                      "\"levels\": 1, \"width\": 33000, \"height\": 33000, "
                      "\"channels\": 1, \"bit_depth\": 16, \"color\": \"gray\"}",
                      WT_ERR_LIMIT,
                      "h.npz: 33000x33000 pixels exceeds the limit of 1073741824 (--max-pixels)");
    expect_meta_error("{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", "
                      "\"levels\": 1, \"width\": 16777216, \"height\": 1, "
                      "\"channels\": 1, \"bit_depth\": 8, \"color\": \"gray\"}",
                      WT_ERR_LIMIT, "h.npz: 16777216x1: width and height must be below 2^24");
    expect_meta_error("{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", "
                      "\"levels\": 1, \"width\": 4000000000, \"height\": 4000000000, "
                      "\"channels\": 4, \"bit_depth\": 16, \"color\": \"rgba\"}",
                      WT_ERR_LIMIT, "h.npz: 4000000000x4000000000: width and height must be");
    expect_meta_error("{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", "
                      "\"levels\": 1, \"width\": 5, \"height\": 4, \"channels\": 1, "
                      "\"bit_depth\": 8, \"color\": \"gray\"}",
                      WT_ERR_FORMAT, "h.npz: member cA has shape (1, 2, 2), expected (1, 2, 3)");
}

/* A file of @p size bytes, holes but for @p data written at @p offset (a sparse
 * file: large on paper, small on disk). */
static void write_sparse(const char *path, const uint8_t *data, size_t size, uint64_t offset,
                         uint64_t total)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), (off_t)total), 0);
    assert_int_equal(pwrite(fileno(f), data, size, (off_t)offset), (ssize_t)size);
    fclose(f);
}

/* Move a stored zip (make_zip's, no ZIP64) @p hole bytes into a sparse file:
 * the central directory's offsets follow. */
static void shift_zip(const char *path, uint32_t hole, uint64_t total)
{
    size_t size;
    uint8_t *data = read_file(path, &size);
    for (size_t i = 0; i + 46 <= size; i++)
        if (memcmp(data + i, "PK\x01\x02", 4) == 0) {
            uint32_t off = (uint32_t)data[i + 42] | (uint32_t)data[i + 43] << 8 |
                           (uint32_t)data[i + 44] << 16 | (uint32_t)data[i + 45] << 24;
            le32(data + i + 42, off + hole);
        }
    uint8_t *end = data + size - 22;
    uint32_t cd = (uint32_t)end[16] | (uint32_t)end[17] << 8 | (uint32_t)end[18] << 16 |
                  (uint32_t)end[19] << 24;
    le32(end + 16, cd + hole);
    write_sparse(path, data, size, hole, total > hole + size ? total : hole + size);
    free(data);
}

/* A sparse file big enough for the image its meta describes: --max-pixels is
 * applied before the pyramid is allocated (issue 18 item 5). */
void test_npz_sparse_limits(void **state)
{
    (void)state;
    crafted c;
    craft(&c, "{\"wavelet\": \"haar\", \"mode\": \"symmetric\", \"method\": \"conv\", "
              "\"levels\": 1, \"width\": 4000, \"height\": 4000, \"channels\": 1, "
              "\"bit_depth\": 8, \"color\": \"gray\"}",
          NULL);
    const char *path = scratch("h.npz");
    make_zip(path, c.members, c.count);
    shift_zip(path, 80u << 20, 0); /* 80 MB on paper: 4000x4000 floats fit */
    wt_pyramid pyr;
    wt_npz_meta meta;
    wt_load_options opt = {.max_pixels = 1000000};
    assert_int_equal(wt_npz_load_any(path, &opt, &pyr, NULL, NULL, &meta), WT_ERR_LIMIT);
    assert_message_has("h.npz: 4000x4000 pixels exceeds the limit of 1000000 (--max-pixels)");
    assert_null(pyr.data);
    /* within the limit, the same file is refused: its members declare too few
     * bytes for the bands (before anything is allocated or read) */
    assert_int_equal(wt_npz_load(path, &pyr, &meta), WT_ERR_FORMAT);
    assert_message_has("h.npz: its description (4000x4000, 1 channels, 1 levels) needs more "
                       "data than the file holds");
    assert_null(pyr.data);
}

/* A PNG of IHDR @p width x @p height (gray 8-bit), the IDAT of a 1x1 image, IEND. */
static void write_png_header(const char *path, uint32_t width, uint32_t height)
{
    uint8_t png[128] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, *p = png + 8;
    /* zlib of one row of one pixel: filter 0, sample 0 */
    static const uint8_t idat[] = {0x78, 0x9c, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01};
    const struct {
        const char *type;
        const uint8_t *data;
        uint32_t len;
    } chunks[3] = {{"IHDR", NULL, 13}, {"IDAT", idat, sizeof idat}, {"IEND", NULL, 0}};
    uint8_t ihdr[13] = {width >> 24, width >> 16, width >> 8, width,  height >> 24,
                        height >> 16, height >> 8, height, 8, 0, 0, 0, 0};
    for (int i = 0; i < 3; i++) {
        const uint8_t *d = i == 0 ? ihdr : chunks[i].data;
        uint8_t *start = p + 4;
        p[0] = 0, p[1] = 0, p[2] = 0, p[3] = (uint8_t)chunks[i].len;
        memcpy(p + 4, chunks[i].type, 4);
        if (chunks[i].len)
            memcpy(p + 8, d, chunks[i].len);
        p += 8 + chunks[i].len;
        uint32_t crc = (uint32_t)crc32(0, start, 4 + chunks[i].len);
        p[0] = (uint8_t)(crc >> 24), p[1] = (uint8_t)(crc >> 16), p[2] = (uint8_t)(crc >> 8);
        p[3] = (uint8_t)crc;
        p += 4;
    }
    write_file(path, png, (size_t)(p - png));
}

/* Width and height below 2^24 on every path, as documented (issue 18 item 5). */
void test_side_limit(void **state)
{
    (void)state;
    wt_image img;
    const char *path = scratch("wide.png");
    write_png_header(path, 1u << 24, 1);
    assert_int_equal(wt_image_load(path, NULL, &img), WT_ERR_LIMIT);
    assert_message_has("wide.png: PNG width and height must be below 2^24");
    write_png_header(path, (1u << 24) + 1, 1);
    assert_int_equal(wt_image_load(path, NULL, &img), WT_ERR_LIMIT);
    assert_message_has("wide.png: PNG width and height must be below 2^24");
    write_png_header(path, (1u << 24) - 1, 1); /* allowed: fails later, on its data */
    assert_int_equal(wt_image_load(path, NULL, &img), WT_ERR_FORMAT);
    write_png_header(path, 1, 1);
    assert_int_equal(wt_image_load(path, NULL, &img), WT_OK);
    wt_image_free(&img);
}

/* Non-regular inputs: the format is decided from the first bytes, a FIFO with
 * no writer does not hang (issue 18 item 4). */
void test_stream_inputs(void **state)
{
    (void)state;
    wt_image img;
    wt_pyramid pyr;
    wt_npz_meta meta;
    double t0 = wt_seconds();
    alarm(20); /* a hang fails the test instead of the suite's timeout */
    assert_int_equal(wt_image_load("/dev/zero", NULL, &img), WT_ERR_FORMAT);
    assert_message_has("/dev/zero: not a PNG, JPEG, TIFF, NPY or Netpbm image");
    assert_int_equal(wt_npz_load("/dev/zero", &pyr, &meta), WT_ERR_FORMAT);
    assert_message_has("/dev/zero: not a coefficient file");
    const char *fifo = scratch("fifo.png");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(wt_image_load(fifo, NULL, &img), WT_ERR_IO);
    assert_message_has("fifo.png: no writer opened the FIFO within 3 s");
    assert_int_equal(wt_npz_load(fifo, &pyr, &meta), WT_ERR_IO);
    assert_message_has("fifo.png: no writer opened the FIFO within 3 s");
    alarm(0);
    assert_true(wt_seconds() - t0 < 10.0);
}

void test_npz_not_zip(void **state)
{
    (void)state;
    const char *path = scratch("junk.npz");
    static const char junk[] = "PK\x05\x06 this is not a zip file at all, really";
    write_file(path, junk, sizeof junk - 1);
    wt_pyramid pyr;
    wt_npz_meta meta;
    assert_int_equal(wt_npz_load(path, &pyr, &meta), WT_ERR_FORMAT);
    assert_message_has("junk.npz: ");
    assert_int_equal(wt_npz_load(scratch("nothing.npz"), &pyr, &meta), WT_ERR_IO);
    assert_message_has("nothing.npz: No such file or directory");
    /* end record pointing past the end of the file */
    size_t size;
    uint8_t *data = save_small_npz(scratch("s.npz"), &size);
    le32(data + size - 6, 0x7ffffff0);
    assert_int_equal(load_npz_bytes(data, size), WT_ERR_FORMAT);
    free(data);
}
