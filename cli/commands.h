/* The subcommands: int cmd_NAME(argc, argv) with argv[0] = "NAME"; each
 * returns the exit code. */
#ifndef WT_CLI_COMMANDS_H
#define WT_CLI_COMMANDS_H

int cmd_decompose(int argc, char **argv);
int cmd_reconstruct(int argc, char **argv);
int cmd_roundtrip(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_wavelets(int argc, char **argv);
int cmd_stats(int argc, char **argv); /* cli/cmd_stats.c */
#ifdef WT_HAVE_BENCH
int cmd_bench(int argc, char **argv); /* cli/cmd_bench.c, with the CUDA engine's work */
/* bench --pipeline (argv[0] = "--pipeline"): cli/bench_pipeline.c */
int cmd_bench_pipeline(int argc, char **argv);
#endif

#endif
