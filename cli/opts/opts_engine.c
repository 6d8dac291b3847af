/* The engine's options: --device, -j, --gpu-decode, --gpu-encode. */
#include <stddef.h>
#include <string.h>

#include "options.h"

#define AT(field) offsetof(cli_options, field)

/* auto, cpu, cuda, cuda:N, cuda:N,M,... or cuda:all; whether a device works
 * is the engine's to say. */
static int parse_device(const cli_arg *a)
{
    const char *arg = a->value;
    const char *list = strncmp(arg, "cuda:", 5) == 0 ? arg + 5 : NULL;
    int ok = !strcmp(arg, "auto") || !strcmp(arg, "cpu") || !strcmp(arg, "cuda") ||
             (list && !strcmp(list, "all"));
    if (list && !ok) { /* N or N,M,...: digits, single commas, no empty items */
        size_t len = strlen(list);
        ok = len > 0 && len < 64 && strspn(list, "0123456789,") == len && list[0] != ',' &&
             list[len - 1] != ',' && !strstr(list, ",,");
    }
    if (!ok)
        return cli_usage_error(a->cmd, "invalid argument '%s' for option --%s; should be auto, "
                                       "cpu, cuda, cuda:N, cuda:N,M,... or cuda:all",
                               arg, a->row->name);
    *(const char **)a->field = arg;
    return CLI_CONTINUE;
}

static const cli_opt device_rows[] = {
    {"device", 0, "DEV", parse_device, AT(device),
     "auto (first GPU, else CPU), cpu, cuda, cuda:N;\n"
     "cuda:N,M,... or cuda:all spread the files over GPUs",
     "auto", NULL},
};
const cli_group cli_group_device = CLI_GROUP(device_rows, 0);

static const cli_opt jobs_rows[] = {
    {"jobs", 'j', "N", cli_opt_int, AT(jobs), "files processed at a time (0: cores this process\nmay use)",
     "0", &(cli_int_range){0, 1024}},
};
const cli_group cli_group_jobs = CLI_GROUP(jobs_rows, 0);

static const cli_opt gpu_codec_rows[] = {
    {"gpu-decode", 0, NULL, cli_opt_flag, AT(gpu_decode),
     "decode JPEG inputs on the GPU (nvJPEG) when the CUDA\n"
     "engine runs: libjpeg-turbo's pixels, but corrupt data\n"
     "may pass (docs/performance.md)", NULL, NULL},
    {"gpu-encode", 0, NULL, cli_opt_flag, AT(gpu_encode),
     "encode JPEG outputs on the GPU (nvJPEG) when the CUDA\n"
     "engine runs: the same quality, not the same bytes", NULL, NULL},
};
const cli_group cli_group_gpu_codec = CLI_GROUP(gpu_codec_rows, 0);
