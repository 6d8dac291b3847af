/* Inside of test_io (the file layer's unit tests, one cmocka program): what
 * its files share. test_io.c: helpers and main (the one list of tests, in
 * their order); test_io_codecs.c, test_io_outfile.c, test_io_npz.c,
 * test_io_stack.c: the tests by concern. */
#ifndef TEST_IO_H
#define TEST_IO_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jpeglib.h>
#include <zlib.h>

#include "wavetool_hooks.h"
#include "wavetool.h"

#define assert_message_has(text) assert_non_null(strstr(wt_error_message(), (text)))

/* test_io.c */
extern char work_dir[256];
const char *scratch(const char *name);
const char *corpus(const char *rel);
uint32_t rand32(void);
void random_image(wt_image *img, uint32_t w, uint32_t h, int channels, int depth);
void assert_images_equal(const wt_image *a, const wt_image *b);
uint8_t *read_file(const char *path, size_t *size);
void write_file(const char *path, const void *data, size_t size);
int count_entries(const char *dir);
void make_dir(const char *path);
wt_image load_ok(const char *path);

/* test_io_codecs.c */
void test_format_from_path(void **state);
void test_format_registry(void **state);
void test_format_capabilities(void **state);
void test_tiff_level(void **state);
void test_png_roundtrip_8bit(void **state);
void test_png_roundtrip_16bit(void **state);
void test_png_filters_vector(void **state);
void test_png_smooth_roundtrip(void **state);
void test_png_streamed(void **state);
void test_png_fast_runs(void **state);
void test_png_fast_run_lengths(void **state);
void test_png_fast_runs_at_the_end(void **state);
void test_png_fast_constant_and_thin(void **state);
void test_png_fast_noise(void **state);
void test_png_fast_window_edges(void **state);
void test_png_low_bit_gray(void **state);
void test_png_color_types(void **state);
void test_png_interlaced_equals_plain(void **state);
void test_png_16bit_native(void **state);
void test_png_truncated(void **state);
void test_png_corrupt(void **state);
void test_png_bombs(void **state);
void test_jpeg_decode(void **state);
void test_jpeg_truncated(void **state);
void test_jpeg_unsupported(void **state);
void test_jpeg_scan_limit(void **state);
void test_jpeg_scan_bomb(void **state);
void test_sample_types(void **state);
void test_pnm_samples(void **state);
void test_jpeg_encode(void **state);
void test_load_errors(void **state);
void test_save_errors(void **state);

/* test_io_outfile.c */
void test_outfile_commit(void **state);
void test_outfile_abort(void **state);
void test_outfile_temp_hooks(void **state);
void test_outfile_standard_fds(void **state);
void test_outfile_errors(void **state);
void test_outfile_write_failure(void **state);
void test_same_file(void **state);

/* test_io_npz.c */
void forward_random(wt_pyramid *pyr, const char *wavelet, wt_mode mode, int levels,
                    int channels, size_t h, size_t w);
wt_npz_meta meta_for(const wt_pyramid *pyr, const char *wavelet, wt_mode mode,
                     wt_method method);
void test_npz_roundtrip(void **state);
void test_npz_zip64(void **state);
void test_npz_truncated(void **state);
void test_npz_crc(void **state);
void test_npz_byte_flips(void **state);
void test_npz_crafted(void **state);
void test_npz_meta(void **state);
void test_npz_sparse_limits(void **state);
void test_side_limit(void **state);
void test_stream_inputs(void **state);
void test_npz_not_zip(void **state);

/* test_io_stack.c */
void test_stack_files(void **state);
void test_stack_reread_rows(void **state);
void test_npz_stack(void **state);

#endif
