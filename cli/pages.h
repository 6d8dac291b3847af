/* Stacks in the file commands: a multi-page TIFF, a 3-D .npy (--stack) or a
 * stack's coefficient file is processed page by page, each page as one image
 * through the command's own work, its outputs gathered into one multi-page
 * output (TIFF, .npy, .npz with a leading page axis) and its report lines
 * given a page column. One page is in memory at a time.
 *
 * The page being processed is a page_binding that the command's work is
 * given and passes on to the loaders and savers below: pages_load of the
 * item's input reads the page, pages_save (and the coefficient savers) of the
 * item's output adds the page to the stack's output. An ordinary input is a
 * stack of one page whose outputs are written as before. The binding may be
 * NULL (work outside pages_run, e.g. bench --pipeline): plain files. */
#ifndef WT_CLI_PAGES_H
#define WT_CLI_PAGES_H

#include "batch.h"
#include "pipeline.h"
#include "report.h"

typedef struct page_binding {
    pipeline *pipe;
    batch_item *item;               /* the item whose input this is (notes, pixels) */
    const char *input, *output;     /* the item's */
    size_t page, pages;
    wt_stack *images;               /* image inputs */
    wt_npz_stack_reader *coeffs;    /* a stack's coefficient file (reconstruct) */
    wt_npz_meta coeffs_meta;
    wt_uparams coeffs_params;
    wt_stack_writer *image_out;     /* opened by the first page's image */
    wt_npz_stack_writer *coeffs_out; /* opened by the first page's coefficients */
} page_binding;

/* A command's work on one page (or on an ordinary input's one image) of
 * @p page: @p shown names it in the report (text: "a.tif[3]") and gives its
 * number, *@p report gets its report lines (or stays NULL). */
typedef wt_status (*page_work)(void *ctx, batch_item *item, page_binding *page,
                               const report_page *shown,
                               char **report);

/* Inputs that are images, or coefficient files. */
enum { PAGES_OF_IMAGES = 0, PAGES_OF_COEFFS = 1 };

/* Run @p work on every page of @p item's input, and set the item's result
 * and report (TSV lines get a last column "page", empty for an ordinary
 * input; JSON lines of a page get "page": K). */
void pages_run(pipeline *p, batch_item *item, int kind, page_work work, void *ctx);

/* A command's conversion of one input (a page) into its output, with no
 * report: decompose_file, reconstruct_file. */
typedef wt_status (*page_convert)(pipeline *p, page_binding *page, const char *in,
                                  const char *out);

/* The files of a command that writes one output per input and reports
 * nothing (IN OUT, or -O DIR INPUT...): each input of @p kind (directories
 * walked for its files) through @p convert page by page; messages and the
 * summary as pipeline_run_files gives them. Returns the exit code. */
int pages_run_conversions(const cli_options *o, const char *cmd, int kind, page_convert convert);

/* The inputs and outputs of a command's work on @p page (NULL: plain files),
 * timed in @p p's split. pages_load: the page when @p file is the item's
 * input, else the file. pages_save and the coefficient savers: the page added
 * to the stack's output (opened by the first page) when @p out is the item's
 * output of a stack; another file while a stack of more than one page is
 * processed (decompose --layers) is refused, a stack writes one output. */
wt_status pages_load(pipeline *p, page_binding *page, const char *file, wt_image *img);
/* pages_load, a file (an input of one page, not a page of a stack) decoded
 * into the worker's input room when the pool has rooms
 * (pipeline_decode_borrowing): @p img must be gone before the worker's next
 * file. */
wt_status pages_load_borrowing(pipeline *p, page_binding *page, const char *file,
                               wt_image *img);
wt_status pages_save(pipeline *p, page_binding *page, const char *out, const wt_image *img);
wt_status pages_save_pyramid(pipeline *p, page_binding *page, const char *out,
                             const wt_pyramid *pyr, const wt_npz_meta *meta);
wt_status pages_save_bands(pipeline *p, page_binding *page, const char *out,
                           const wt_uparams *up, const float *bands, const wt_npz_meta *meta);
/* The error of a second output while a stack of several pages is processed:
 * a stack writes one output. */
wt_status pages_refuse_other_output(const page_binding *page, const char *path);
/* The item @p page belongs to, for its notes (NULL without a page). */
batch_item *pages_item(const page_binding *page);

/* A coefficient file, or the page of a stack's one (reconstruct). */
wt_status pages_load_coefficients(pipeline *p, page_binding *page, const char *in,
                                  wt_pyramid *pyr, float **bands, wt_uparams *up,
                                  wt_npz_meta *meta);

/* @p lines (report lines about page @p page of @p pages) with the TSV page
 * column as pages_run gives it; a new string (NULL: out of memory). */
char *pages_report_lines(report_format f, const char *lines, size_t page, size_t pages);

/* The text a report line about page @p page of @p file shows: "FILE[PAGE]". */
char *pages_label(const char *file, size_t page);

#endif
