/* gpu_check: the CUDA engine's launch policy (cuda/cu_policy.h,
 * WT_CUDA_POLICY). Engines opened under policies far from every table entry
 * (tiles from 8 to 128 pairs, tiny and large grids, small shared memory
 * budgets, undecimated tiles from 8 to 512 rows, volume tiles from 1x16 to
 * 64x256 and z runs from 0.1 to 8 blocks a slot, levels fused up to 64 KB,
 * 16 MB and 1 GB: off by default; the short filters' kernels built for 5
 * blocks an SM, with the default tiles and with 64x64 ones shrunk to fit;
 * blocks prefetching the window of the block 1 or 8 x 4 x SMs ahead; long
 * filters (db20) as two single-axis passes, tiles of 2 to 256 rows) give
 * the CPU engine's results; a bad policy is refused at open with one
 * WT_CUDA_POLICY message.
 * (Harness and shared declarations: gpu_check.c, gpu_check.h.) */
#include "gpu_check.h"

static const char *const policies[] = {
    "tile_y=64,tile_x=64,tile_y_inv=64,tile_x_inv=64,long_ty=64,long_tx=128,long_tx_inv=64,"
    "small_grid=0,vol_ty=64,vol_tx=128,vol_ty_inv=64,vol_tx_inv=256,vol_smem=1024K,"
    "vol_fwd_span=64,tail_bytes=1024M",
    "tile_y=8,tile_x=16,tile_y_inv=16,tile_x_inv=8,long_ty=8,long_tx=8,long_tx_inv=16,"
    "pdl_grid=1e9,vol_ty=1,vol_tx=16,vol_ty_inv=2,vol_tx_inv=16,vol_waves=8,vol_stages=3,"
    "vol_fwd_span=64,tail_bytes=64K",
    "vol_smem=16K,vol_waves=0.1,vol_stages=3,vol_fwd_span=64,tail_bytes=16M",
    "vol_zring=1,vol_fwd_span=2",
    "vol_pair=0,vol_lift_tile=0",
    "vol_sweep=0", "vol_sweep_stages=2,vol_waves=8", "vol_sweep_inverse=0",
    "vol_sweep_barriers=2", "vol_sweep_barriers=2,vol_sweep_stages=3",
    "vol_sweep_ring=0,vol_sweep_rows=0,vol_sweep_plain=0", "vol_sweep_ring=0,vol_sweep_barriers=2",
    "vol_sweep_blocks=2", "vol_sweep_blocks=3",
    "vol_sweep_blocks=3,vol_sweep_ring=0,vol_sweep_barriers=2",
    "smem_cap=16K,small_grid=4,pdl_grid=0,uty=8,uty_starlet=16,utxc=48,usmem=8K",
    "entry=sm90-hbm3e,uty=256,uty_starlet=512,utxc=512,usmem=48K",
    "fast_blocks=5,fast_prefetch=0.02",
    "fast_blocks=5,tile_y=64,tile_x=64,tile_y_inv=64,tile_x_inv=64,small_grid=0",
    "fast_prefetch=8,fast_blocks=5,fast_blocks_taps=6,fast_blocks_lift=0",
    "fast_blocks=5,fast_blocks_taps=0,fast_blocks_lift=1",
    "long_split=28",
    "long_split=40,split_rows=2,split_tx=8,split_ty=8,split_cols=4,smem_cap=16K",
    "long_split=28,split_rows=256,split_tx=256,split_ty=128,split_cols=256",
};

static const char *const bad_policies[] = {
    "tile_x=48", "nosuch=1", "usmem=64K", "entry=h300", "tile_y", "small_grid=-1",
    "small_grid=nan", "tile_x=0x40", "vol_fwd_span=65", "tail_bytes=2048M", "vol_zring=2",
    "vol_pair=2", "vol_lift_tile=-1", "vol_sweep=2", "vol_sweep_stages=5",
    "vol_sweep_inverse=2", "vol_sweep_barriers=0", "vol_sweep_barriers=3", "vol_sweep_ring=2",
    "vol_sweep_rows=-1", "vol_sweep_plain=2", "vol_sweep_blocks=4",
    "fast_blocks=3",
    "fast_blocks=6", "fast_prefetch=9", "fast_prefetch=-0.5",
    "fast_blocks_taps=17", "fast_blocks_lift=2", "long_split=113", "long_split=-1",
    "split_rows=3", "split_cols=2", "split_ty=4", "split_tx=512",
};

/* A CUDA engine opened with WT_CUDA_POLICY=@p policy. */
static wt_status open_with_policy(const char *policy, wt_engine **e)
{
    wt_env_knobs *knobs = wt_env_override();
    const char *was = knobs->cuda_policy;
    knobs->cuda_policy = policy;
    wt_status s = wt_engine_open(e, "cuda");
    knobs->cuda_policy = was;
    return s;
}

/* DWT levels whose tiles the policies change: short and long filters,
 * lifting, the generic kernels (smooth, for the filters of at most 10 taps:
 * the longer ones' extrapolated borders exceed the CPU engine's own
 * rounding), one and three channels. */
static void policy_dwt_cases(const engines *en, int quick, stats *st)
{
    static const char *const wavelets[] = {"haar", "db3", "bior4.4", "sym8", "cdf97",
                                           "legall53", "db20"};
    enum { SMOOTH_UPTO = 3 }; /* the first 3 wavelets also in the smooth mode */
    static const wt_mode modes[] = {WT_MODE_SYMMETRIC, WT_MODE_PERIODIZATION, WT_MODE_SMOOTH};
    static const struct {
        size_t h, w;
        int channels, levels;
    } shapes[] = {{300, 520, 1, 3}, {67, 1030, 3, 2}};
    for (size_t wi = 0; wi < sizeof wavelets / sizeof *wavelets; wi++)
        for (size_t m = 0; m < sizeof modes / sizeof *modes; m++)
            for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
                for (int inv = 0; inv < 2; inv++) {
                    if ((quick && (wi + m + s) % 2) ||
                        (modes[m] == WT_MODE_SMOOTH && wi >= SMOOTH_UPTO))
                        continue;
                    check_case c = {wt_wavelet_find(wavelets[wi]), modes[m], WT_METHOD_AUTO,
                                    shapes[s].h, shapes[s].w, shapes[s].channels,
                                    shapes[s].levels, inv, 0, 0};
                    st->failed += run_case(en, &c, st);
                }
}

/* Undecimated levels: both kernels of the SWT (column-first for 2-8 taps,
 * the row kernel for the rest), the starlet. */
static void policy_undecimated_cases(const engines *en, stats *st)
{
    static const ucase cases[] = {
        {"swt", "db3", 130, 200, 2, 3, 0, 0, 0, WT_BORDER_PERIODIC},
        {"swt", "haar", 64, 300, 1, 2, 0, 0, 0, WT_BORDER_PERIODIC},
        {"swt", "sym8", 100, 90, 1, 2, 0, 0, 0, WT_BORDER_PERIODIC},
        {"starlet", "haar", 150, 170, 1, 4, 0, 0, 0, WT_BORDER_MIRROR},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int inv = 0; inv < 2; inv++) {
            st->u_cases++;
            st->u_failed += run_ucase(en, &cases[i], inv, st);
        }
}

void check_policies(const engines *en, int quick, int volumes_only, stats *st)
{
    const long cases0 = st->cases + st->u_cases + st->v_cases,
               failed0 = st->failed + st->u_failed + st->v_failed;
    int refused = 0;
    for (size_t i = 0; i < sizeof policies / sizeof *policies; i++) {
        engines pe = {en->cpu, NULL};
        const long f0 = st->failed + st->u_failed + st->v_failed;
        if (open_with_policy(policies[i], &pe.gpu) != WT_OK) {
            printf("FAIL policy '%s': %s\n", policies[i], wt_error_message());
            st->failed++;
            continue;
        }
        if (!volumes_only) {
            policy_dwt_cases(&pe, quick, st);
            policy_undecimated_cases(&pe, st);
        }
        check_volume_policy_cases(&pe, st);
        wt_engine_close(pe.gpu);
        if (st->failed + st->u_failed + st->v_failed > f0)
            printf("FAIL policy '%s': %ld cases failed\n", policies[i],
                   st->failed + st->u_failed + st->v_failed - f0);
    }
    for (size_t i = 0; i < sizeof bad_policies / sizeof *bad_policies && !volumes_only; i++) {
        wt_engine *e = NULL;
        wt_status s = open_with_policy(bad_policies[i], &e);
        int ok = s == WT_ERR_INVALID && strstr(wt_error_message(), "WT_CUDA_POLICY") &&
                 !strchr(wt_error_message(), '\n');
        if (st->verbose || !ok)
            printf("%s bad policy '%s': status %d: %s\n", ok ? "ok" : "FAIL", bad_policies[i],
                   (int)s, s == WT_OK ? "(opened)" : wt_error_message());
        if (e)
            wt_engine_close(e);
        refused += ok;
        st->failed += !ok;
    }
    const long cases = st->cases + st->u_cases + st->v_cases - cases0,
               failed = st->failed + st->u_failed + st->v_failed - failed0;
    if (volumes_only)
        printf("gpu_check: launch policies (volumes): %zu policies, %ld cases, %ld failed\n",
               sizeof policies / sizeof *policies, cases, failed);
    else
        printf("gpu_check: launch policies: %zu policies, %ld cases, %ld failed; %d of %zu bad "
               "policies refused\n",
               sizeof policies / sizeof *policies, cases, failed, refused,
               sizeof bad_policies / sizeof *bad_policies);
}
