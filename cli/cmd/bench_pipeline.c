/* wavetool bench --pipeline: the batch path of `decompose` over a folder, timed
 * as a whole (images/s, MPixel/s) and split into decode, upload, transform,
 * download and encode; and in the same run the same files through decode and
 * encode alone (the decoded image written as the output), the codecs' limit the
 * full path is compared with. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "commands.h"
#include "options.h"
#include "pipeline.h"
#include "report.h"

/* One timed pass over the files. */
typedef struct pass_result {
    const char *name;
    double wall;
    size_t done, failed;
    pipeline_stats stats;
} pass_result;

/* What a pass does with each file: decompose, or decode and encode only. */
typedef struct pass_work {
    pipeline *pipe;
    int transcode_only;
} pass_work;

static void pass_one(void *arg, batch_item *item)
{
    pass_work *w = arg;
    /* one page: the file itself; the item gets its notes */
    page_binding page = {.pipe = w->pipe, .item = item, .input = item->input,
                         .output = item->output, .pages = 1};
    batch_item_result(item, w->transcode_only
                                ? decompose_transcode_file(w->pipe, &page, item->input, item->output)
                                : decompose_file(w->pipe, &page, item->input, item->output));
}

static void reset_items(batch *b)
{
    for (size_t i = 0; i < b->count; i++) {
        batch_item *it = &b->items[i];
        if (it->state == ITEM_DONE || it->state == ITEM_FAILED) {
            it->state = ITEM_PENDING;
            free(it->message);
            it->message = NULL;
        }
    }
}

/* Run items [0, count) through the pipeline; messages of failed files printed. */
static pass_result run_pass(pipeline *p, batch *b, size_t count, int workers, int transcode,
                            const char *name)
{
    pass_result r = {.name = name};
    batch part = *b;
    part.count = count;
    part.is_batch = 0;
    reset_items(&part);
    memset(&p->stats, 0, sizeof p->stats);
    pass_work work = {p, transcode};
    batch_run_options run = {workers, 1, 0, 0, stdout, NULL, pipeline_stopped, p};
    double t0 = wt_seconds();
    batch_run(&part, &run, pass_one, &work);
    r.wall = wt_seconds() - t0;
    r.stats = p->stats;
    for (size_t i = 0; i < count; i++) {
        r.done += b->items[i].state == ITEM_DONE;
        r.failed += b->items[i].state == ITEM_FAILED || b->items[i].state == ITEM_STOPPED;
    }
    return r;
}

/* Read every input once so that neither pass pays for the disk. */
static double warm_page_cache(const batch *b)
{
    static char buf[1 << 16];
    double bytes = 0;
    for (size_t i = 0; i < b->count; i++) {
        FILE *f = fopen(b->items[i].input, "rb");
        size_t n;
        while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
            bytes += (double)n;
        if (f)
            fclose(f);
    }
    return bytes;
}

static void print_text(const pass_result *r)
{
    const pipeline_stats *s = &r->stats;
    printf("%-18s %8.2f %9.1f %9.1f %7.2f %7.2f %9.2f %8.2f %7.2f", r->name, r->wall,
           (double)s->images / r->wall, s->pixels / 1e6 / r->wall, s->decode, s->upload,
           s->transform, s->download, s->encode);
    if (r->failed)
        printf("   (%zu failed)", r->failed);
    putchar('\n');
}

static void print_json(const pass_result *r, const char *engine, const char *jpeg, int workers)
{
    const pipeline_stats *s = &r->stats;
    wt_json j;
    wt_json_init(&j, 1);
    wt_json_begin_object(&j);
    wt_json_key_string(&j, "pass", r->name);
    wt_json_key_string(&j, "engine", engine);
    wt_json_key_string(&j, "jpeg", jpeg);
    wt_json_key_int(&j, "workers", workers);
    wt_json_key_uint(&j, "images", s->images);
    wt_json_key_uint(&j, "failed", r->failed);
    wt_json_key_number(&j, "mpixels", "%.3f", s->pixels / 1e6);
    wt_json_key_number(&j, "wall_s", "%.4f", r->wall);
    wt_json_key_number(&j, "images_per_s", "%.3f", (double)s->images / r->wall);
    wt_json_key_number(&j, "mpixels_per_s", "%.3f", s->pixels / 1e6 / r->wall);
    wt_json_key_number(&j, "decode_s", "%.4f", s->decode);
    wt_json_key_number(&j, "upload_s", "%.4f", s->upload);
    wt_json_key_number(&j, "transform_s", "%.4f", s->transform);
    wt_json_key_number(&j, "download_s", "%.4f", s->download);
    wt_json_key_number(&j, "encode_s", "%.4f", s->encode);
    wt_json_key_number(&j, "engine_held_s", "%.4f", s->held);
    wt_json_key_number(&j, "engine_waited_s", "%.4f", s->waited);
    report_json_print(&j, stdout);
}

/* -v: the engine section of the full pass (pipeline_engine_section). */
static void say_engine_section(const pipeline *p, const pass_result *full)
{
    char text[256];
    pipeline_engine_section(p, &full->stats, text, sizeof text);
    printf("engine section (full pass): %s\n", text);
}

static void report(const cli_options *o, pipeline *p, int workers, double in_bytes,
                   const pass_result *codecs, const pass_result *full)
{
    pipeline_wait_open(p);
    const char *engine = wt_engine_name(p->engines[0]);
    const char *jpeg = p->gpu_codec ? p->gpu_codec_text : "libjpeg-turbo";
    double ratio = (full->stats.pixels / full->wall) / (codecs->stats.pixels / codecs->wall);
    if (o->format == REPORT_JSON) {
        print_json(codecs, engine, jpeg, workers);
        print_json(full, engine, jpeg, workers);
        wt_json j;
        wt_json_init(&j, 1);
        wt_json_begin_object(&j);
        wt_json_key_number(&j, "full_over_codecs", "%.4f", ratio);
        report_json_print(&j, stdout);
        return;
    }
    printf("pipeline: %lu files, %.1f MPixel, %.1f MB of input; decompose -w %s -l %d; "
           "%s",
           full->stats.images, full->stats.pixels / 1e6, in_bytes / 1e6,
           o->params.wavelet->name, o->params.levels, engine);
    if (p->is_gpu && p->nengines > 1)
        printf(" and %d more GPU%s", p->nengines - 1, p->nengines > 2 ? "s" : "");
    printf("; JPEG: %s", jpeg);
    printf("; %d worker%s\n", workers, workers > 1 ? "s" : "");
    printf("%-18s %8s %9s %9s %7s %7s %9s %8s %7s\n", "pass", "wall s", "images/s", "MPixel/s",
           "decode", "upload", "transform", "download", "encode");
    print_text(codecs);
    print_text(full);
    printf("split: CPU seconds summed over workers; full path / codecs only throughput: "
           "%.3f\n",
           ratio);
    if (o->verbose)
        say_engine_section(p, full);
}

/* Remove what the passes wrote into a temporary directory, the folders -O
 * mirrored there (each once the last file in it is gone), then the directory. */
static void remove_outputs(const batch *b, const char *dir)
{
    for (size_t i = 0; i < b->count; i++) {
        char *path = b->items[i].output ? strdup(b->items[i].output) : NULL;
        if (path)
            unlink(path);
        for (char *slash; path && (slash = strrchr(path, '/')) && slash - path > (long)strlen(dir);) {
            *slash = '\0';
            rmdir(path); /* fails while another output's folder still holds files */
        }
        free(path);
    }
    rmdir(dir);
}

static int bench_files(const cli_options *o, batch *b)
{
    pipeline p;
    int workers = pipeline_workers(o->jobs, b->count);
    int rc = pipeline_open(&p, o, workers, NULL, 0, 0);
    if (rc != CLI_CONTINUE)
        return rc;
    double in_bytes = warm_page_cache(b);
    size_t warm = (size_t)workers < b->count ? (size_t)workers : b->count;
    /* a file that fails stops the benchmark after the pass that met it
     * (batch_run has printed why) */
    pass_result codecs = {0}, full = {0};
    int failed = run_pass(&p, b, warm, workers, 0, "warm-up").failed > 0;
    if (!failed)
        failed = (codecs = run_pass(&p, b, b->count, workers, 1, "decode+encode")).failed > 0;
    if (!failed)
        failed = (full = run_pass(&p, b, b->count, workers, 0, "full")).failed > 0;
    if (!failed)
        report(o, &p, workers, in_bytes, &codecs, &full);
    pipeline_close(&p);
    return failed ? EXIT_SOME_FAILED : EXIT_ALL_DONE;
}

/* Inputs that failed while listed (unreadable paths): said once, and no run. */
static int check_listed(const batch *b)
{
    int bad = 0;
    for (size_t i = 0; i < b->count; i++)
        if (b->items[i].state == ITEM_FAILED) {
            fprintf(stderr, "wavetool: %s\n",
                    b->items[i].message ? b->items[i].message : b->items[i].input);
            bad = 1;
        }
    if (!bad && b->count == 0)
        fputs("wavetool: bench --pipeline: no images among the inputs\n", stderr);
    return bad || b->count == 0 ? EXIT_SOME_FAILED : CLI_CONTINUE;
}

static int run_bench_pipeline(const cli_options *o)
{
    batch b = {0};
    char tmpdir[4096] = "";
    int rc = CLI_CONTINUE;
    if (report_is_table(o->format))
        return cli_usage_error("bench --pipeline", "--format %s: bench writes text or json",
                               o->format == REPORT_CSV ? "csv" : "tsv");
    if (!o->outdir) {
        const char *t = wt_env()->tmpdir;
        snprintf(tmpdir, sizeof tmpdir, "%s/wavetool-bench-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(tmpdir)) {
            perror("wavetool: bench --pipeline: temporary directory");
            rc = EXIT_SOME_FAILED;
        }
    }
    batch_plan plan = {"bench --pipeline", 0, NULL, tmpdir[0] ? tmpdir : o->outdir, o->suffix,
                       o->ext, CLI_DEFAULT_EXT, WT_HOLDS_IMAGE, 1, tmpdir[0] ? "/" : o->base};
    if (rc == CLI_CONTINUE)
        rc = batch_plan_files(&b, &plan, o->args, o->nargs);
    if (rc == CLI_CONTINUE)
        rc = check_listed(&b);
    if (rc == CLI_CONTINUE)
        rc = bench_files(o, &b);
    if (tmpdir[0])
        remove_outputs(&b, tmpdir);
    batch_free(&b);
    return rc;
}

const cli_command cmd_bench_pipeline = {
    .name = "bench --pipeline",
    .synopsis = "[options] INPUT...",
    .tagline = "the batch path of decompose against decode+encode alone",
    .summary =
        "Time `wavetool decompose -O DIR INPUT...` (PNG mosaics unless --ext) over the\n"
        "inputs (files, or directories walked for {IMAGES}): first a warm-up\n"
        "over one file per worker, then the files through decode and encode only (the\n"
        "decoded image written instead of the mosaic), then the whole path. Prints\n"
        "images/s, MPixel/s and the time split (CPU seconds summed over workers), and\n"
        "the ratio of the two throughputs. Outputs go to -O DIR if given (kept), else\n"
        "to a temporary directory that is removed. --gpu-decode and --gpu-encode\n"
        "put the JPEG codec of both passes on the GPU.",
    .groups = (const cli_group *const[]){&cli_group_transform, &cli_group_device, &cli_group_gpu_codec, &cli_group_jobs, &cli_group_input,
                                         &cli_group_save, &cli_group_mosaic, &cli_group_batch,
                                         &cli_group_report, &cli_group_verbosity, NULL},
    .min_args = 1,
    .max_args = -1,
    .writes = WT_HOLDS_IMAGE | WT_HOLDS_COEFFS,
    .run = run_bench_pipeline,
};
