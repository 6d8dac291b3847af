/* Per-GPU launch policy (cu_policy.h): the defaults, the table of entries
 * and the key=value parser shared by the entries and WT_CUDA_POLICY. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_compat.h" /* cudaDeviceGetAttribute */
#include "cu_plan.h"   /* CU_MAXF */
#include "cu_policy.h"
#include "cu_tuning.h"

/* The values every entry starts from: the H100 80GB HBM3's (SXM, 3.35 TB/s
 * peak, 2.9 TB/s device copy), where each was measured (8192x8192 float32,
 * 3 levels, % of the device copy in the same run; dev/notes/kernel-log.md). */
static void policy_defaults(cu_policy *q)
{
    memset(q, 0, sizeof *q);
    /* 32x32 pairs: the tiles of v2-v13 (kernel-log "v5: flat thread
     * mapping"), haar 93-95%, db3 84-88%; not swept against 64 since the
     * fast kernels took over (v2) */
    q->tile_y = q->tile_x = q->tile_y_inv = q->tile_x_inv = 32;
    /* long filters (v12-longfilt): forward 32x64, db20 0.640 -> 0.576 ms,
     * coif17 2.350 -> 1.673 ms against 32x32; inverse 64 wide slower (db20
     * 0.634 -> 0.848 ms: windows twice as big, 1 block per SM) */
    q->long_ty = 32;
    q->long_tx = CU_LONG_TX;
    q->long_tx_inv = CU_LONG_TX_INV;
    /* long filters of 48 taps and more as two passes (predicted 1.5-2x
     * faster from 48 taps, a loss at 28-36 on the H100: kernel-log v18);
     * tiles of 256 items (16 rows x 16
     * segments, 64 columns x 4 segments) for the 256 threads: x passes 16
     * rows x 128 pairs (coif17: 16 x 358 window, 1.4 reads a sample), y
     * passes 32 pairs x 64 columns (166 x 64, 42 KB: 4 blocks an SM) */
    q->long_split = 48;
    q->split_rows = 16;
    q->split_tx = 128;
    q->split_ty = 32;
    q->split_cols = 64;
    /* v14: 4 blocks of 256-288 threads an SM (54-63 registers); 5 (v17)
     * measured on the H200 only (its entry below); with fast_blocks=5 every
     * kernel built for 5 takes them unless these two say otherwise */
    q->fast_blocks = CU_FWD_BLOCKS;
    q->fast_blocks_taps = CU_MORE_TAPS;
    q->fast_blocks_lift = 1;
    /* off: L2 prefetches of a later tile's window lost on the H200 both as
     * a warp's bulk requests before the gather (v16: 11-35 points) and as
     * one plain line a thread after the gather's copies (v17, 0.5 and 1
     * resident grids: 8192² L3 inverses -9 to -13 points, forwards haar +2,
     * db3/sym8/cdf97 -3 to -6, 1024 x 256² db3 -3) */
    q->fast_prefetch = 0;
    /* v12-small: 512² L3 db3 forward 16.4 (off) -> 13.0 us at 1 block per
     * SM; 2: 15.7, 4: 16.9 */
    q->small_grid = CU_SMALL_GRID;
    /* v12-small: PDL after grids of at most 2 blocks per SM (512² L3 2-5 us
     * with the small tiles); everywhere (WT_CUDA_PDL=2) noise-sized on 8192² */
    q->pdl_grid = 2;
    /* v1: the generic kernels' cap, not a measured optimum */
    q->smem_cap = CU_SMEM_CAP;
    /* v15, H200: fused levels off; tail_bytes=16M (2048² and below in one
     * cooperative launch) was slower than graphs + PDL: 512² L3 haar 10.3 ->
     * 12.5 us, db3 13.1 -> 15.0, cdf97 13.7 -> 15.5 forward, cdf97 1024² L5
     * 21.5 -> 30.7 us; 8192² and 1024 x 256² unchanged (nothing fused) */
    q->tail_bytes = CU_TAIL_BYTES;
    /* undecimated ("Undecimated transforms" of the log, v4-v7): SWT tiles of
     * up to 64 rows, the starlet's 128 (54.4% -> 59.3% forward), 128 column
     * slots (SWT inverse db3 L3 61.2%; 64: 53.8%, 256: 60.4%), 48 KB (no
     * opt-in) */
    q->uty = CU_UTY_MAX;
    q->uty_starlet = CU_UTY_STARLET;
    q->utxc = CU_UTXC;
    q->usmem = CU_USMEM;
    /* volumes (cu_tuning.h): the forward's spans, the inverse's z filter and
     * the stages measured (H200); tiles and runs not yet swept */
    q->vol_ty = CU_VOL_TY;
    q->vol_tx = CU_VOL_TX;
    q->vol_ty_inv = CU_VOL_TY_INV;
    q->vol_tx_inv = CU_VOL_TX_INV;
    q->vol_smem = CU_VOL_SMEM;
    q->vol_waves = CU_VOL_WAVES;
    q->vol_stages = CU_VOL_STAGES;
    q->vol_fwd_span = CU_VOL_FWD_SPAN;
    q->vol_zring = CU_VOL_ZRING;
    q->vol_pair = CU_VOL_PAIR;
    q->vol_sweep = CU_VOL_SWEEP;
    q->vol_sweep_inverse = CU_VOL_SWEEP_INVERSE;
    q->vol_sweep_stages = CU_VOL_SWEEP_STAGES;
    q->vol_sweep_barriers = CU_VOL_SWEEP_BARRIERS;
    q->vol_sweep_ring = CU_VOL_SWEEP_RING;
    q->vol_sweep_rows = CU_VOL_SWEEP_ROWS;
    q->vol_sweep_plain = CU_VOL_SWEEP_PLAIN;
    q->vol_sweep_blocks = CU_VOL_SWEEP_BLOCKS;
    q->vol_lift_tile = CU_VOL_LIFT_TILE;
}

/* One entry: the GPUs it is for and its fields that differ from the
 * defaults, as WT_CUDA_POLICY would set them. The first entry that matches
 * is taken, so the more specific come first. */
typedef struct policy_entry {
    const char *name;
    int major, minor;    /* compute capability; -1: any */
    double min_gbps;     /* peak memory bandwidth at least this (GB/s) */
    const char *fields;  /* "key=value,..." over the defaults */
} policy_entry;

static const policy_entry entries[] = {
    /* H200 (HBM3e, 4.8 TB/s peak; device copy 4.1 TB/s): the H100's
     * defaults (H200 8192² L3: haar 79/87%, db3 70/74%, sym8 53/53% of
     * copy, bench/results/gpu-bench-all-h200.md) but 5 blocks an SM for
     * the convolutions of up to 6 taps (v17, GRIDS=fast policy_sweep.sh,
     * 8192² L3 % of copy, symmetric / periodization, forward-inverse, 4 ->
     * 5 blocks: haar 78.3-79.5/84.4-84.9 -> 82.6-82.8/89.5-89.7 and
     * 78.6-79.7/83.6-84.0 -> 82.2/88.7-88.8; db3 69.8-70.4/72.4-72.5 ->
     * 71.6-71.9/76.5-76.8 and 71.8-72.2/70.6-70.7 -> 72.6-73.0/72.9-73.0;
     * 1024 x 256² L3 db3 forward 44.8-45.1 -> 46.8-47.0). Not sym8 (its
     * tiles halve to fit 5 blocks: 55/54 -> 51/45), not the lifting
     * schemes (cdf97 forward 68 -> 60, inverse 66 -> 67.5; 1024 x 256² cdf97
     * 60 -> 53.6). The forward volume sweep of spans to 6 at 3 blocks an SM
     * (512^3 L3 conv % of copy, forward, 2 -> 3 blocks: db2 23.9 -> 27.0,
     * db3 22.8 -> 22.6, the inverse and spans over 6 unchanged; the H100
     * not yet measured: dev/notes/gpu-volumes.md, branch vol27b). */
    {"sm90-hbm3e", 9, 0, 4000.0,
     "fast_blocks=5,fast_blocks_taps=6,fast_blocks_lift=0,vol_sweep_blocks=3"},
    /* H100 SXM (HBM3, 3.35 TB/s), H100 PCIe/NVL: every default was measured
     * on the SXM (see policy_defaults). */
    {"sm90", 9, 0, 0.0, ""},
    /* Other GPUs (sm_80, sm_100, sm_120, ...): the H100's values, never
     * measured there. */
    {"default", -1, -1, 0.0, ""},
};

typedef enum { FIELD_INT, FIELD_POW2, FIELD_DOUBLE, FIELD_BYTES } field_kind;

typedef struct policy_field {
    const char *key;
    size_t offset;
    field_kind kind;
    double lo, hi; /* accepted range */
} policy_field;

#define FIELD(k, kind, lo, hi) {#k, offsetof(cu_policy, k), kind, lo, hi}
static const policy_field fields[] = {
    FIELD(tile_y, FIELD_POW2, CU_SEG, 128),
    FIELD(tile_x, FIELD_POW2, CU_SEG, 128),
    FIELD(tile_y_inv, FIELD_POW2, CU_SEG, 128),
    FIELD(tile_x_inv, FIELD_POW2, CU_SEG, 128),
    FIELD(long_ty, FIELD_POW2, CU_SEG, 128),
    FIELD(long_tx, FIELD_POW2, CU_SEG, 128),
    FIELD(long_tx_inv, FIELD_POW2, CU_SEG, 128),
    FIELD(long_split, FIELD_INT, 0, CU_MAXF),
    FIELD(split_rows, FIELD_POW2, 1, 256),
    FIELD(split_tx, FIELD_POW2, CU_SEG, 256),
    FIELD(split_ty, FIELD_POW2, CU_SEG, 128),
    FIELD(split_cols, FIELD_POW2, 4, 256),
    FIELD(fast_blocks, FIELD_INT, CU_FWD_BLOCKS, CU_MORE_BLOCKS),
    FIELD(fast_blocks_taps, FIELD_INT, 0, CU_MORE_TAPS),
    FIELD(fast_blocks_lift, FIELD_INT, 0, 1),
    FIELD(fast_prefetch, FIELD_DOUBLE, 0, 8),
    FIELD(small_grid, FIELD_DOUBLE, 0, 64),
    FIELD(pdl_grid, FIELD_DOUBLE, 0, 1e9),
    FIELD(smem_cap, FIELD_BYTES, 16 << 10, 1 << 20),
    FIELD(tail_bytes, FIELD_BYTES, 0, 1 << 30),
    FIELD(uty, FIELD_POW2, 1, 512),
    FIELD(uty_starlet, FIELD_POW2, 1, 512),
    FIELD(utxc, FIELD_INT, 32, 1024),
    FIELD(usmem, FIELD_BYTES, 4 << 10, 48 << 10), /* launched without the opt-in */
    FIELD(vol_ty, FIELD_POW2, 1, 64),
    FIELD(vol_tx, FIELD_POW2, 16, 128),
    FIELD(vol_ty_inv, FIELD_POW2, 1, 64),
    FIELD(vol_tx_inv, FIELD_POW2, 16, 256),
    FIELD(vol_smem, FIELD_BYTES, 16 << 10, 1 << 20),
    FIELD(vol_waves, FIELD_DOUBLE, 0.1, 64),
    FIELD(vol_stages, FIELD_INT, 2, 3),
    FIELD(vol_fwd_span, FIELD_INT, 0, 64),
    FIELD(vol_zring, FIELD_INT, 0, 1),
    FIELD(vol_pair, FIELD_INT, 0, 1),
    FIELD(vol_sweep, FIELD_INT, 0, 1),
    FIELD(vol_sweep_inverse, FIELD_INT, 0, 1),
    FIELD(vol_sweep_stages, FIELD_INT, 2, 4),
    FIELD(vol_sweep_barriers, FIELD_INT, 1, 2),
    FIELD(vol_sweep_ring, FIELD_INT, 0, 1),
    FIELD(vol_sweep_rows, FIELD_INT, 0, 1),
    FIELD(vol_sweep_plain, FIELD_INT, 0, 1),
    FIELD(vol_sweep_blocks, FIELD_INT, 2, 3),
    FIELD(vol_lift_tile, FIELD_INT, 0, 1),
};
#undef FIELD

static const policy_field *field_named(const char *key, size_t len)
{
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (strlen(fields[i].key) == len && !strncmp(fields[i].key, key, len))
            return &fields[i];
    return NULL;
}

static const policy_entry *entry_named(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (strlen(entries[i].name) == len && !strncmp(entries[i].name, name, len))
            return &entries[i];
    return NULL;
}

static wt_status bad_value(const char *what, const policy_field *f, const char *v, size_t len)
{
    return wt_error_set(WT_ERR_INVALID, "%s: %s=%.*s is not %s in [%.10g, %.10g]", what, f->key,
                        (int)len, v,
                        f->kind == FIELD_POW2 ? "a power of two" : "a number", f->lo, f->hi);
}

/* Field @p f of @p q set from the text @p v (@p len characters, a decimal
 * number; byte counts may end in K or M). */
static wt_status set_field(const char *what, cu_policy *q, const policy_field *f, const char *v,
                           size_t len)
{
    char text[32], *end;
    if (len == 0 || len >= sizeof text || !(isdigit((unsigned char)*v) || *v == '.'))
        return bad_value(what, f, v, len);
    memcpy(text, v, len);
    text[len] = 0;
    if (strspn(text, "0123456789.eE+-KkMm") != len) /* no hexadecimal, inf, nan */
        return bad_value(what, f, v, len);
    double x = strtod(text, &end);
    if (f->kind == FIELD_BYTES && (*end == 'K' || *end == 'k'))
        x *= 1024, end++;
    else if (f->kind == FIELD_BYTES && (*end == 'M' || *end == 'm'))
        x *= 1024 * 1024, end++;
    if (*end || !(x >= f->lo && x <= f->hi) || (f->kind != FIELD_DOUBLE && x != (double)(long)x))
        return bad_value(what, f, v, len);
    char *at = (char *)q + f->offset;
    long n = (long)x;
    if (f->kind == FIELD_POW2 && (n & (n - 1)))
        return bad_value(what, f, v, len);
    if (f->kind == FIELD_DOUBLE)
        *(double *)at = x;
    else if (f->kind == FIELD_BYTES)
        *(size_t *)at = (size_t)n;
    else
        *(int *)at = (int)n;
    return WT_OK;
}

/* Every "key=value" of @p text (comma-separated) applied to @p q; "entry"
 * is skipped (pick_entry took it). */
static wt_status apply_fields(const char *what, cu_policy *q, const char *text)
{
    for (const char *s = text; s && *s;) {
        const char *comma = strchr(s, ','), *stop = comma ? comma : s + strlen(s);
        const char *eq = (const char *)memchr(s, '=', (size_t)(stop - s));
        if (!eq)
            return wt_error_set(WT_ERR_INVALID, "%s: '%.*s' is not key=value", what,
                                (int)(stop - s), s);
        if (!((size_t)(eq - s) == 5 && !strncmp(s, "entry", 5))) {
            const policy_field *f = field_named(s, (size_t)(eq - s));
            if (!f) {
                char keys[512];
                size_t n = 0;
                for (size_t i = 0; i < sizeof fields / sizeof fields[0] && n < sizeof keys; i++)
                    n += (size_t)snprintf(keys + n, sizeof keys - n, ", %s", fields[i].key);
                return wt_error_set(WT_ERR_INVALID, "%s: unknown key '%.*s' (keys: entry%s)",
                                    what, (int)(eq - s), s, keys);
            }
            wt_status st = set_field(what, q, f, eq + 1, (size_t)(stop - eq - 1));
            if (st != WT_OK)
                return st;
        }
        s = comma ? comma + 1 : NULL;
    }
    return WT_OK;
}

/* The entry named by "entry=NAME" in @p override, else the first that
 * matches the GPU. */
static wt_status pick_entry(int major, int minor, double mem_gbps, const char *override,
                            const policy_entry **out)
{
    const char *at = override ? strstr(override, "entry=") : NULL;
    if (at && (at == override || at[-1] == ',')) {
        const char *name = at + 6;
        size_t len = strcspn(name, ",");
        if ((*out = entry_named(name, len)))
            return WT_OK;
        char names[128];
        size_t n = 0;
        for (size_t i = 0; i < sizeof entries / sizeof entries[0] && n < sizeof names; i++)
            n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "",
                                  entries[i].name);
        return wt_error_set(WT_ERR_INVALID, "WT_CUDA_POLICY: no entry '%.*s' (entries: %s)",
                            (int)len, name, names);
    }
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        const policy_entry *e = &entries[i];
        if ((e->major < 0 || e->major == major) && (e->minor < 0 || e->minor == minor) &&
            mem_gbps >= e->min_gbps) {
            *out = e;
            return WT_OK;
        }
    }
    *out = &entries[sizeof entries / sizeof entries[0] - 1];
    return WT_OK;
}

wt_status cu_policy_pick(int major, int minor, double mem_gbps, const char *override,
                         cu_policy *out)
{
    const policy_entry *e;
    wt_status st = pick_entry(major, minor, mem_gbps, override, &e);
    if (st != WT_OK)
        return st;
    policy_defaults(out);
    snprintf(out->entry, sizeof out->entry, "%s", e->name);
    st = apply_fields("CUDA policy table", out, e->fields);
    return st == WT_OK ? apply_fields("WT_CUDA_POLICY", out, override) : st;
}

void cu_policy_describe(const cu_policy *q, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "%s:", q->entry);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0] && n < size; i++) {
        const policy_field *f = &fields[i];
        const char *at = (const char *)q + f->offset;
        const char *sep = i ? "," : " ";
        if (f->kind == FIELD_DOUBLE)
            n += (size_t)snprintf(buf + n, size - n, "%s%s=%g", sep, f->key, *(const double *)at);
        else if (f->kind == FIELD_BYTES)
            n += (size_t)snprintf(buf + n, size - n, "%s%s=%zu", sep, f->key, *(const size_t *)at);
        else
            n += (size_t)snprintf(buf + n, size - n, "%s%s=%d", sep, f->key, *(const int *)at);
    }
}

/* Peak bandwidth of the device's memory, GB/s (double data rate: two
 * transfers a clock); 0 when the driver does not say. H100 SXM 2619 MHz x
 * 5120 bits: 3352; H200 3201 MHz x 6144 bits: 4917. */
static double memory_gbps(int device)
{
    int khz = 0, bits = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess)
        return 0;
    return 2.0 * khz * 1e3 * bits / 8 / 1e9;
}

wt_status cu_policy_open(int device, int major, int minor, const char *override, cu_policy *out)
{
    return cu_policy_pick(major, minor, memory_gbps(device), override, out);
}
