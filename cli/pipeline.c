/* What the file commands share: the engine pool (GPU fallback included),
 * timed decoding and encoding, the transform for an image, running the files. */
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>


int pipeline_workers(int jobs, size_t files)
{
    size_t n = jobs > 0 ? (size_t)jobs : (size_t)wt_cpu_count();
    n = n < files ? n : files;
    return n < 1 ? 1 : (int)n;
}

void pipeline_engine_section(const pipeline *p, const pipeline_stats *s, char *buf,
                             size_t size)
{
    double files = s->images ? (double)s->images : 1.0;
    snprintf(buf, size,
             "held %.3f s (%.3f ms a file: upload %.3f, transform %.3f, download %.3f; %d "
             "engine%s; longest %.3f ms), waited %.3f s (%.3f ms a file); pixel rooms %s",
             s->held, 1e3 * s->held / files, 1e3 * s->upload / files,
             1e3 * s->transform / files, 1e3 * s->download / files, p->nengines,
             p->nengines == 1 ? "" : "s", 1e3 * s->longest, s->waited, 1e3 * s->waited / files,
             p->rooms_on ? "on" : "off");
}

/* -v after a folder on a GPU pool: its engine section, on stderr. */
static void say_engine_section(pipeline *p)
{
    char text[256];
    if (!p->engines)
        return;
    pipeline_wait_open(p); /* (is_gpu is the opener's until then) */
    if (!p->is_gpu || !p->stats.images)
        return;
    pipeline_engine_section(p, &p->stats, text, sizeof text);
    fprintf(stderr, "wavetool: engine section: %s\n", text);
}

/* -v after a folder whose pool opened in the background: how long it took to
 * open, the files decoded meanwhile, and @p closing seconds to close it. */
static void say_opening(const pipeline *p, double closing)
{
    if (p->opened_behind)
        fprintf(stderr, "wavetool: %s opened in %.3f s while the first files decoded; %d file%s "
                        "decoded ahead meanwhile; closed in %.3f s\n",
                p->is_gpu ? "GPU" : "engines", p->opened_in, p->ahead_done,
                p->ahead_done == 1 ? "" : "s", closing);
    if (p->rooms_on && p->room_hint)
        fprintf(stderr, "wavetool: pixel rooms: %d x 2 of %.1f MB made in %.3f s %s, all "
                        "ready %.3f s after the opening began\n",
                p->workers, (double)p->room_hint / 1e6, p->rooms_took,
                p->rooms_behind ? "after the opening" : "within the opening",
                p->rooms_ready_at);
}

/* -v after a folder: the workers' CPU a file by phase, and the process's
 * CPU besides them (the opening and closing of the pool, the main thread). */
static void say_cpu_phases(const pipeline *p)
{
    char text[512];
    const phase_totals *t = &p->stats.cpu;
    double files = (double)p->stats.images, phases = 0;
    for (int i = 0; i < PHASE_COUNT; i++)
        phases += t->user[i] + t->sys[i];
    double all = phase_process_seconds();
    phase_text(t, files, text, sizeof text);
    fprintf(stderr, "wavetool: CPU a file (user+sys): %s; the files %.3f s of the process's "
                    "%.3f s\n", text, phases, all);
}

/* batch_work of pipeline_run_files: the command's work on a file, its phases
 * timed (the batch's context: the command's header goes through it too). */
typedef struct timed_work {
    pipeline *p;
    batch_work work;
    void *ctx;
    void (*header)(void *ctx, FILE *report);
} timed_work;

static void header_of_timed(void *arg, FILE *report)
{
    timed_work *t = arg;
    t->header(t->ctx, report);
}

static void work_timed(void *arg, batch_item *item)
{
    timed_work *t = arg;
    pipeline_phase(t->p, PHASE_BEFORE);
    t->work(t->ctx, item);
    pipeline_phase(t->p, PHASE_NONE);
}

static void ahead_start(pipeline *p, const batch *b, const batch_plan *plan);

int pipeline_run_files(pipeline *p, const cli_options *o, const batch_plan *plan,
                       batch_work work, void *ctx, FILE *report,
                       void (*header)(void *ctx, FILE *report))
{
    batch b = {0};
    int rc = batch_plan_files(&b, plan, o->args, o->nargs);
    const int workers = pipeline_workers(o->jobs, b.count);
    wt_auto_job job = {0, plan->passes > 0 ? plan->passes : 1,
                       o->params.wavelet ? o->params.wavelet->filter_len : 2, wt_cpu_count(),
                       o->volume, workers};
    const int weigh = strcmp(o->device, "auto") == 0 && strstr(wt_backends(), "cuda");
    /* the first file's samples: the rooms' hint, and auto's first term */
    uint64_t first = rc == CLI_CONTINUE && b.count ? wt_probe_samples(b.items[0].input) : 0;
    for (size_t i = 0; rc == CLI_CONTINUE && weigh && i < b.count; i++)
        job.samples += i == 0 ? first : wt_probe_samples(b.items[i].input);
    if (rc == CLI_CONTINUE)
        rc = pipeline_open(p, o, workers, strcmp(o->device, "auto") == 0 ? &job : NULL,
                           (size_t)first, b.count);
    if (rc == CLI_CONTINUE)
        ahead_start(p, &b, plan);
    if (rc == CLI_CONTINUE) {
        timed_work timed = {p, work, ctx, header};
        batch_run_options run = {workers, o->quiet, o->verbose, o->no_clobber, report,
                                 header ? header_of_timed : NULL, pipeline_stopped, p};
        rc = batch_run(&b, &run, work_timed, &timed);
    }
    if (o->verbose && b.count > 1)
        say_engine_section(p);
    if (o->verbose && b.count > 1 && p->engines)
        say_cpu_phases(p);
    double closing = wt_seconds();
    pipeline_close(p);
    if (o->verbose && b.count > 1)
        say_opening(p, wt_seconds() - closing);
    batch_free(&b);
    return rc;
}

const char *pipeline_shown(const char *file)
{
    return strcmp(file, "-") == 0 ? "(stdin)" : file;
}

wt_status pipeline_name_error(wt_status st, const char *file)
{
    return wt_error_prefix(st, pipeline_shown(file));
}

/* ---- engines --------------------------------------------------------------
 * An engine object is used by one call at a time (the CPU engine keeps a work
 * area). The pool has one CPU engine per worker, sharing the cores; or one
 * engine per GPU, which workers take in turn while they decode and encode. */

/* The engines closed, the pool's arrays kept. */
static void close_engines(pipeline *p)
{
    for (int i = 0; i < p->nengines; i++)
        wt_engine_close(p->engines[i]);
    p->nengines = 0;
}

static void pool_close(pipeline *p)
{
    close_engines(p);
    free(p->engines);
    free(p->busy);
    p->engines = NULL;
    p->busy = NULL;
}

static wt_status pool_add(pipeline *p, const char *device)
{
    wt_engine *e = NULL;
    wt_status st = wt_engine_open(&e, device);
    if (st == WT_OK)
        p->engines[p->nengines++] = e;
    return st;
}

/* The GPU when one opens, else the CPU engine (-v says why). */
static wt_status open_gpu_or_cpu(pipeline *p)
{
    if (wt_gpu_count() > 0) {
        if (pool_add(p, "cuda") == WT_OK)
            return WT_OK;
        if (p->opt->verbose)
            fprintf(stderr, "wavetool: GPU not used: %s; using the CPU engine\n",
                    wt_error_message());
        return pool_add(p, "cpu");
    }
    /* no device at all: "auto" says why (no driver, old driver, no GPU, no CUDA) */
    wt_status st = pool_add(p, "auto");
    if (st == WT_OK && p->opt->verbose && wt_warning_message()[0])
        fprintf(stderr, "wavetool: %s; using the CPU engine\n", wt_warning_message());
    return st;
}

/* --device auto: is the CPU engine predicted to finish the job first (@p job;
 * NULL: not known)? -v says which and why (no code for the GPU in this
 * build, say). */
static int auto_takes_cpu(const pipeline *p, const wt_auto_job *job)
{
    char why[200];
    const char *force = wt_env()->auto_device; /* "gpu": whenever one opens */
    if ((force && strcmp(force, "gpu") == 0) || !strstr(wt_backends(), "cuda"))
        return 0; /* (without CUDA, "auto" itself says why) */
    if (!job || job->samples == 0)
        return 0;
    int cpu = !wt_auto_prefers_gpu(job, why, sizeof why);
    if (p->opt->verbose)
        fprintf(stderr, cpu ? "wavetool: CPU engine chosen, GPU not opened: %s\n"
                            : "wavetool: GPU chosen: %s\n",
                why);
    return cpu;
}

/* Engines 1.. of a CPU pool. */
static wt_status open_more_cpu_engines(pipeline *p, int workers, int threads)
{
    wt_status st = WT_OK;
    while (st == WT_OK && p->nengines < workers)
        st = pool_add(p, "cpu");
    for (int i = 0; i < p->nengines; i++)
        wt_engine_set_threads(p->engines[i], threads);
    return st;
}

/* cuda:all (every device that opens; -v names those that do not) or
 * cuda:N,M,... (each must open). */
static wt_status open_gpu_list(pipeline *p, const char *list)
{
    int all = strcmp(list, "all") == 0;
    int count = all ? wt_gpu_count() : 1;
    for (const char *c = list; !all && *c; c++)
        count += *c == ',';
    if (count < 1)
        return wt_error_set(WT_ERR_DEVICE, "cuda:all: no usable CUDA device");
    free(p->engines);
    free(p->busy);
    p->engines = calloc((size_t)count, sizeof *p->engines);
    p->busy = calloc((size_t)count, 1);
    if (!p->engines || !p->busy)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    wt_status st = WT_OK;
    const char *item = list;
    for (int i = 0; i < count && (st == WT_OK || all); i++) {
        char device[32];
        int len = all ? snprintf(device, sizeof device, "cuda:%d", i)
                      : snprintf(device, sizeof device, "cuda:%.*s", (int)strcspn(item, ","),
                                 item);
        item += strcspn(item, ",") + (item[strcspn(item, ",")] == ',');
        st = len < (int)sizeof device ? pool_add(p, device)
                                      : wt_error_set(WT_ERR_INVALID, "bad device list");
        if (st != WT_OK && all && p->opt->verbose)
            fprintf(stderr, "wavetool: %s not used: %s\n", device, wt_error_message());
    }
    if (all && p->nengines > 0)
        return WT_OK;
    return st != WT_OK ? st : (p->nengines ? WT_OK : WT_ERR_DEVICE);
}

/* ---- lanes -------------------------------------------------------------------
 * A file holds its engine from the upload of its samples to the download of
 * its result, host work between included (a denoise's noise estimate, the
 * conversions of YCbCr). With several workers each GPU opens as several
 * engines, its lanes (a stream and buffers each, in the one CUDA context), so
 * that one file's copies and host work overlap another's kernels. A lane that
 * runs out of device memory closes the other lanes and the pool goes on with
 * one (pipeline_engine_run). */

enum { GPU_LANES_DEFAULT = 1 };

static int gpu_lanes(const pipeline *p, int gpus)
{
    const char *env = wt_env()->gpu_lanes;
    int lanes = env ? atoi(env) : GPU_LANES_DEFAULT, most = p->workers / gpus;
    lanes = lanes < most ? lanes : most;
    return lanes < 1 ? 1 : lanes;
}

/* "cuda:N" of a GPU engine named "cuda:N (model)". */
static void device_of(const wt_engine *e, char *device, size_t size)
{
    const char *name = wt_engine_name(e);
    snprintf(device, size, "%.*s", (int)strcspn(name, " "), name);
}

/* Lanes 1.. of each GPU of the pool (engines gpus.. in lane order, so that
 * free engines spread files over the GPUs first). A lane that does not open
 * leaves the pool with the lanes before it (-v says why). */
static void add_gpu_lanes(pipeline *p)
{
    int gpus = p->nengines, lanes = gpu_lanes(p, gpus);
    p->lanes = 1;
    if (lanes < 2)
        return;
    wt_engine **engines = realloc(p->engines, (size_t)(gpus * lanes) * sizeof *engines);
    if (engines)
        p->engines = engines;
    char *busy = engines ? realloc(p->busy, (size_t)(gpus * lanes)) : NULL;
    if (!busy)
        return;
    p->busy = busy;
    memset(busy, 0, (size_t)(gpus * lanes));
    for (int l = 1; l < lanes; l++) {
        for (int i = 0; i < gpus; i++) {
            char device[32];
            device_of(p->engines[i], device, sizeof device);
            if (pool_add(p, device) != WT_OK) {
                if (p->opt->verbose)
                    fprintf(stderr, "wavetool: %d lane%s per GPU: %s\n", l, l > 1 ? "s" : "",
                            wt_error_message());
                while (p->nengines > l * gpus)
                    wt_engine_close(p->engines[--p->nengines]);
                return;
            }
        }
        p->lanes = l + 1;
    }
}

static void say_engines(const pipeline *p, int workers, int threads)
{
    if (!p->opt->verbose)
        return;
    if (p->nengines > 1 && !p->is_gpu) {
        fprintf(stderr, "wavetool: engine: cpu (%d thread%s per file, %d files at a time)\n",
                threads, threads > 1 ? "s" : "", workers);
        return;
    }
    int gpus = p->is_gpu ? p->nengines / p->lanes : p->nengines;
    for (int i = 0; i < gpus; i++)
        fprintf(stderr, "wavetool: engine: %s\n", wt_engine_name(p->engines[i]));
    if (gpus > 1)
        fprintf(stderr, "wavetool: %d GPUs, %d files at a time\n", gpus, workers);
    if (p->is_gpu && p->lanes > 1)
        fprintf(stderr, "wavetool: %d lanes per GPU\n", p->lanes);
}

/* ---- the GPU JPEG codec ------------------------------------------------------
 * --gpu-decode, --gpu-encode: nvJPEG on the pool's first GPU, started once
 * the pool is open (decoding waits for the opening, pipeline_decode). Without a GPU
 * engine or nvJPEG, libjpeg-turbo does the JPEGs, and -v says why. */

static void start_gpu_codec(pipeline *p)
{
    const cli_options *o = p->opt;
    unsigned what = (o->gpu_decode ? WT_GPU_JPEG_DECODE : 0) |
                    (o->gpu_encode ? WT_GPU_JPEG_ENCODE : 0);
    char backend[32];
    if (!what)
        return;
    if (!p->is_gpu || wt_gpu_jpeg_start(p->engines[0], what, backend, sizeof backend) != WT_OK) {
        if (o->verbose)
            fprintf(stderr, "wavetool: JPEG by libjpeg-turbo: %s\n",
                    p->is_gpu ? wt_error_message() : "the CPU engine runs");
        return;
    }
    p->gpu_codec = 1;
    snprintf(p->gpu_codec_text, sizeof p->gpu_codec_text, "nvJPEG %s%s%s",
             o->gpu_decode ? "decode (" : "", o->gpu_decode ? backend : "",
             o->gpu_decode && o->gpu_encode ? ") and encode" : o->gpu_decode ? ")" : "encode");
    if (o->verbose)
        fprintf(stderr, "wavetool: JPEG on the GPU: %s\n", p->gpu_codec_text);
}

/* ---- decoding ahead ------------------------------------------------------------
 * While a GPU opens in the background (about 0.35 s), a worker that has
 * decoded its file and waits for the pool decodes the next files meanwhile,
 * in input order and each once, into memory of their own, by the calls the
 * file's own worker makes (wt_stack_open, an input of one page, wt_stack_read
 * with p->load). That worker takes the image at its decode (ahead_take; it
 * waits for one still being decoded), its outcome replayed in its thread (the
 * error, or the warning), and with pixel rooms the pixels are copied into its
 * input room there, outside the engine section. At most AHEAD_PER_WORKER
 * files a worker and a quarter of --max-memory in pixels wait (plus those
 * being decoded). Not for --gpu-decode (nvJPEG starts with the pool), volumes
 * or inputs that are not images; a stdin, a FIFO, a stack of pages and an
 * output -n skips are left to their worker. What nobody takes (a batch that
 * stopped) is freed with the pipeline. */

enum { AHEAD_PER_WORKER = 16 };

typedef enum ahead_state { AHEAD_FREE = 0, AHEAD_DECODING, AHEAD_READY, AHEAD_GONE } ahead_state;

struct pipeline_ahead {
    ahead_state state;
    wt_status status;
    wt_image img;
    uint64_t bytes;
    char *message; /* the error (status not WT_OK) or the warning; NULL: none */
};

/* Decoding ahead for the files of @p b: a GPU opens in the background and the
 * files are images. */
static void ahead_start(pipeline *p, const batch *b, const batch_plan *plan)
{
    const cli_options *o = p->opt;
    if (!p->has_opener || o->gpu_decode || o->volume || plan->walk_holds != WT_HOLDS_IMAGE ||
        b->count <= (size_t)p->workers)
        return;
    p->ahead = calloc(b->count, sizeof *p->ahead);
    p->files = b;
    p->ahead_most = AHEAD_PER_WORKER * p->workers;
    p->ahead_budget = o->load.max_memory ? o->load.max_memory / 4 : UINT64_MAX;
}

static void ahead_free(pipeline *p)
{
    for (size_t i = 0; p->ahead && i < p->files->count; i++) {
        wt_image_free(&p->ahead[i].img);
        free(p->ahead[i].message);
    }
    free(p->ahead);
    p->ahead = NULL;
}

/* The next file to decode ahead, claimed (locked): its index, or -1 when none
 * is left or the bounds are reached. */
static long ahead_claim(pipeline *p)
{
    if (!p->ahead || p->ahead_held >= p->ahead_most || p->ahead_bytes >= p->ahead_budget)
        return -1;
    while (p->ahead_next < p->files->count) {
        size_t i = p->ahead_next++;
        if (p->ahead[i].state == AHEAD_FREE) {
            p->ahead[i].state = AHEAD_DECODING;
            p->ahead_held++;
            return (long)i;
        }
    }
    return -1;
}

/* Whether @p it's input is left to its worker: not a regular file (stdin, a
 * FIFO is read once), or an output that -n skips. */
static int ahead_leaves(const pipeline *p, const batch_item *it)
{
    struct stat sb;
    if (strcmp(it->input, "-") == 0 || stat(it->input, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 1;
    return p->opt->no_clobber && it->output && stat(it->output, &sb) == 0;
}

/* File @p i decoded as its worker would (unlocked), into a->img. Returns 0
 * when the file is left to its worker. */
static int ahead_decode_file(pipeline *p, size_t i, pipeline_ahead *a)
{
    const batch_item *it = &p->files->items[i];
    wt_stack *stack = NULL;
    if (ahead_leaves(p, it) || wt_stack_open(it->input, &p->load, &stack) != WT_OK)
        return 0;
    int one_page = wt_stack_pages(stack) == 1;
    if (one_page) {
        a->status = wt_stack_read(stack, 0, &a->img);
        const char *said = a->status != WT_OK ? wt_error_message() : wt_warning_message();
        a->message = said[0] ? strdup(said) : NULL;
        if (a->status != WT_OK)
            wt_image_free(&a->img);
        a->bytes = a->status == WT_OK ? wt_image_bytes(&a->img) : 0;
    }
    wt_stack_close(stack);
    return one_page;
}

/* ahead_decode_file, the calling thread's messages (its own file's) kept. */
static int ahead_decode_keeping_messages(pipeline *p, size_t i, pipeline_ahead *a)
{
    char error[1024], warning[1024];
    snprintf(error, sizeof error, "%s", wt_error_message());
    snprintf(warning, sizeof warning, "%s", wt_warning_message());
    int kept = ahead_decode_file(p, i, a);
    wt_error_set(WT_OK, "%s", error);
    wt_warning_clear();
    if (warning[0])
        wt_warning_set("%s", warning);
    return kept;
}

/* Decode claimed file @p i ahead (called locked; unlocks while decoding). */
static void ahead_decode(pipeline *p, size_t i)
{
    pipeline_ahead *a = &p->ahead[i];
    pthread_mutex_unlock(&p->lock);
    file_phase was = pipeline_phase(p, PHASE_DECODE);
    double t0 = wt_seconds();
    int kept = ahead_decode_keeping_messages(p, i, a);
    double dt = wt_seconds() - t0;
    pipeline_phase(p, was);
    pthread_mutex_lock(&p->lock);
    a->state = kept ? AHEAD_READY : AHEAD_GONE;
    p->ahead_held -= !kept;
    p->ahead_done += kept;
    p->ahead_bytes += a->bytes;
    p->stats.decode += dt;
    pthread_cond_broadcast(&p->freed);
}

/* Wait (locked) while the pool opens, decoding files ahead meanwhile. */
static void wait_opening(pipeline *p)
{
    while (p->opening) {
        long i = ahead_claim(p);
        if (i >= 0)
            ahead_decode(p, (size_t)i);
        else
            pthread_cond_wait(&p->freed, &p->lock);
    }
}

/* An owned image's pixels copied into @p room when it can hold them. */
static void move_into_room(wt_image *img, wt_pixel_room *room)
{
    size_t bytes = wt_image_bytes(img);
    if (!room || img->room || !bytes || !room->reserve(room, bytes))
        return;
    memcpy(room->data, img->pixels, bytes);
    free(img->pixels);
    img->pixels = room->data;
    img->room = room;
}

/* The image decoded ahead for @p item's input (page 0 of @p stack, an input
 * of one page), once it is decoded: 1 with *@p st its outcome (the message or
 * warning this thread's), its pixels moved into @p room when not NULL; 0:
 * none, decode it here (the file is then left to this thread). */
static int ahead_take(pipeline *p, batch_item *item, const char *file, wt_stack *stack,
                      size_t page, wt_pixel_room *room, wt_image *img, wt_status *st)
{
    if (!p->ahead || !item || !stack || page != 0 || wt_stack_pages(stack) != 1 ||
        strcmp(file, item->input) != 0)
        return 0;
    pipeline_ahead *a = &p->ahead[item - p->files->items], got;
    pthread_mutex_lock(&p->lock);
    while (a->state == AHEAD_DECODING)
        pthread_cond_wait(&p->freed, &p->lock);
    got = *a;
    if (a->state == AHEAD_READY) {
        p->ahead_held--;
        p->ahead_bytes -= a->bytes;
    }
    *a = (pipeline_ahead){.state = AHEAD_GONE};
    pthread_mutex_unlock(&p->lock);
    if (got.state != AHEAD_READY)
        return 0;
    *st = got.status;
    *img = got.img;
    wt_warning_clear();
    if (got.status != WT_OK)
        wt_error_set(got.status, "%s", got.message ? got.message : "");
    else if (got.message)
        wt_warning_set("%s", got.message);
    if (got.status == WT_OK)
        move_into_room(img, room);
    free(got.message);
    return 1;
}

/* Wait until the pool is open (nothing to wait for unless a GPU opens in
 * the background), decoding files ahead meanwhile. */
static void wait_for_pool(pipeline *p)
{
    pthread_mutex_lock(&p->lock);
    wait_opening(p);
    pthread_mutex_unlock(&p->lock);
}

/* ---- pixel rooms ---------------------------------------------------------------
 * A GPU engine copies page-locked memory directly (one DMA each way) but
 * pageable memory through its staging slots, a host copy of every byte made
 * while the file holds the engine. So in a GPU pool each worker keeps two
 * page-locked buffers (wt_engine_host_alloc, grown when a file needs more,
 * freed at the end): JPEG decodes into the first, the engine draws the mosaic
 * into the second, and the images only borrow them (wt_image.room). Images
 * larger than ROOM_MOST keep malloc'd pixels. Not for folders of no more
 * files than workers: page-locking a room costs more than the staged copies
 * of the one file it would serve (decompose -O of 10 4096^2 JPEGs, H200:
 * 883 ms before rooms, 1,453 with 1 GB of them). WT_PIXEL_ROOMS=0: never (the
 * staged copies, for comparisons); 1: CPU pools too (malloc'd rooms, which
 * test the borrowing path). */

enum { ROOM_GRAIN = 1 << 20 };
#define ROOM_MOST ((size_t)64 << 20)

static int rooms_wanted(const pipeline *p)
{
    const char *env = wt_env()->pixel_rooms;
    if (env && *env)
        return strcmp(env, "0") != 0;
    return p->is_gpu && !p->rooms_once;
}

/* wt_pixel_room.reserve of a worker's room: its old memory freed, then
 * @p bytes (rounded up) from the pool's engine; above ROOM_MOST, 0: the
 * image keeps pageable pixels. */
static int room_reserve(wt_pixel_room *room, size_t bytes)
{
    const pipeline *p = room->owner;
    if (bytes <= room->size)
        return 1;
    if (bytes > ROOM_MOST)
        return 0;
    wt_engine_host_free(p->engines[0], room->data);
    room->size = (bytes + ROOM_GRAIN - 1) / ROOM_GRAIN * ROOM_GRAIN;
    room->data = wt_engine_host_alloc(p->engines[0], room->size);
    if (!room->data)
        room->size = 0;
    return room->data != NULL;
}

static wt_status rooms_init(pipeline *p, int workers)
{
    p->rooms = calloc((size_t)workers, sizeof *p->rooms);
    if (!p->rooms)
        return WT_ERR_NOMEM;
    for (int i = 0; i < workers; i++) {
        p->rooms[i].input = (wt_pixel_room){NULL, 0, room_reserve, p};
        p->rooms[i].output = p->rooms[i].input;
    }
    return WT_OK;
}

/* Every worker's rooms made p->room_hint bytes by the pool's opener, each
 * worker's pair then ready for it (a file that needs more grows them): as
 * the pool opens (in the background: page-locking memory takes time the
 * first files would wait for while the next ones decode), or with
 * WT_ROOMS_BEHIND=1 after the pool is open, while the first files run
 * without rooms (staged copies), so that the page-locking (about 0.2 s of
 * the opening for 16 workers' 2 x 6.2 MB on the H200 host) is not on the
 * opening's path. @p t0: when the opening began. */
static void reserve_rooms(pipeline *p, double t0)
{
    double start = wt_seconds();
    for (int i = 0; i < p->workers; i++) {
        if (p->rooms_on && p->room_hint) {
            room_reserve(&p->rooms[i].input, p->room_hint);
            room_reserve(&p->rooms[i].output, p->room_hint);
        }
        pthread_mutex_lock(&p->lock);
        p->rooms[i].ready = 1;
        pthread_mutex_unlock(&p->lock);
    }
    p->rooms_took = wt_seconds() - start;
    p->rooms_ready_at = wt_seconds() - t0;
}

/* The rooms' memory freed (the pool still open: its engine frees it). */
static void rooms_free(pipeline *p)
{
    for (int i = 0; p->rooms && p->nengines > 0 && i < p->workers; i++) {
        wt_engine_host_free(p->engines[0], p->rooms[i].input.data);
        wt_engine_host_free(p->engines[0], p->rooms[i].output.data);
    }
    free(p->rooms);
    p->rooms = NULL;
}

/* The calling worker's rooms, or NULL: none in this pool, the pool not open
 * yet (the first files decode while a GPU opens), or not a worker's call. */
static pipeline_rooms *worker_rooms(pipeline *p)
{
    int i = batch_worker_index();
    pthread_mutex_lock(&p->lock);
    int on = !p->opening && p->rooms_on && i >= 0 && i < p->workers && p->rooms[i].ready;
    pthread_mutex_unlock(&p->lock);
    return on ? &p->rooms[i] : NULL;
}

wt_pixel_room *pipeline_output_room(pipeline *p)
{
    pipeline_rooms *r = worker_rooms(p);
    return r ? &r->output : NULL;
}

void pipeline_input_to_room(pipeline *p, wt_image *img)
{
    pipeline_rooms *r = worker_rooms(p);
    if (r)
        move_into_room(img, &r->input);
}

/* ---- the GPU opened in the background --------------------------------------
 * When a GPU is to be tried (--device auto that chose it, or a named cuda
 * device), it opens (about 0.35 s) on a thread of its own while the workers
 * decode their first inputs; they wait for it at their first transform
 * (engine_acquire). Should auto's GPU not open, the pool becomes CPU engines,
 * as an open before the files would have. Should the pool not open at all (a
 * named GPU that does not), the opener says why in one line and the files
 * stop (pipeline_stopped): those waiting fail without a word, none is run. */

/* The pool's first engines: auto's choice, a list of GPUs, or the one named. */
static wt_status open_first_engines(pipeline *p)
{
    const char *device = p->device;
    const char *list = strncmp(device, "cuda:", 5) == 0 ? device + 5 : "";
    if (strcmp(device, "auto") == 0)
        return p->cpu_chosen ? pool_add(p, "cpu") : open_gpu_or_cpu(p);
    if (strcmp(list, "all") == 0 || strchr(list, ','))
        return open_gpu_list(p, list);
    return pool_add(p, device);
}

/* Open the engines (on the opener thread, or at once); publishes them by
 * clearing p->opening. A pool opened in part is closed: no pool. */
static void *open_pool(void *arg)
{
    pipeline *p = arg;
    double t0 = wt_seconds();
    size_t delay_ms = wt_env_count(wt_env()->open_delay_ms, 0);
    if (delay_ms && p->opened_behind)
        nanosleep(&(struct timespec){(time_t)(delay_ms / 1000), (long)(delay_ms % 1000) * 1000000},
                  NULL);
    /* the pool is the opener's alone while p->opening: no lock until done */
    wt_status st = open_first_engines(p);
    if (st == WT_OK && wt_engine_is_cpu(p->engines[0]))
        st = open_more_cpu_engines(p, p->workers, p->threads);
    if (st != WT_OK) {
        p->open_status = st;
        snprintf(p->open_error, sizeof p->open_error, "%s", wt_error_message());
        fprintf(stderr, "wavetool: %s\n", p->open_error);
        close_engines(p);
    } else {
        p->is_gpu = !wt_engine_is_cpu(p->engines[0]);
        if (p->is_gpu)
            add_gpu_lanes(p);
        say_engines(p, p->workers, p->threads);
        start_gpu_codec(p);
        p->rooms_on = rooms_wanted(p);
        p->rooms_behind = p->rooms_on && p->room_hint && p->opened_behind &&
                          wt_env_count(wt_env()->rooms_behind, 0) == 1;
        if (!p->rooms_behind)
            reserve_rooms(p, t0);
    }
    pthread_mutex_lock(&p->lock);
    p->opened_in = wt_seconds() - t0;
    p->opening = 0;
    pthread_cond_broadcast(&p->freed);
    pthread_mutex_unlock(&p->lock);
    if (p->rooms_behind) /* (the pool closes after joining this thread) */
        reserve_rooms(p, t0);
    return NULL;
}

void pipeline_wait_open(pipeline *p)
{
    if (!p->has_opener)
        return;
    pthread_join(p->opener, NULL);
    p->has_opener = 0;
}

int pipeline_stopped(void *pipe)
{
    pipeline *p = pipe;
    pthread_mutex_lock(&p->lock);
    int stopped = !p->opening && p->open_status != WT_OK;
    pthread_mutex_unlock(&p->lock);
    return stopped;
}

/* Whether a GPU is to be tried, so that the pool opens in the background:
 * a named one (cuda, cuda:N, lists), or one auto chose (whether one exists
 * is for the opener to find). */
static int opens_a_gpu(pipeline *p, const wt_auto_job *job)
{
    if (strcmp(p->device, "auto") != 0)
        return strcmp(p->device, "cpu") != 0;
    p->cpu_chosen = auto_takes_cpu(p, job);
    /* whether a device exists is the opener's question: counting them
     * initialises CUDA (cuInit, a good part of the opening) */
    return !p->cpu_chosen && strstr(wt_backends(), "cuda") != NULL;
}

/* The pool: a GPU opened in the background (CLI_CONTINUE), else opened at
 * once (CLI_CONTINUE, or an exit code after its one line);
 * WT_GPU_OPEN_FIRST=1 opens a GPU at once too (comparisons),
 * WT_OPEN_DELAY_MS any pool in the background, late (tests). */
static int open_engines(pipeline *p, const wt_auto_job *job)
{
    const char *first = wt_env()->gpu_open_first;
    int behind = opens_a_gpu(p, job) && !(first && strcmp(first, "1") == 0);
    if (behind || wt_env_count(wt_env()->open_delay_ms, 0) > 0) {
        p->opening = 1;
        p->is_gpu = 1;
        p->opened_behind = 1; /* (before the opener reads it) */
        if (pthread_create(&p->opener, NULL, open_pool, p) == 0) {
            p->has_opener = 1;
            return CLI_CONTINUE;
        }
        p->opened_behind = 0;
    }
    open_pool(p);
    return p->open_status == WT_OK ? CLI_CONTINUE : EXIT_SOME_FAILED;
}

int pipeline_open(pipeline *p, const cli_options *opt, int workers, const wt_auto_job *job,
                  size_t room_hint, size_t files)
{
    memset(p, 0, sizeof *p);
    p->opt = opt;
    p->room_hint = room_hint;
    p->rooms_once = files > 0 && files <= (size_t)workers;
    p->load = opt->load;
    p->load.max_memory /= (uint64_t)(workers > 0 ? workers : 1);
    p->workers = workers;
    p->threads = wt_cpu_count() / workers;
    p->threads = p->threads < 1 ? 1 : p->threads;
    p->engines = calloc((size_t)workers, sizeof *p->engines);
    p->busy = calloc((size_t)workers, 1);
    if (!p->engines || !p->busy || rooms_init(p, workers) != WT_OK) {
        free(p->rooms);
        pool_close(p);
        fputs("wavetool: out of memory\n", stderr);
        return EXIT_SOME_FAILED;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->freed, NULL);
    /* volumes the GPU does not run stay on the CPU engine's axis core: auto
     * opens no GPU for them */
    p->device = opt->volume && !cli_volume_gpu_takes(opt) ? "cpu" : opt->device;
    int rc = open_engines(p, job);
    if (rc != CLI_CONTINUE) {
        rooms_free(p);
        pool_close(p);
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->freed);
    }
    return rc;
}

void pipeline_close(pipeline *p)
{
    if (!p->engines)
        return;
    pipeline_wait_open(p);
    ahead_free(p);
    if (p->gpu_codec)
        wt_gpu_jpeg_stop();
    rooms_free(p);
    pool_close(p);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->freed);
}

/* An engine of the pool, waiting for a free one (and for the GPU opening in
 * the background); -1 when the pool could not be opened. */
static int engine_acquire(pipeline *p)
{
    int got = -1;
    pthread_mutex_lock(&p->lock);
    while (got < 0) {
        wait_opening(p); /* the pool is not ours to read until it is open */
        if (p->nengines == 0)
            break;
        if (!p->usable)
            p->usable = p->nengines;
        for (int i = 0; i < p->usable && got < 0; i++)
            if (!p->busy[i])
                got = i;
        if (got < 0)
            pthread_cond_wait(&p->freed, &p->lock);
    }
    if (got >= 0)
        p->busy[got] = 1;
    pthread_mutex_unlock(&p->lock);
    return got;
}

/* Close dropped lane @p i (given back; called with the lock held). */
static void close_dropped_lane(pipeline *p, int i)
{
    if (!p->engines[i])
        return;
    wt_engine_close(p->engines[i]);
    p->engines[i] = NULL;
    p->lanes_left--;
}

/* Give engine @p i back and add what its call took to the pipeline's split:
 * asked for at @p asked, taken at @p taken. */
static void engine_release(pipeline *p, int i, const wt_engine_times *before, double asked,
                           double taken)
{
    wt_engine_times after;
    wt_engine_get_times(p->engines[i], &after);
    double held = wt_seconds() - taken;
    pthread_mutex_lock(&p->lock);
    p->stats.waited += taken - asked;
    p->stats.held += held;
    p->stats.longest = held > p->stats.longest ? held : p->stats.longest;
    p->stats.upload += after.upload - before->upload;
    p->stats.transform += after.transform - before->transform;
    p->stats.download += after.download - before->download;
    p->busy[i] = 0;
    if (i >= p->usable)
        close_dropped_lane(p, i);
    pthread_cond_broadcast(&p->freed);
    pthread_mutex_unlock(&p->lock);
}

/* A file ran out of device memory: with several lanes, the pool goes on with
 * one per GPU, the others closed (their buffers freed) as they are given back;
 * true, once they are, when there were lanes to drop (run the file again). */
static int drop_lanes(pipeline *p)
{
    pthread_mutex_lock(&p->lock);
    int had = p->lanes > 1;
    if (had && p->usable == p->nengines) {
        p->usable = p->nengines / p->lanes;
        p->lanes_left = p->nengines - p->usable;
        for (int i = p->usable; i < p->nengines; i++)
            if (!p->busy[i])
                close_dropped_lane(p, i);
        if (p->opt->verbose)
            fprintf(stderr, "wavetool: GPU memory too small for %d files at a time: one a GPU "
                            "from now on\n", p->lanes);
    }
    while (had && p->lanes_left > 0)
        pthread_cond_wait(&p->freed, &p->lock);
    pthread_mutex_unlock(&p->lock);
    return had;
}

/* A GPU that fails under --device auto: say so (-v) and use the CPU engine. */
static int falls_back(const pipeline *p, wt_status st, const char *file)
{
    if ((st != WT_ERR_DEVICE && st != WT_ERR_DEVICE_NOMEM) || !p->is_gpu ||
        strcmp(p->opt->device, "auto") != 0)
        return 0;
    if (p->opt->verbose)
        cli_error("%s: %s; using the CPU engine", pipeline_shown(file), wt_error_message());
    return 1;
}

/* @p job on a CPU engine of its own (the GPU failed under --device auto). */
static wt_status job_on_cpu(pipeline_job job, void *arg)
{
    wt_engine *cpu = NULL;
    wt_status st = wt_engine_open(&cpu, "cpu");
    if (st == WT_OK)
        st = job(cpu, arg);
    wt_engine_close(cpu);
    return st;
}

/* @p job on an engine of the pool. */
static wt_status run_on_pool(pipeline *p, pipeline_job job, void *arg)
{
    double asked = wt_seconds();
    int i = engine_acquire(p);
    if (i < 0)
        return wt_error_set(p->open_status, "%s", p->open_error);
    double taken = wt_seconds();
    wt_engine_times before;
    wt_engine_get_times(p->engines[i], &before);
    wt_status st = job(p->engines[i], arg);
    engine_release(p, i, &before, asked, taken);
    return st;
}

const wt_engine *pipeline_engine_kind(pipeline *p)
{
    wait_for_pool(p);
    pthread_mutex_lock(&p->lock);
    const wt_engine *e = p->nengines > 0 ? p->engines[0] : NULL;
    pthread_mutex_unlock(&p->lock);
    return e;
}

wt_status pipeline_engine_run(pipeline *p, pipeline_job job, void *arg, const char *file)
{
    pipeline_phase(p, PHASE_ENGINE);
    wt_status st = run_on_pool(p, job, arg);
    if (st == WT_ERR_DEVICE_NOMEM && drop_lanes(p))
        st = run_on_pool(p, job, arg); /* once more, with a GPU's memory to itself */
    if (falls_back(p, st, file))
        st = job_on_cpu(job, arg);
    pipeline_phase(p, PHASE_AFTER);
    return pipeline_name_error(st, file);
}

/* ---- decoding and encoding, timed for the pipeline's split ------------------ */

file_phase pipeline_phase(pipeline *p, file_phase phase)
{
    return phase_enter(&p->stats.cpu, &p->lock, phase);
}

pipeline_span pipeline_span_start(pipeline *p, file_phase phase)
{
    pipeline_span s = {0, pipeline_phase(p, phase)};
    s.start = wt_seconds();
    return s;
}

void pipeline_span_end(pipeline *p, double *slot, pipeline_span span)
{
    pipeline_add_time(p, slot, span.start);
    pipeline_phase(p, span.was);
}

void pipeline_add_time(pipeline *p, double *slot, double since)
{
    double dt = wt_seconds() - since;
    pthread_mutex_lock(&p->lock);
    *slot += dt;
    pthread_mutex_unlock(&p->lock);
}

/* pipeline_decode, a file decoded into @p room when it is not NULL. */
static wt_status decode_timed(pipeline *p, batch_item *item, const char *file, wt_stack *stack,
                              size_t page, wt_pixel_room *room, wt_image *img)
{
    wt_load_options load = p->load;
    load.room = room;
    file_phase was = pipeline_phase(p, PHASE_DECODE);
    double t0 = wt_seconds();
    wt_status st;
    if (!ahead_take(p, item, file, stack, page, room, img, &st))
        st = stack ? wt_stack_read_in(stack, page, room, img) : wt_image_load(file, &load, img);
    double dt = wt_seconds() - t0;
    pipeline_phase(p, was);
    if (st == WT_OK && wt_warning_message()[0] && !p->opt->quiet)
        batch_note(item, "warning: %s", wt_warning_message());
    /* (p->gpu_codec is the opener's until the wait above) */
    if (p->opt->gpu_decode && p->gpu_codec && p->opt->verbose && wt_gpu_jpeg_note()[0])
        batch_note(item, "%s", wt_gpu_jpeg_note());
    pthread_mutex_lock(&p->lock);
    p->stats.decode += dt;
    if (st == WT_OK) {
        p->stats.images++;
        p->stats.pixels += (double)img->width * img->height;
    }
    pthread_mutex_unlock(&p->lock);
    if (st == WT_OK)
        batch_count_pixels(item, (double)img->width * img->height);
    return st;
}

wt_status pipeline_decode(pipeline *p, batch_item *item, const char *file, wt_stack *stack,
                          size_t page, wt_image *img)
{
    if (p->opt->gpu_decode)
        wait_for_pool(p); /* the GPU codec, if any, starts with it */
    return decode_timed(p, item, file, stack, page, NULL, img);
}

wt_status pipeline_decode_borrowing(pipeline *p, batch_item *item, const char *file,
                                    wt_stack *stack, wt_image *img)
{
    if (p->opt->gpu_decode)
        wait_for_pool(p);
    pipeline_rooms *r = worker_rooms(p);
    return decode_timed(p, item, file, stack, 0, r ? &r->input : NULL, img);
}

void pipeline_say_meta_left_out(const pipeline *p, const char *out, const wt_image *img)
{
    const wt_image_meta *m = img->meta;
    const wt_format_info *f = wt_format_describe(cli_output_format(p->opt, out));
    if (!p->opt->verbose || p->opt->save.strip || !m || !f)
        return;
    char lost[96] = "";
    if (m->unit != WT_RES_NONE && !(f->meta & WT_META_RESOLUTION))
        strcat(lost, ", resolution");
    if (m->icc && !(f->meta & WT_META_ICC))
        strcat(lost, ", ICC profile");
    if (m->exif && !(f->meta & WT_META_EXIF))
        strcat(lost, ", Exif");
    if (m->xmp && !(f->meta & WT_META_XMP))
        strcat(lost, ", XMP");
    if (m->text && !(f->meta & WT_META_TEXT))
        strcat(lost, ", PNG text");
    if (m->description && !(f->meta & WT_META_DESCRIPTION))
        strcat(lost, ", description");
    if (lost[0])
        fprintf(stderr, "wavetool: %s: %s holds no %s of the input: left out\n",
                pipeline_shown(out), f->name, lost + 2);
}

wt_status pipeline_save(pipeline *p, const char *out, const wt_image *img)
{
    pipeline_say_meta_left_out(p, out, img);
    pipeline_span t0 = pipeline_span_start(p, PHASE_ENCODE);
    wt_status st = wt_image_save(out, img, &p->opt->save, cli_output_format(p->opt, out));
    pipeline_span_end(p, &p->stats.encode, t0);
    if (p->gpu_codec && p->opt->verbose && wt_gpu_jpeg_note()[0])
        fprintf(stderr, "wavetool: %s\n", wt_gpu_jpeg_note());
    return st;
}

wt_status pipeline_save_pyramid(pipeline *p, const char *out, const wt_pyramid *pyr,
                                const wt_npz_meta *meta)
{
    pipeline_span t0 = pipeline_span_start(p, PHASE_ENCODE);
    wt_status st = wt_npz_save(out, pyr, meta);
    pipeline_span_end(p, &p->stats.encode, t0);
    return st;
}

wt_status pipeline_save_bands(pipeline *p, const char *out, const wt_uparams *up,
                              const float *bands, const wt_npz_meta *meta)
{
    pipeline_span t0 = pipeline_span_start(p, PHASE_ENCODE);
    wt_status st = wt_npz_save_stack(out, up, bands, meta);
    pipeline_span_end(p, &p->stats.encode, t0);
    return st;
}

wt_status pipeline_load_coefficients(pipeline *p, const char *in, wt_pyramid *pyr, float **bands,
                                     wt_uparams *up, wt_npz_meta *meta)
{
    pipeline_span t0 = pipeline_span_start(p, PHASE_DECODE);
    memset(pyr, 0, sizeof *pyr);
    *bands = NULL;
    wt_load_options load = p->opt->load;
    load.coeff_image_meta = !p->opt->save.strip; /* the input's metadata, for the result */
    wt_status st = wt_npz_load_any(in, &load, pyr, bands, up, meta);
    pipeline_span_end(p, &p->stats.decode, t0);
    return pipeline_name_error(st, in); /* out of memory, say, may not name it */
}

/* ---- the transform --------------------------------------------------------- */

/* The image part of a coefficient file's meta. */
void pipeline_meta_of_image(const wt_image *img, wt_npz_meta *meta)
{
    *meta = (wt_npz_meta){.width = img->width, .height = img->height, .channels = img->channels,
                          .bit_depth = img->bit_depth, .stored = img->stored, .color = img->color};
}

wt_image_meta *pipeline_kept_meta(const pipeline *p, const wt_image *img)
{
    return p->opt->save.strip ? NULL : img->meta;
}

/* Forward transform of @p img into an engine pyramid, @p work on it, the
 * pyramid destroyed whatever happened. */
wt_status pipeline_on_epyramid(wt_engine *e, const wt_params *params, const wt_image *img,
                               pipeline_epyramid_work work, void *arg)
{
    wt_epyramid *ep = NULL;
    wt_status st = wt_epyramid_create(e, params, img->height, img->width, img->channels, &ep);
    if (st == WT_OK)
        st = wt_epyramid_forward_image(ep, img);
    if (st == WT_OK)
        st = work(ep, arg);
    wt_epyramid_destroy(ep);
    return st;
}

/* The transform for this image: -l max, the levels asked for if they fit, or
 * the default (3) made smaller for small images. */
wt_status pipeline_params_for(const cli_options *o, batch_item *item, const wt_image *img,
                              const char *file, wt_params *p)
{
    *p = o->params;
    int max = wt_max_level(img->height, img->width, p->wavelet);
    if (!o->levels_max && !o->levels_given && p->levels > max && o->verbose)
        batch_note(item, "%s: %d level%s instead of the default %d: a %ux%u image with %s allows at "
                   "most %d (-l N to insist)",
                   pipeline_shown(file), max, max == 1 ? "" : "s", p->levels, img->width,
                   img->height, p->wavelet->name, max);
    else if (o->levels_given && !o->levels_max && p->levels > max && !o->quiet)
        batch_note(item, "warning: %s: %d levels on a %ux%u image with %s, deeper than its "
                   "dwt_max_level %d: computed as pywt.wavedec2 does (boundary effects "
                   "dominate the deepest bands)",
                   pipeline_shown(file), p->levels, img->width, img->height, p->wavelet->name,
                   max);
    if (o->levels_max || (!o->levels_given && p->levels > max))
        p->levels = max;
    return pipeline_name_error(wt_params_resolve(p), file);
}
