/* The environment knobs wavetool reads, all in one place (wavetool_hooks.h):
 * read once, by the first wt_env() call (the program makes it at start-up),
 * never again; nothing else in src/, cuda/ or cli/ calls getenv.
 *
 *   WT_DENOISE_COMPOSED=1   denoise composes its shrinkage from band operations
 *                           instead of the engine's fused op (same numbers)
 *   WT_DENOISE_HOST_ESTIMATE=1  denoise's noise estimate on the host, not on
 *                           an engine that makes it (same numbers)
 *   WT_CUDA_MEM_LIMIT=N[KMG] cap on the CUDA engine's device memory (tests)
 *   WT_CUDA_GENERIC=1       the CUDA engine's generic level kernels only
 *   WT_CUDA_FAST_SMEM=BYTES shared memory a fast kernel's block may take
 *   WT_CUDA_CACHE=0         no cache of planned levels
 *   WT_CUDA_GRAPHS=0        kept plans launch kernels, not CUDA graphs
 *   WT_CUDA_SMALL_GRID=F    blocks per multiprocessor small levels aim at
 *   WT_CUDA_PDL=0|2         programmatic dependent launches off / everywhere
 *   WT_CUDA_POLICY=k=v,...  the CUDA engine's launch policy: fields over the
 *                           GPU's entry, or entry=NAME (cuda/cu_policy.h)
 *   WT_CUDA_BENCH_CALLS=N   bench: N calls between the timing events of a run
 *   WT_CUDA_WIDE53=1        64-bit legall53 lifting steps on every level
 *   WT_CUDA_VOLUME=passes   volumes: the axis passes for every level, not
 *                           the streamed level kernels (comparisons)
 *   WT_AUTO_DEVICE=gpu      --device auto takes the GPU whenever one opens,
 *                           whatever the job's size (tests; default: weighed)
 *   WT_GPU_LANES=N          engines a folder's workers share on each GPU
 *                           (cli/pipeline.c; comparisons)
 *   WT_GPU_OPEN_FIRST=1     a file command opens its GPU before any file, not
 *                           while the first files decode (comparisons)
 *   WT_OPEN_DELAY_MS=N      a file command's engines, CPU ones too, open on a
 *                           thread of their own N ms late (tests: the files
 *                           decoded ahead meanwhile, on any machine)
 *   WT_PNG_WHOLE_MAX=BYTES  largest filtered PNG image compressed in one
 *                           call; larger ones stream through zlib
 *   WT_PNG_DEFLATE=fastz|libdeflate  what compresses PNG level 1 (default:
 *                           fastz for 8-bit samples, libdeflate for 16-bit)
 *   TMPDIR                  bench --pipeline's temporary folder (default /tmp)
 *   WT_CPU_SCALAR=1         the CPU engine's reference C kernels, not the
 *                           AVX2/AVX-512 ones the CPU would run (tests)
 *   WT_ROUNDTRIP_REREAD_BYTES=N  roundtrip compares against the input read
 *                           again by rows (not held) from N decoded bytes up
 *                           (cmd_roundtrip.c; tests: 0)
 *
 * (WT_EMU_NO_DEVICE belongs to cuda/emu/, the CPU emulator of the CUDA
 * runtime used to check kernels without a GPU, not to wavetool.) */
#include <pthread.h>
#include <stdlib.h>

#include "wavetool_hooks.h"

static wt_env_knobs knobs;
static pthread_once_t read_once = PTHREAD_ONCE_INIT;

static void read_knobs(void)
{
    knobs = (wt_env_knobs){
        .denoise_composed = getenv("WT_DENOISE_COMPOSED"),
        .denoise_host_estimate = getenv("WT_DENOISE_HOST_ESTIMATE"),
        .cuda_mem_limit = getenv("WT_CUDA_MEM_LIMIT"),
        .cuda_generic = getenv("WT_CUDA_GENERIC"),
        .cuda_fast_smem = getenv("WT_CUDA_FAST_SMEM"),
        .cuda_cache = getenv("WT_CUDA_CACHE"),
        .cuda_graphs = getenv("WT_CUDA_GRAPHS"),
        .cuda_small_grid = getenv("WT_CUDA_SMALL_GRID"),
        .cuda_pdl = getenv("WT_CUDA_PDL"),
        .cuda_policy = getenv("WT_CUDA_POLICY"),
        .cuda_bench_calls = getenv("WT_CUDA_BENCH_CALLS"),
        .cuda_wide53 = getenv("WT_CUDA_WIDE53"),
        .cuda_volume = getenv("WT_CUDA_VOLUME"),
        .auto_device = getenv("WT_AUTO_DEVICE"),
        .gpu_lanes = getenv("WT_GPU_LANES"),
        .gpu_open_first = getenv("WT_GPU_OPEN_FIRST"),
        .open_delay_ms = getenv("WT_OPEN_DELAY_MS"),
        .pixel_rooms = getenv("WT_PIXEL_ROOMS"),
        .png_whole_max = getenv("WT_PNG_WHOLE_MAX"),
        .png_deflate = getenv("WT_PNG_DEFLATE"),
        .tmpdir = getenv("TMPDIR"),
        .cpu_scalar = getenv("WT_CPU_SCALAR"),
        .roundtrip_reread_bytes = getenv("WT_ROUNDTRIP_REREAD_BYTES"),
        .rooms_behind = getenv("WT_ROOMS_BEHIND"),
    };
}

int wt_cpu_reference(void)
{
    const char *scalar = wt_env()->cpu_scalar;
    return scalar && scalar[0] == '1';
}

size_t wt_env_count(const char *v, size_t fallback)
{
    char *end;
    unsigned long long n = v && *v ? strtoull(v, &end, 10) : 0;
    return v && *v && !*end ? (size_t)n : fallback;
}

const wt_env_knobs *wt_env(void)
{
    return wt_env_override();
}

wt_env_knobs *wt_env_override(void)
{
    pthread_once(&read_once, read_knobs);
    return &knobs;
}
