/* A fast DEFLATE encoder for filtered PNG rows: a zlib stream (RFC 1950) of
 * dynamic-Huffman blocks (RFC 1951) holding literals and runs only, the idea
 * of fpnge's and fpng's fast paths. A run repeats the previous sample
 * (distance 1 or 2 bytes: gray areas repeat it across channels) or the
 * previous pixel (distance = bytes per pixel); nothing
 * is searched, so a byte costs a few operations where a general compressor
 * hashes and compares. Mosaics, noise-like detail bands with flat areas,
 * lose little to this: docs/performance.md, "PNG encoding".
 *
 * Each block of BLOCK_BYTES input is read twice: once to count its bytes
 * (4-way histogram), once to find its runs (the run starts of 64 bytes at a
 * time as a bit mask, SSE2 compares) and turn it into tokens, literals and
 * matches, whose bytes leave the counts. The tokens are then written with
 * the block's own Huffman codes (14 bits at most for literals and lengths,
 * so that four literals fit in one 64-bit write) from one table: no branch
 * between literals and runs. A block whose coded form would be larger than
 * the bytes themselves (noise) is stored instead. dev/notes/png-fastz.md:
 * where the time goes. */
#include "png_fastz.h"

#include "config.h"
#include "wavetool_hooks.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define BLOCK_BYTES ((size_t)64 << 10)
#define MIN_RUN 3
#define MAX_MATCH 258
#define STORED_MAX 65535 /* bytes of one stored block */
#define MAX_BITS 15      /* longest code DEFLATE allows */
#define MAX_LITLEN_BITS 14 /* ours for literals and lengths: 4 literals fit in 56 bits */
#define MAX_CL_BITS 7    /* longest code-length code */
#define NUM_LITLEN 286
#define NUM_DIST 30
#define NUM_CL 19
#define END_OF_BLOCK 256

/* ---- words and bits -------------------------------------------------------- */

static inline uint64_t little_endian64(uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(v);
#else
    return v;
#endif
}

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return little_endian64(v);
}

typedef struct bit_writer {
    uint8_t *out;
    uint64_t buf;   /* bits not yet written, the first in bit 0 */
    unsigned count; /* how many; at most 63 */
} bit_writer;

static inline void put_bits(bit_writer *w, uint64_t bits, unsigned n)
{
    w->buf |= bits << w->count;
    w->count += n;
}

/* Write the whole bytes held: 8 bytes are stored, so the output needs that
 * much room past its end (wt_fastz_bound counts it). */
static inline void flush_bits(bit_writer *w)
{
    uint64_t le = little_endian64(w->buf);
    memcpy(w->out, &le, 8);
    w->out += w->count >> 3;
    w->buf >>= w->count & 56;
    w->count &= 7;
}

static void align_to_byte(bit_writer *w)
{
    flush_bits(w);
    put_bits(w, 0, (8 - w->count) & 7);
    flush_bits(w);
}

/* ---- symbols ----------------------------------------------------------------- */

static const uint16_t length_base[29] = {3,  4,  5,  6,  7,  8,  9,  10,  11,  13,
                                         15, 17, 19, 23, 27, 31, 35, 43,  51,  59,
                                         67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                         2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};

/* The length symbol (0-28, coded as 257 + it) of every match length. */
typedef struct length_table {
    uint8_t symbol[MAX_MATCH + 1];
} length_table;

static void length_table_init(length_table *t)
{
    for (int s = 0; s < 29; s++)
        for (int l = length_base[s]; l < length_base[s] + (1 << length_extra[s]) && l <= MAX_MATCH;
             l++)
            t->symbol[l] = (uint8_t)s; /* 258: symbol 28 overwrites 27's last */
}

/* Distance codes of distances 1-8 and their extra bits (RFC 1951 3.2.5). */
static inline unsigned distance_code(unsigned d)
{
    return d <= 4 ? d - 1 : d <= 6 ? 4 : 5;
}

static inline unsigned distance_extra_bits(unsigned d)
{
    return d > 4;
}

static inline unsigned distance_extra_value(unsigned d)
{
    return d <= 4 ? 0 : d <= 6 ? d - 5 : d - 7;
}

/* The first match of a run with @p left bytes: 258 at most, and never
 * leaving 1-2 bytes that no match can hold. */
static inline unsigned next_match(size_t left)
{
    return left <= MAX_MATCH ? (unsigned)left : left - MAX_MATCH < MIN_RUN ? MAX_MATCH - MIN_RUN : MAX_MATCH;
}

/* ---- runs ------------------------------------------------------------------- */

/* 0x80 in each byte of @p x that is zero, 0 in the others. */
static inline uint64_t zero_bytes(uint64_t x)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
    return ~(((x & low7) + low7) | x | low7);
}

/* Bit 8k+7 set where bytes k, k+1, k+2 of @p p (k < 6) equal those @p dist before. */
static inline uint64_t run_starts(const uint8_t *p, unsigned dist)
{
    uint64_t z = zero_bytes(load64(p) ^ load64(p - dist));
    return z & (z >> 8) & (z >> 16);
}

/* How many of the @p max bytes at @p p equal those @p dist before (the
 * caller keeps @p dist bytes before @p p in the buffer). */
static inline size_t repeated_bytes(const uint8_t *p, unsigned dist, size_t max)
{
    const uint8_t *before = p - dist;
    size_t n = 0;
    for (; n + 8 <= max; n += 8) {
        uint64_t x = load64(p + n) ^ load64(before + n);
        if (x)
            return n + ((unsigned)__builtin_ctzll(x) >> 3);
    }
    while (n < max && p[n] == before[n])
        n++;
    return n;
}

#ifdef __SSE2__
/* Bit k set where bytes k, k+1, k+2 of @p p (k < 14) equal those @p dist
 * before, 16 bytes compared at once. */
static inline unsigned run_starts16(const uint8_t *p, unsigned dist)
{
    __m128i now = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i before = _mm_loadu_si128((const __m128i *)(const void *)(p - dist));
    unsigned eq = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(now, before));
    return eq & eq >> 1 & eq >> 2 & 0x3fffu;
}
#endif

/* Where the first run of MIN_RUN bytes or more starts in [@p from, @p end),
 * @p from ≥ 8; @p end when there is none. 16 bytes a step with SSE2 (the
 * x86-64 baseline), else 8 (6 starts) in a word; the last bytes one by one. */
static size_t next_run_start(const uint8_t *in, size_t from, size_t end, unsigned sample,
                             unsigned pixel)
{
    size_t j = from;
#ifdef __SSE2__
    for (; j + 16 <= end; j += 14) {
        unsigned m = run_starts16(in + j, sample);
        if (pixel > sample)
            m |= run_starts16(in + j, pixel);
        if (m)
            return j + (unsigned)__builtin_ctz(m);
    }
#endif
    for (; j + 8 <= end; j += 6) {
        uint64_t m = run_starts(in + j, sample);
        if (pixel > sample)
            m |= run_starts(in + j, pixel);
        if (m)
            return j + ((unsigned)__builtin_ctzll(m) >> 3);
    }
    for (; j + MIN_RUN <= end; j++)
        if (repeated_bytes(in + j, sample, MIN_RUN) == MIN_RUN ||
            (pixel > sample && repeated_bytes(in + j, pixel, MIN_RUN) == MIN_RUN))
            return j;
    return end;
}

/* Bit k set where byte k of the 64 at @p p equals the one @p dist before. */
static inline uint64_t equal_mask64(const uint8_t *p, unsigned dist)
{
    uint64_t eq = 0;
#ifdef __SSE2__
    for (int k = 0; k < 64; k += 16) {
        __m128i now = _mm_loadu_si128((const __m128i *)(const void *)(p + k));
        __m128i before = _mm_loadu_si128((const __m128i *)(const void *)(p + k - dist));
        eq |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(now, before)) << k;
    }
#else
    for (int k = 0; k < 64; k += 8) /* the 0x80 of each zero byte gathered by a multiply */
        eq |= (((zero_bytes(load64(p + k) ^ load64(p + k - dist)) >> 7) * 0x0102040810204080ull) >>
               56) << k;
#endif
    return eq;
}

#define WINDOW_STARTS 62 /* a window of 64 bytes holds the starts of 62 runs of 3 */

/* The run search of a block: the possible run starts of a window of 64
 * bytes as bits, found with wide compares once and used for every run in
 * the window (runs are about 27 bytes apart in mosaics), so that finding
 * the next start rarely branches the unexpected way. */
typedef struct run_scanner {
    const uint8_t *in;
    size_t end;
    unsigned sample, pixel;
    int valid;       /* whether base and starts describe a window */
    size_t base;     /* the window's first byte */
    uint64_t starts; /* bit k: bytes base + k .. + 2 repeat at either distance */
} run_scanner;

/* Where the first run of MIN_RUN bytes or more starts in [@p from, end),
 * @p from ≥ 8 and never less than at the last call; end when there is
 * none. The block's last 63 bytes by next_run_start. */
static size_t scanner_next(run_scanner *s, size_t from)
{
    for (;;) {
        if (!s->valid || from - s->base >= WINDOW_STARTS) {
            if (from + 64 > s->end)
                return next_run_start(s->in, from, s->end, s->sample, s->pixel);
            uint64_t eq = equal_mask64(s->in + from, s->sample);
            s->starts = eq & eq >> 1 & eq >> 2;
            if (s->pixel > s->sample) {
                eq = equal_mask64(s->in + from, s->pixel);
                s->starts |= eq & eq >> 1 & eq >> 2;
            }
            s->starts &= ~0ull >> (64 - WINDOW_STARTS);
            s->base = from;
            s->valid = 1;
        }
        uint64_t m = s->starts >> (from - s->base);
        if (m)
            return from + (unsigned)__builtin_ctzll(m);
        from = s->base + WINDOW_STARTS;
    }
}

/* A block as tokens, one uint16 each: a literal (its byte) or a match,
 * MATCH_TOKEN + 256 x slot + length - 3 (slot 0: the sample's distance, 1:
 * the pixel's). Written from one table, so that the writer does not branch
 * between literals and runs. */
#define MATCH_TOKEN 256
#define NUM_TOKENS (MATCH_TOKEN + 2 * 256)
#define TOKEN_SLACK 32 /* tokens past the last that widen_literals may write */

/* Symbol counts of one block. */
typedef struct block_counts {
    uint32_t litlen[NUM_LITLEN], dist[NUM_DIST];
} block_counts;

/* Add the counts of the @p n bytes at @p p to @p litlen; four tables, so
 * that equal neighbours do not wait on each other's increment. */
static void count_bytes(uint32_t *litlen, const uint8_t *p, size_t n)
{
    uint32_t t[4][256];
    memset(t, 0, sizeof t);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        t[0][p[i]]++;
        t[1][p[i + 1]]++;
        t[2][p[i + 2]]++;
        t[3][p[i + 3]]++;
    }
    for (; i < n; i++)
        t[0][p[i]]++;
    for (int v = 0; v < 256; v++)
        litlen[v] += t[0][v] + t[1][v] + t[2][v] + t[3][v];
}

/* Take the @p length bytes of a run at @p p (distance @p dist) out of the
 * literal counts: byte k of the run repeats byte k mod dist of the @p dist
 * before it, so each of those counts length / dist times, or once more. */
static void uncount_run(uint32_t *litlen, const uint8_t *p, size_t length, unsigned dist)
{
    uint32_t times = (uint32_t)length / dist, more = (uint32_t)length % dist;
    for (unsigned k = 0; k < dist; k++)
        litlen[(p - dist)[k]] -= times + (k < more);
}

/* The matches of a run of @p length bytes at the distance of @p slot as
 * tokens into @p tok, counted; returns how many. */
static size_t run_tokens(uint16_t *tok, block_counts *c, const length_table *t, size_t length,
                         unsigned slot, unsigned dist)
{
    size_t n = 0;
    for (size_t left = length; left; n++) {
        unsigned m = next_match(left);
        tok[n] = (uint16_t)(MATCH_TOKEN + 256 * slot + m - MIN_RUN);
        c->litlen[257 + t->symbol[m]]++;
        c->dist[distance_code(dist)]++;
        left -= m;
    }
    return n;
}

#ifdef __SSE2__
static inline void widen16(uint16_t *tok, const uint8_t *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p), zero = _mm_setzero_si128();
    _mm_storeu_si128((__m128i *)(void *)tok, _mm_unpacklo_epi8(v, zero));
    _mm_storeu_si128((__m128i *)(void *)(tok + 8), _mm_unpackhi_epi8(v, zero));
}
#endif

/* The @p n bytes at @p p as literal tokens into @p tok, where @p readable
 * bytes may be read. Up to 32 (mosaics' literals come about 22 at a time)
 * as 32 without a branch on their number: the token buffer's slack takes
 * the surplus. */
static inline void widen_literals(uint16_t *tok, const uint8_t *p, size_t n, size_t readable)
{
    size_t k = 0;
#ifdef __SSE2__
    if (n <= 32 && readable >= 32) {
        widen16(tok, p);
        widen16(tok + 16, p + 16);
        return;
    }
    for (; k + 16 <= n; k += 16)
        widen16(tok + k, p + k);
#endif
    for (; k < n; k++)
        tok[k] = p[k];
}

/* Block [@p b0, @p b1) of @p in as tokens (@p tok: BLOCK_BYTES +
 * TOKEN_SLACK), the runs the longer of the two distances where both start
 * one, and the block's symbol counts: every byte counted as a literal, then
 * the runs' bytes taken out. Returns the number of tokens. */
static size_t block_tokens(const uint8_t *in, size_t b0, size_t b1, unsigned sample,
                           unsigned pixel, const length_table *t, uint16_t *tok, block_counts *c)
{
    size_t i = b0, n = 0;
    run_scanner scan = {in, b1, sample, pixel, 0, 0, 0};
    count_bytes(c->litlen, in + b0, b1 - b0);
    for (;;) {
        size_t j = scanner_next(&scan, i < 8 ? 8 : i);
        widen_literals(tok + n, in + i, j - i, b1 - i);
        n += j - i;
        if (j >= b1)
            return n;
        size_t by_sample = repeated_bytes(in + j, sample, b1 - j);
        size_t by_pixel = pixel > sample ? repeated_bytes(in + j, pixel, b1 - j) : 0;
        unsigned slot = by_pixel > by_sample, dist = slot ? pixel : sample;
        size_t length = slot ? by_pixel : by_sample;
        n += run_tokens(tok + n, c, t, length, slot, dist);
        uncount_run(c->litlen, in + j, length, dist);
        i = j + length;
    }
}

/* ---- Huffman codes -------------------------------------------------------- */

typedef struct sym_freq {
    uint32_t freq;
    uint16_t sym;
} sym_freq;

/* The @p n symbols of @p s (in ascending symbol order) sorted by ascending
 * frequency, ties kept in symbol order: a radix sort of the frequencies
 * (below 2^24: a block's bytes), a byte a pass, passes that would not move
 * anything skipped. */
static void sort_by_freq(sym_freq *s, int n)
{
    sym_freq sorted[NUM_LITLEN];
    for (unsigned shift = 0; shift < 24; shift += 8) {
        int start[257] = {0};
        for (int i = 0; i < n; i++)
            start[(s[i].freq >> shift & 0xff) + 1]++;
        if (start[(s[0].freq >> shift & 0xff) + 1] == n)
            continue; /* all alike in this byte */
        for (int b = 0; b < 256; b++)
            start[b + 1] += start[b];
        for (int i = 0; i < n; i++)
            sorted[start[s[i].freq >> shift & 0xff]++] = s[i];
        memcpy(s, sorted, (size_t)n * sizeof *s);
    }
}

/* Moffat and Katajainen's in-place minimum-redundancy code: @p a holds @p n
 * ≥ 2 weights in ascending order; on return, each one's code length. */
static void minimum_redundancy(uint32_t *a, int n)
{
    int root = 0, leaf = 2;
    a[0] += a[1];
    for (int next = 1; next < n - 1; next++) {
        if (leaf >= n || a[root] < a[leaf]) {
            a[next] = a[root];
            a[root++] = (uint32_t)next;
        } else {
            a[next] = a[leaf++];
        }
        if (leaf >= n || (root < next && a[root] < a[leaf])) {
            a[next] += a[root];
            a[root++] = (uint32_t)next;
        } else {
            a[next] += a[leaf++];
        }
    }
    a[n - 2] = 0;
    for (int next = n - 3; next >= 0; next--)
        a[next] = a[a[next]] + 1;
    int avail = 1, used = 0, depth = 0, next = n - 1;
    root = n - 2;
    while (avail > 0) {
        while (root >= 0 && (int)a[root] == depth) {
            used++;
            root--;
        }
        while (avail > used) {
            a[next--] = (uint32_t)depth;
            avail--;
        }
        avail = 2 * used;
        depth++;
        used = 0;
    }
}

/* Fold the codes longer than @p limit into it and lengthen shorter ones
 * until the lengths (@p count per length, up to @p longest) form a complete
 * code again (miniz's method). */
static void limit_lengths(int *count, int longest, int limit)
{
    for (int l = limit + 1; l <= longest; l++) {
        count[limit] += count[l];
        count[l] = 0;
    }
    uint32_t kraft = 0; /* in units of 2^-limit */
    for (int l = 1; l <= limit; l++)
        kraft += (uint32_t)count[l] << (limit - l);
    while (kraft != 1u << limit) {
        count[limit]--;
        for (int l = limit - 1; l > 0; l--)
            if (count[l]) {
                count[l]--;
                count[l + 1] += 2;
                break;
            }
        kraft--;
    }
}

/* Code lengths (at most @p limit) of @p n symbols counted @p freq, two of
 * them at least nonzero: a complete code, as zlib's inflate requires. */
static void huffman_lengths(const uint32_t *freq, int n, int limit, uint8_t *len)
{
    sym_freq s[NUM_LITLEN];
    uint32_t depth[NUM_LITLEN];
    int count[NUM_LITLEN + 1] = {0}, used = 0, longest = 0;
    memset(len, 0, (size_t)n);
    for (int i = 0; i < n; i++)
        if (freq[i])
            s[used++] = (sym_freq){freq[i], (uint16_t)i};
    sort_by_freq(s, used);
    for (int i = 0; i < used; i++)
        depth[i] = s[i].freq;
    minimum_redundancy(depth, used);
    for (int i = 0; i < used; i++) {
        count[depth[i]]++;
        longest = (int)depth[i] > longest ? (int)depth[i] : longest;
    }
    limit_lengths(count, longest, limit);
    for (int l = 1, j = used; l <= limit; l++) /* shortest codes to the most frequent */
        for (int k = count[l]; k > 0; k--)
            len[s[--j].sym] = (uint8_t)l;
}

/* Give the first unused symbols a count of 1 until two are used. */
static void use_two_at_least(uint32_t *freq, int n)
{
    int used = 0;
    for (int i = 0; i < n; i++)
        used += freq[i] != 0;
    for (int i = 0; i < n && used < 2; i++)
        if (!freq[i]) {
            freq[i] = 1;
            used++;
        }
}

/* Canonical codes of lengths @p len (RFC 1951 3.2.2), bit-reversed to be
 * written first bit first. */
static void canonical_codes(const uint8_t *len, int n, uint16_t *code)
{
    int count[MAX_BITS + 1] = {0};
    uint32_t next[MAX_BITS + 1], c = 0;
    for (int i = 0; i < n; i++)
        count[len[i]]++;
    count[0] = 0;
    for (int l = 1; l <= MAX_BITS; l++) {
        c = (c + (uint32_t)count[l - 1]) << 1;
        next[l] = c;
    }
    for (int i = 0; i < n; i++) {
        if (!len[i])
            continue;
        uint32_t v = next[len[i]]++, r = 0;
        for (int b = 0; b < len[i]; b++)
            r |= ((v >> b) & 1u) << (len[i] - 1 - b);
        code[i] = (uint16_t)r;
    }
}

typedef struct huffman {
    uint8_t len[NUM_LITLEN];
    uint16_t code[NUM_LITLEN];
} huffman;

static void huffman_build(huffman *h, uint32_t *freq, int n, int limit)
{
    use_two_at_least(freq, n);
    huffman_lengths(freq, n, limit, h->len);
    canonical_codes(h->len, n, h->code);
}

/* ---- dynamic block header ---------------------------------------------------- */

/* The code lengths of both alphabets, run-length coded with symbols 16-18
 * (RFC 1951 3.2.7), and the code that writes them. */
typedef struct block_header {
    int hlit, hdist, hclen;
    int n;
    uint8_t sym[NUM_LITLEN + NUM_DIST], extra[NUM_LITLEN + NUM_DIST];
    huffman cl;
} block_header;

static const uint8_t cl_order[NUM_CL] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
                                         11, 4,  12, 3, 13, 2, 14, 1, 15};
static const uint8_t cl_extra_bits[NUM_CL] = {[16] = 2, [17] = 3, [18] = 7};

static void header_emit(block_header *h, uint32_t *freq, int sym, int extra)
{
    h->sym[h->n] = (uint8_t)sym;
    h->extra[h->n++] = (uint8_t)extra;
    freq[sym]++;
}

static void header_plan(block_header *h, const huffman *litlen, const huffman *dist)
{
    uint8_t lens[NUM_LITLEN + NUM_DIST];
    uint32_t freq[NUM_CL] = {0};
    h->hlit = NUM_LITLEN;
    while (h->hlit > 257 && !litlen->len[h->hlit - 1])
        h->hlit--;
    h->hdist = NUM_DIST;
    while (h->hdist > 1 && !dist->len[h->hdist - 1])
        h->hdist--;
    memcpy(lens, litlen->len, (size_t)h->hlit);
    memcpy(lens + h->hlit, dist->len, (size_t)h->hdist);
    h->n = 0;
    for (int i = 0, total = h->hlit + h->hdist; i < total;) {
        int v = lens[i], same = 1;
        while (i + same < total && lens[i + same] == v)
            same++;
        i += same;
        if (v == 0) {
            for (; same >= 11; same -= same < 138 ? same : 138)
                header_emit(h, freq, 18, (same < 138 ? same : 138) - 11);
            if (same >= 3) {
                header_emit(h, freq, 17, same - 3);
                same = 0;
            }
        } else {
            header_emit(h, freq, v, 0);
            for (same--; same >= 3; same -= same < 6 ? same : 6)
                header_emit(h, freq, 16, (same < 6 ? same : 6) - 3);
        }
        for (; same > 0; same--)
            header_emit(h, freq, v, 0);
    }
    huffman_build(&h->cl, freq, NUM_CL, MAX_CL_BITS);
    h->hclen = NUM_CL;
    while (h->hclen > 4 && !h->cl.len[cl_order[h->hclen - 1]])
        h->hclen--;
}

static size_t header_bits(const block_header *h)
{
    size_t bits = 3 + 5 + 5 + 4 + 3 * (size_t)h->hclen;
    for (int i = 0; i < h->n; i++)
        bits += h->cl.len[h->sym[i]] + cl_extra_bits[h->sym[i]];
    return bits;
}

static void header_write(bit_writer *w, const block_header *h, int final)
{
    put_bits(w, (uint64_t)final | 2u << 1, 3);
    put_bits(w, (uint64_t)(h->hlit - 257), 5);
    put_bits(w, (uint64_t)(h->hdist - 1), 5);
    put_bits(w, (uint64_t)(h->hclen - 4), 4);
    flush_bits(w);
    for (int i = 0; i < h->hclen; i++) {
        put_bits(w, h->cl.len[cl_order[i]], 3);
        flush_bits(w);
    }
    for (int i = 0; i < h->n; i++) {
        put_bits(w, h->cl.code[h->sym[i]], h->cl.len[h->sym[i]]);
        put_bits(w, h->extra[i], cl_extra_bits[h->sym[i]]);
        flush_bits(w);
    }
}

/* ---- blocks ------------------------------------------------------------------ */

/* The codes of one block and what the writer puts for each token: its bits
 * (a literal's code; a match's length code, extra bits, distance code and
 * extra bit: 35 at most) and their number. */
typedef struct block_codes {
    huffman litlen, dist;
    uint64_t bits[NUM_TOKENS];
    uint8_t nbits[NUM_TOKENS];
} block_codes;

static void block_codes_pack(block_codes *k, const length_table *t, unsigned sample,
                             unsigned pixel)
{
    for (int s = 0; s < 256; s++) {
        k->bits[s] = k->litlen.code[s];
        k->nbits[s] = k->litlen.len[s];
    }
    for (unsigned slot = 0; slot < 2; slot++) {
        unsigned dist = slot ? pixel : sample, dc = distance_code(dist), dn = k->dist.len[dc];
        uint64_t distance = k->dist.code[dc] | distance_extra_value(dist) << dn;
        unsigned distance_n = dn + distance_extra_bits(dist);
        for (unsigned m = MIN_RUN; m <= MAX_MATCH; m++) {
            unsigned s = t->symbol[m], len = k->litlen.len[257 + s], n = len + length_extra[s];
            unsigned token = MATCH_TOKEN + 256 * slot + m - MIN_RUN;
            k->bits[token] = k->litlen.code[257 + s] | (uint64_t)(m - length_base[s]) << len |
                             distance << n;
            k->nbits[token] = (uint8_t)(n + distance_n);
        }
    }
}

static size_t data_bits(const block_counts *c, const block_codes *k)
{
    size_t bits = 0;
    for (int s = 0; s < NUM_LITLEN; s++)
        bits += (size_t)c->litlen[s] * (k->litlen.len[s] + (s > 256 ? length_extra[s - 257] : 0));
    for (int d = 0; d < 6; d++) /* distances 1-8; codes 4 and 5 have an extra bit */
        bits += (size_t)c->dist[d] * (k->dist.len[d] + (d >= 4));
    return bits;
}

/* Bits of @p n bytes stored: per stored block 3 header bits, up to 7 to
 * the byte, LEN and NLEN. */
static size_t stored_bits(size_t n)
{
    return 8 * n + (n / STORED_MAX + 1) * (3 + 7 + 32);
}

static void write_stored(bit_writer *w, const uint8_t *p, size_t n, int final)
{
    do {
        size_t k = n < STORED_MAX ? n : STORED_MAX;
        put_bits(w, (uint64_t)(final && k == n), 3);
        align_to_byte(w);
        put_bits(w, k | (uint64_t)(~k & 0xffff) << 16, 32);
        flush_bits(w);
        memcpy(w->out, p, k);
        w->out += k;
        p += k;
        n -= k;
    } while (n);
}

/* The tokens @p tok[0..n), four at a time: their codes joined first (no
 * dependence on the writer's state), then put at once where they fit in 56
 * bits beside the 7 held (always for literals: 14 bits at most), else one
 * by one. */
static void put_tokens(bit_writer *w, const block_codes *k, const uint16_t *tok, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        unsigned a = tok[i], b = tok[i + 1], c = tok[i + 2], d = tok[i + 3];
        unsigned ea = k->nbits[a], eb = ea + k->nbits[b], ec = eb + k->nbits[c],
                 ed = ec + k->nbits[d];
        if (ed > 56) {
            put_bits(w, k->bits[a], ea);
            flush_bits(w);
            put_bits(w, k->bits[b], eb - ea);
            flush_bits(w);
            put_bits(w, k->bits[c], ec - eb);
            flush_bits(w);
            put_bits(w, k->bits[d], ed - ec);
        } else {
            put_bits(w, k->bits[a] | k->bits[b] << ea | k->bits[c] << eb | k->bits[d] << ec, ed);
        }
        flush_bits(w);
    }
    for (; i < n; i++) {
        put_bits(w, k->bits[tok[i]], k->nbits[tok[i]]);
        flush_bits(w);
    }
}

/* Block [@p b0, @p b1) of @p in, dynamic or stored, whichever is smaller;
 * @p tok: BLOCK_BYTES + TOKEN_SLACK tokens of room. */
static void write_block(bit_writer *w, const uint8_t *in, size_t b0, size_t b1, unsigned sample,
                        unsigned pixel, const length_table *t, uint16_t *tok, int final)
{
    block_counts c = {{0}, {0}};
    block_codes k;
    block_header h;
    size_t n = block_tokens(in, b0, b1, sample, pixel, t, tok, &c);
    c.litlen[END_OF_BLOCK] = 1;
    block_counts freq = c; /* huffman_build may add counts to unused symbols */
    huffman_build(&k.litlen, freq.litlen, NUM_LITLEN, MAX_LITLEN_BITS);
    huffman_build(&k.dist, freq.dist, NUM_DIST, MAX_BITS);
    header_plan(&h, &k.litlen, &k.dist);
    if (header_bits(&h) + data_bits(&c, &k) > stored_bits(b1 - b0)) {
        write_stored(w, in + b0, b1 - b0, final);
        return;
    }
    block_codes_pack(&k, t, sample, pixel);
    header_write(w, &h, final);
    put_tokens(w, &k, tok, n);
    put_bits(w, k.litlen.code[END_OF_BLOCK], k.litlen.len[END_OF_BLOCK]);
    flush_bits(w);
}

/* The compressor under the name of this build: the baseline's, or that of
 * a variant with other instructions (png_fastz_bmi2.c). */
#ifndef FASTZ_COMPRESS
#define FASTZ_COMPRESS wt_fastz_compress_baseline
#endif
size_t FASTZ_COMPRESS(const uint8_t *in, size_t n, unsigned sample, unsigned pixel, uint8_t *out);

size_t FASTZ_COMPRESS(const uint8_t *in, size_t n, unsigned sample, unsigned pixel, uint8_t *out)
{
    uint16_t *tok = malloc((BLOCK_BYTES + TOKEN_SLACK) * sizeof *tok);
    if (!tok)
        return 0;
    length_table t;
    length_table_init(&t);
    bit_writer w = {out, 0, 0};
    put_bits(&w, 0x0178, 16); /* CMF 0x78 (deflate, 32 KiB window), FLG 0x01 */
    flush_bits(&w);
    size_t b0 = 0;
    do {
        size_t b1 = n - b0 <= BLOCK_BYTES ? n : b0 + BLOCK_BYTES;
        write_block(&w, in, b0, b1, sample, pixel, &t, tok, b1 == n);
        b0 = b1;
    } while (b0 < n);
    align_to_byte(&w);
    uint32_t adler = libdeflate_adler32(1, in, n);
    put_bits(&w, (uint64_t)(adler >> 24 | (adler >> 8 & 0xff00) | (adler << 8 & 0xff0000) |
                            (adler & 0xff) << 24),
             32);
    flush_bits(&w);
    free(tok);
    return (size_t)(w.out - out);
}

#ifndef FASTZ_VARIANT
size_t wt_fastz_bound(size_t n)
{
    /* stored blocks at worst (write_block's choice), zlib header and
     * Adler-32, the last byte's padding, flush_bits' 8 bytes of room */
    size_t blocks = n / BLOCK_BYTES + 1;
    return n + (n / STORED_MAX + blocks) * 6 + 2 + 4 + 1 + 8;
}

#if WT_HAVE_X86_KERNELS
size_t wt_fastz_compress_bmi2(const uint8_t *in, size_t n, unsigned sample, unsigned pixel,
                              uint8_t *out);
#endif

/* The BMI2 build where the CPU has it, unless WT_CPU_SCALAR=1. */
size_t wt_fastz_compress(const uint8_t *in, size_t n, unsigned sample, unsigned pixel,
                         uint8_t *out)
{
#if WT_HAVE_X86_KERNELS
    __builtin_cpu_init();
    if (!wt_cpu_reference() && __builtin_cpu_supports("bmi2") &&
        __builtin_cpu_supports("avx2"))
        return wt_fastz_compress_bmi2(in, n, sample, pixel, out);
#endif
    return wt_fastz_compress_baseline(in, n, sample, pixel, out);
}
#endif
