/* Coefficient files of wavelet packets: the leaves of a basis, one member
 * each named by its path ("aah"; the root leaf "root"), (C, h, w) float32;
 * the member "tree", the leaves' paths one a line (uint8 text, depth first,
 * a h v d order); and "meta" (src/coeff_meta.c, transform "packet", levels
 * the tree's depth). The reader takes any leaves that tile the tree once,
 * in any order; other members are ignored. It treats the file as hostile:
 * the leaves must hold the image's samples at least, and the tree it
 * allocates (each level about the image's size) is bounded by the meta's
 * levels, which WT_PACKET_MAX_LEVELS bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coeff_meta.h"
#include "input.h"
#include "npz_member.h"
#include "transform.h"

#define ROOT_NAME "root"
/* The tree member: 4^L paths of L letters and a newline each, at most. */
#define TREE_CAP (NPZ_HEADER_CAP + (1 << (2 * WT_PACKET_MAX_LEVELS)) * (WT_PACKET_MAX_LEVELS + 1))

/* ---- writer ---------------------------------------------------------------- */

static void member_name(int level, size_t k, char *name)
{
    if (level == 0)
        snprintf(name, ZIP_NAME_CAP, "%s", ROOT_NAME);
    else
        wt_packet_path(level, k, name);
}

/* The leaves of @p basis: their levels and indices (malloc'ed), how many. */
static wt_status list_leaves(const wt_packet_tree *t, const unsigned char *basis, int **level,
                             size_t **k, size_t *n)
{
    *n = wt_packet_leaves(t->params.levels, basis, NULL, NULL);
    *level = malloc(*n * sizeof **level);
    *k = malloc(*n * sizeof **k);
    if (*level && *k) {
        wt_packet_leaves(t->params.levels, basis, *level, *k);
        return WT_OK;
    }
    free(*level);
    free(*k);
    *level = NULL;
    *k = NULL;
    return wt_error_set(WT_ERR_NOMEM, "out of memory");
}

/* Members of every leaf, then "tree" and "meta". */
static void write_members(zip_writer *w, const wt_packet_tree *t, const int *level,
                          const size_t *k, size_t n, char *text, const char *json)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        char name[ZIP_NAME_CAP];
        uint64_t shape[3] = {(uint64_t)t->channels, t->node_h[level[i]], t->node_w[level[i]]};
        member_name(level[i], k[i], name);
        npz_write_array(w, name, 'f', 4, shape, 3, wt_packet_node(t, level[i], k[i]));
        len += (size_t)sprintf(text + len, "%s\n", name);
    }
    uint64_t tree_len = len;
    npz_write_array(w, "tree", 'u', 1, &tree_len, 1, text);
    coeff_meta_write(w, json);
}

wt_status wt_npz_save_packets(const char *path, const wt_packet_tree *t,
                              const unsigned char *basis, const wt_npz_meta *meta)
{
    const char *shown = strcmp(path, "-") == 0 ? "(stdout)" : path;
    if (wt_transform_class_of(meta->transform)->layout != WT_LAYOUT_PACKET ||
        meta->levels != t->params.levels ||
        meta->width != t->width || meta->height != t->height || meta->channels != t->channels)
        return wt_error_set(WT_ERR_INVALID, "%s: coefficients do not match their description",
                            shown);
    int *level = NULL;
    size_t *k = NULL, n = 0;
    wt_status st = list_leaves(t, basis, &level, &k, &n);
    char *json = st == WT_OK ? coeff_meta_json(meta) : NULL;
    char *text = json ? malloc(n * (WT_PACKET_MAX_LEVELS + 2) + 1) : NULL;
    zip_writer *w = text ? calloc(1, sizeof *w) : NULL;
    if (st == WT_OK && !w)
        st = wt_error_set(WT_ERR_NOMEM, "%s: out of memory", shown);
    wt_outfile out;
    if (st == WT_OK)
        st = wt_outfile_open(&out, path);
    if (st == WT_OK) {
        *w = (zip_writer){.fp = out.fp, .path = shown, .compress = meta->compress};
        write_members(w, t, level, k, n, text, json);
        zip_write_directory(w);
        if (w->error) {
            st = wt_error_set(WT_ERR_IO, "%s: %s", shown, strerror(w->error));
            wt_outfile_abort(&out);
        } else {
            st = wt_outfile_commit(&out);
        }
    }
    free(w);
    free(text);
    free(json);
    free(level);
    free(k);
    return st;
}

/* ---- reader ------------------------------------------------------------------ */

/* The "tree" member's text (NUL-terminated, malloc'ed). */
static wt_status read_tree_text(const zip_reader *r, const zip_directory *d, char **text)
{
    const zip_entry *m = zip_find(d, "tree");
    if (!m)
        return wt_error_set(WT_ERR_FORMAT, "%s: no member 'tree' (the leaves' paths)", r->name);
    uint8_t *buf = malloc(TREE_CAP + 1);
    npy_array a;
    wt_status st = buf ? npz_read_small(r, m, buf, TREE_CAP)
                       : wt_error_set(WT_ERR_NOMEM, "out of memory");
    if (st == WT_OK)
        st = npz_read_header(r, m, &a, buf, NPZ_HEADER_CAP);
    if (st == WT_OK && (a.kind != 'u' || a.itemsize != 1 || a.ndim != 1))
        st = wt_error_set(WT_ERR_FORMAT, "%s: member tree is not a uint8 text array", r->name);
    if (st == WT_OK)
        st = npz_check_data_len(r, m, &a);
    if (st != WT_OK) {
        free(buf);
        return st;
    }
    memmove(buf, buf + a.header_len, (size_t)a.data_len);
    buf[a.data_len] = '\0';
    *text = (char *)buf;
    return WT_OK;
}

/* The paths of the tree's lines (in place: newlines become NULs); "root" is "". */
static size_t split_paths(char *text, const char **paths, size_t cap)
{
    size_t n = 0;
    for (char *line = strtok(text, "\n"); line && n < cap; line = strtok(NULL, "\n"))
        paths[n++] = strcmp(line, ROOT_NAME) == 0 ? "" : line;
    return n;
}

/* The basis the tree member lists. */
static wt_status read_basis(const zip_reader *r, const zip_directory *d, int levels,
                            unsigned char *basis)
{
    char *text = NULL;
    const size_t cap = (size_t)1 << (2 * WT_PACKET_MAX_LEVELS);
    const char **paths = malloc(cap * sizeof *paths);
    wt_status st = paths ? read_tree_text(r, d, &text) : wt_error_set(WT_ERR_NOMEM, "out of memory");
    if (st == WT_OK) {
        size_t n = split_paths(text, paths, cap);
        st = wt_packet_basis_from_paths(levels, paths, n, basis);
        if (st != WT_OK) {
            char reason[256];
            snprintf(reason, sizeof reason, "%s", wt_error_message());
            st = wt_error_set(WT_ERR_FORMAT, "%s: its tree: %s", r->name, reason);
        }
    }
    free(text);
    free(paths);
    return st;
}

/* The tree the meta describes, allocated once its leaves fit the file. */
static wt_status tree_of_meta(const zip_reader *r, const wt_npz_meta *meta,
                              const unsigned char *basis, wt_packet_tree *t)
{
    wt_params p = {wt_wavelet_find(meta->wavelet), meta->mode, meta->method, meta->levels};
    wt_status st = wt_packet_plan(t, &p, meta->height, meta->width, meta->channels);
    if (st != WT_OK)
        return wt_error_prefix(WT_ERR_FORMAT, r->name);
    double leaves = 0.0;
    for (int l = 0; l <= meta->levels; l++)
        for (size_t k = 0; k < (size_t)1 << (2 * l); k++)
            leaves += basis[wt_packet_node_id(l, k)] == WT_PACKET_LEAF
                          ? (double)wt_packet_node_size(t, l)
                          : 0.0;
    if (leaves > (double)(r->content / 4))
        return wt_error_set(WT_ERR_FORMAT,
                            "%s: its leaves need more data than the file holds", r->name);
    return wt_packet_alloc(t, &p, meta->height, meta->width, meta->channels);
}

static wt_status read_leaves(const zip_reader *r, const zip_directory *d, wt_packet_tree *t,
                             const unsigned char *basis)
{
    wt_status st = WT_OK;
    for (int l = 0; st == WT_OK && l <= t->params.levels; l++)
        for (size_t k = 0; st == WT_OK && k < (size_t)1 << (2 * l); k++) {
            if (basis[wt_packet_node_id(l, k)] != WT_PACKET_LEAF)
                continue;
            char name[ZIP_NAME_CAP];
            uint64_t shape[3] = {(uint64_t)t->channels, t->node_h[l], t->node_w[l]};
            member_name(l, k, name);
            st = npz_read_array(r, d, name, 'f', shape, (uint8_t *)wt_packet_node(t, l, k));
        }
    return st;
}

/* Meta, basis and leaves of an open file. */
static wt_status read_packets(const zip_reader *r, const zip_directory *d, uint64_t max_pixels,
                              wt_packet_tree *t, unsigned char **basis, wt_npz_meta *meta)
{
    wt_status st = coeff_meta_read(r, d, meta);
    if (st == WT_OK)
        st = wt_check_dimensions(r->name, "coefficient file's", meta->width, meta->height,
                                 max_pixels);
    if (st == WT_OK && wt_transform_class_of(meta->transform)->layout != WT_LAYOUT_PACKET)
        st = wt_error_set(WT_ERR_FORMAT, "%s: does not hold wavelet packets", r->name);
    if (st == WT_OK && (meta->levels < 1 || meta->levels > WT_PACKET_MAX_LEVELS))
        st = wt_error_set(WT_ERR_FORMAT, "%s: a packet tree of %d levels (1 to %d)", r->name,
                          meta->levels, WT_PACKET_MAX_LEVELS);
    if (st == WT_OK) {
        *basis = malloc(wt_packet_node_count(meta->levels));
        st = *basis ? read_basis(r, d, meta->levels, *basis)
                    : wt_error_set(WT_ERR_NOMEM, "out of memory");
    }
    if (st == WT_OK)
        st = tree_of_meta(r, meta, *basis, t);
    if (st == WT_OK)
        st = read_leaves(r, d, t, *basis);
    return st;
}

wt_status wt_npz_load_packets(const char *path, const wt_load_options *opt, wt_packet_tree *t,
                              unsigned char **basis, wt_npz_meta *meta)
{
    uint64_t max_pixels = opt && opt->max_pixels ? opt->max_pixels : WT_DEFAULT_MAX_PIXELS;
    coeff_file f;
    memset(t, 0, sizeof *t);
    *basis = NULL;
    wt_status st = coeff_file_open(&f, path, max_pixels, NULL);
    if (st == WT_OK)
        st = read_packets(&f.r, f.d, max_pixels, t, basis, meta);
    coeff_file_close(&f);
    if (st != WT_OK) {
        wt_packet_free(t);
        free(*basis);
        *basis = NULL;
    }
    return st;
}

int wt_npz_is_packets(const char *path)
{
    wt_npz_meta meta;
    return coeff_meta_peek(path, &meta) &&
           wt_transform_class_of(meta.transform)->layout == WT_LAYOUT_PACKET;
}
