/* Stacks in the file commands, page by page (see pages.h). */
#include "pages.h"

#include <stdlib.h>
#include <string.h>

#include "report.h"

/* @p b when @p path is its stack's output of more than one page (a page is
 * written); else NULL. */
static page_binding *output_of(page_binding *b, const char *path)
{
    return b && b->pages > 1 && b->output && strcmp(path, b->output) == 0 ? b : NULL;
}

char *pages_label(const char *file, size_t page)
{
    return batch_strdupf("%s[%zu]", file, page);
}

wt_status pages_refuse_other_output(const page_binding *b, const char *path)
{
    return wt_error_set(WT_ERR_UNSUPPORTED,
                        "%s: a stack of %zu pages writes one output (%s), not one file per "
                        "page", pipeline_shown(b->input), b->pages, path);
}

/* ---- outputs ----------------------------------------------------------------- */

static wt_status add_image(page_binding *b, const wt_image *img)
{
    const cli_options *o = b->pipe->opt;
    wt_status st = WT_OK;
    if (!b->image_out) {
        pipeline_say_meta_left_out(b->pipe, b->output, img); /* once, of the first page */
        st = wt_stack_writer_open(b->output, cli_output_format(o, b->output), b->pages,
                                  &b->image_out);
    }
    wt_image page = *img; /* each page with its own metadata, none with --strip */
    if (o->save.strip)
        page.meta = NULL;
    if (st == WT_OK)
        st = wt_stack_writer_add(b->image_out, &page);
    return st;
}

/* The meta of a stack's coefficients: the page's, with the page count. */
static wt_npz_meta stack_meta(const page_binding *b, const wt_npz_meta *meta)
{
    wt_npz_meta m = *meta;
    m.pages = b->pages;
    m.compress = b->pipe->opt->compress;
    return m;
}

/* The stack's coefficient output, opened by the first page: for a DWT
 * pyramid shaped like @p pyr, or (@p pyr NULL) an undecimated band stack. */
static wt_status open_coeffs_out(page_binding *b, const wt_npz_meta *meta, const wt_pyramid *pyr,
                                 const wt_uparams *up)
{
    if (b->coeffs_out)
        return WT_OK;
    wt_npz_meta m = stack_meta(b, meta);
    return wt_npz_stack_writer_open(b->output, &m, pyr, up, &b->coeffs_out);
}

static wt_status add_pyramid(page_binding *b, const wt_pyramid *pyr, const wt_npz_meta *meta)
{
    wt_status st = open_coeffs_out(b, meta, pyr, NULL);
    return st == WT_OK ? wt_npz_stack_add_pyramid(b->coeffs_out, pyr) : st;
}

static wt_status add_bands(page_binding *b, const wt_uparams *up, const float *bands,
                           const wt_npz_meta *meta)
{
    wt_status st = open_coeffs_out(b, meta, NULL, up);
    return st == WT_OK ? wt_npz_stack_add_bands(b->coeffs_out, bands) : st;
}

wt_status pages_load(pipeline *p, page_binding *page, const char *file, wt_image *img)
{
    /* the item's input is read through its stack: a page, or the one image */
    int paged = page && page->images && strcmp(file, page->input) == 0;
    return pipeline_decode(p, pages_item(page), file, paged ? page->images : NULL,
                           paged ? page->page : 0, img);
}

wt_status pages_load_borrowing(pipeline *p, page_binding *page, const char *file,
                               wt_image *img)
{
    /* the item's input is read through its stack (pages_load): an input of
     * one page (a JPEG, say) borrows all the same, a stack's pages do not */
    int paged = page && page->images && strcmp(file, page->input) == 0;
    if (paged && page->pages > 1)
        return pages_load(p, page, file, img);
    return pipeline_decode_borrowing(p, pages_item(page), file, paged ? page->images : NULL,
                                     img);
}

batch_item *pages_item(const page_binding *page)
{
    return page ? page->item : NULL;
}

wt_status pages_save(pipeline *p, page_binding *page, const char *out, const wt_image *img)
{
    page_binding *b = output_of(page, out);
    if (!b && !(page && page->pages > 1))
        return pipeline_save(p, out, img);
    pipeline_span t0 = pipeline_span_start(p, PHASE_ENCODE);
    wt_status st = b ? add_image(b, img) : pages_refuse_other_output(page, out);
    pipeline_span_end(p, &p->stats.encode, t0);
    return st;
}

wt_status pages_save_pyramid(pipeline *p, page_binding *page, const char *out,
                             const wt_pyramid *pyr, const wt_npz_meta *meta)
{
    page_binding *b = output_of(page, out);
    if (!b)
        return pipeline_save_pyramid(p, out, pyr, meta);
    pipeline_span t0 = pipeline_span_start(p, PHASE_ENCODE);
    wt_status st = add_pyramid(b, pyr, meta);
    pipeline_span_end(p, &p->stats.encode, t0);
    return st;
}

wt_status pages_save_bands(pipeline *p, page_binding *page, const char *out,
                           const wt_uparams *up, const float *bands, const wt_npz_meta *meta)
{
    page_binding *b = output_of(page, out);
    if (!b)
        return pipeline_save_bands(p, out, up, bands, meta);
    pipeline_span t0 = pipeline_span_start(p, PHASE_ENCODE);
    wt_status st = add_bands(b, up, bands, meta);
    pipeline_span_end(p, &p->stats.encode, t0);
    return st;
}

wt_status pages_load_coefficients(pipeline *p, page_binding *page, const char *in,
                                  wt_pyramid *pyr, float **bands, wt_uparams *up,
                                  wt_npz_meta *meta)
{
    if (!page || !page->coeffs || strcmp(in, page->input) != 0)
        return pipeline_load_coefficients(p, in, pyr, bands, up, meta);
    pipeline_span t0 = pipeline_span_start(p, PHASE_DECODE);
    memset(pyr, 0, sizeof *pyr);
    *meta = page->coeffs_meta;
    *up = page->coeffs_params;
    *bands = NULL;
    wt_status st = wt_npz_stack_read_page(page->coeffs, page->page, pyr, bands);
    if (st != WT_OK) {
        wt_pyramid_free(pyr);
        free(*bands);
        *bands = NULL;
    }
    pipeline_span_end(p, &p->stats.decode, t0);
    return st;
}

/* Every page done: the outputs renamed into place; else removed. */
static wt_status finish_outputs(page_binding *b, wt_status st)
{
    if (st != WT_OK) {
        wt_stack_writer_abort(b->image_out);
        wt_npz_stack_writer_abort(b->coeffs_out);
        return st;
    }
    if (b->image_out)
        st = wt_stack_writer_commit(b->image_out);
    else if (b->coeffs_out)
        st = wt_npz_stack_writer_commit(b->coeffs_out);
    return st;
}

/* ---- inputs ------------------------------------------------------------------ */

static wt_status open_input(page_binding *b, int kind)
{
    const wt_load_options *load = &b->pipe->load;
    b->pages = 1;
    if (b->pipe->opt->volume)
        return WT_OK; /* the whole input is one volume: read by the command */
    if (kind == PAGES_OF_COEFFS) {
        if (!wt_npz_is_stack(b->input))
            return WT_OK; /* one image's coefficients: read by the command */
        wt_status st = wt_npz_stack_reader_open(b->input, load, &b->coeffs, &b->coeffs_meta,
                                                &b->coeffs_params);
        if (st == WT_OK)
            b->pages = (size_t)b->coeffs_meta.pages;
        return st;
    }
    wt_status st = wt_stack_open(b->input, load, &b->images);
    if (st == WT_OK)
        b->pages = wt_stack_pages(b->images);
    return st;
}

static void close_input(page_binding *b)
{
    wt_stack_close(b->images);
    wt_npz_stack_reader_close(b->coeffs);
}

/* "a.tif: page 3: reason" for a failure on a page that does not say its page. */
static wt_status name_page(const page_binding *b, wt_status st)
{
    char prefix[64], reason[2048];
    const char *msg = wt_error_message();
    const char *shown = pipeline_shown(b->input);
    size_t len = strlen(shown);
    snprintf(prefix, sizeof prefix, "page %zu: ", b->page);
    if (strncmp(msg, shown, len) == 0 && strncmp(msg + len, ": ", 2) == 0)
        msg += len + 2;
    if (strncmp(msg, "page ", 5) == 0)
        return st; /* it does */
    snprintf(reason, sizeof reason, "%s", msg);
    return wt_error_set(st, "%s: %s%s", shown, prefix, reason);
}

/* ---- reports ----------------------------------------------------------------- */

/* @p lines with the page: TSV and CSV a last column (empty for one image);
 * JSON lines carry their "page" from the report's builder (report_page). */
static void add_lines(strbuf *sb, size_t page, size_t pages, report_format f, const char *lines)
{
    for (const char *line = lines; *line;) {
        size_t next, len = report_row_length(f, line, &next);
        sb_printf(sb, "%.*s", (int)len, line);
        if (report_is_table(f) && pages > 1)
            sb_row_printf(sb, f, "\t%zu", page);
        else if (report_is_table(f))
            sb_row_printf(sb, f, "\t");
        sb_row_printf(sb, f, "\n");
        line += next;
    }
}

/* A stack's output holds pages: a format that holds stacks, or coefficients (.npz). */
static wt_status check_output(const page_binding *b)
{
    if (b->pages <= 1 || !b->output || b->pipe->opt->layers) /* layers: a set per page */
        return WT_OK;
    wt_file_format f = cli_output_format(b->pipe->opt, b->output);
    if (f == WT_FORMAT_NPZ && b->pipe->opt->compress)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: --compress is not available for a stack's .npz (its members "
                            "are filled in place, page by page)",
                            pipeline_shown(b->input));
    const unsigned holds_pages = WT_HOLDS_STACK | WT_HOLDS_COEFFS; /* .npz: every page's */
    const wt_format_info *info = wt_format_describe(f);
    char list[128];
    if (wt_format_holds(f, holds_pages))
        return WT_OK;
    return wt_error_set(WT_ERR_UNSUPPORTED, "%s: a stack of %zu pages is written as %s, not %s",
                        pipeline_shown(b->input), b->pages,
                        wt_format_list(list, sizeof list, holds_pages | WT_LIST_USUAL, ".", ", ",
                                       " or "),
                        info ? info->name : b->output);
}

void pages_run(pipeline *p, batch_item *item, int kind, page_work work, void *ctx)
{
    page_binding b = {.pipe = p, .item = item, .input = item->input, .output = item->output};
    strbuf report = {0};
    int any = 0;
    wt_status st = open_input(&b, kind);
    if (st == WT_OK)
        st = check_output(&b);
    for (b.page = 0; st == WT_OK && b.page < b.pages; b.page++) {
        char *label = b.pages > 1 && p->opt->format == REPORT_TEXT ? pages_label(item->input, b.page)
                                                                  : NULL;
        char *lines = NULL;
        report_page shown = {label ? label : item->input, b.page, b.pages};
        st = work(ctx, item, &b, &shown, &lines);
        if (st != WT_OK && b.pages > 1)
            st = name_page(&b, st);
        if (lines) {
            add_lines(&report, b.page, b.pages, p->opt->format, lines);
            any = 1;
        }
        free(lines);
        free(label);
    }
    st = finish_outputs(&b, st);
    close_input(&b);
    batch_item_result(item, st);
    char *text = sb_finish(&report);
    if (any)
        item->report = text;
    else
        free(text);
}

char *pages_report_lines(report_format f, const char *lines, size_t page, size_t pages)
{
    strbuf sb = {0};
    add_lines(&sb, page, pages, f, lines);
    return sb_finish(&sb);
}

/* ---- commands of one output per input -------------------------------------- */

typedef struct conversion {
    pipeline pipe;
    int kind;
    page_convert convert;
} conversion;

static wt_status convert_page(void *ctx, batch_item *item, page_binding *page,
                              const report_page *shown, char **report)
{
    conversion *c = ctx;
    (void)shown, (void)report;
    return c->convert(&c->pipe, page, item->input, item->output);
}

static void convert_item(void *ctx, batch_item *item)
{
    conversion *c = ctx;
    pages_run(&c->pipe, item, c->kind, convert_page, c);
}

int pages_run_conversions(const cli_options *o, const char *cmd, int kind, page_convert convert)
{
    conversion c = {.kind = kind, .convert = convert};
    unsigned walk = kind == PAGES_OF_COEFFS ? WT_HOLDS_COEFFS : WT_HOLDS_IMAGE;
    batch_plan plan = {cmd, 1, NULL, o->outdir, o->suffix, o->ext, CLI_DEFAULT_EXT, walk, 1,
                       o->base};
    return pipeline_run_files(&c.pipe, o, &plan, convert_item, &c, stdout, NULL);
}
