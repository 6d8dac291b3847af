/* Unit tests of the transform registry (src/transform.c and its modules):
 * lookup by name and kind, the name lists of messages and help, the hooks
 * every kind needs for its commands, the refusal message of a missing hook,
 * the consistency of each band-stack layout (index, name, mosaic cell), and
 * the volume transforms' plans, refusals and exact round trips, and a packet
 * tree's forward and basis in one call (wt_packet_decompose) on the CPU
 * engine. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wavetool.h"
#include "wavetool_hooks.h"

static int class_count(void)
{
    int n = 0;
    while (wt_transform_at(n))
        n++;
    return n;
}

static void lookup_by_name_and_kind(void **state)
{
    (void)state;
    assert_true(class_count() >= 3);
    for (int i = 0; wt_transform_at(i); i++) {
        const wt_transform_class *c = wt_transform_at(i);
        wt_transform t;
        assert_ptr_equal(wt_transform_find(c->name), c);
        assert_ptr_equal(wt_transform_class_of(c->kind), c);
        assert_int_equal(wt_transform_parse(c->name, &t), WT_OK);
        assert_int_equal(t, c->kind);
        assert_string_equal(wt_transform_name(c->kind), c->name);
    }
    assert_int_equal(wt_transform_find("swt")->kind, WT_TRANSFORM_SWT);
    assert_string_equal(wt_transform_at(0)->name, "dwt"); /* the default */
}

static void unknown_name_lists_the_registry(void **state)
{
    (void)state;
    wt_transform t = WT_TRANSFORM_STARLET;
    assert_null(wt_transform_find("packet?"));
    assert_int_equal(wt_transform_parse("packet?", &t), WT_ERR_INVALID);
    assert_int_equal(t, WT_TRANSFORM_STARLET);
    assert_string_equal(wt_error_message(), "unknown transform 'packet?' (dwt, swt, starlet, packet)");
    assert_string_equal(wt_transform_name((wt_transform)99), "?");
}

static void name_lists(void **state)
{
    (void)state;
    char buf[128];
    wt_transform_names(0, 0, ", ", " or ", buf, sizeof buf);
    assert_string_equal(buf, "dwt, swt, starlet or packet");
    wt_transform_names(WT_TPARAM_LAYERS, 0, ", ", " or ", buf, sizeof buf);
    assert_string_equal(buf, "swt or starlet");
    wt_transform_names(WT_TPARAM_BORDER, 0, ", ", " or ", buf, sizeof buf);
    assert_string_equal(buf, "starlet");
    wt_transform_names(0, WT_THOOK_DENOISE, ", ", NULL, buf, sizeof buf);
    assert_string_equal(buf, "dwt, swt, starlet, packet");
    wt_transform_names(0, 0, ", ", " or ", buf, 8); /* truncated, terminated */
    assert_string_equal(buf, "dwt, sw");
}

/* Every kind has what decompose, reconstruct, roundtrip, stats and bench use. */
static void every_kind_has_its_hooks(void **state)
{
    (void)state;
    for (int i = 0; wt_transform_at(i); i++) {
        const wt_transform_class *c = wt_transform_at(i);
        assert_non_null(c->help);
        assert_non_null(c->orientations);
        assert_int_equal(strlen(c->orientations), 4);
        assert_non_null(c->describe);
        assert_true((c->params & WT_TPARAM_WAVELET) || (c->wavelet_name && c->kernel_taps > 0));
        if (c->layout == WT_LAYOUT_PACKET)
            continue; /* packet trees: cli/packet.c's own layout */
        assert_non_null(c->max_level);
        assert_non_null(c->ref_name);
        if (c->layout != WT_LAYOUT_STACK)
            continue;
        assert_non_null(c->nbands);
        assert_non_null(c->band_index);
        assert_non_null(c->band_ref);
        assert_non_null(c->member_name);
        assert_non_null(c->mosaic_cell);
        assert_non_null(c->mosaic_grid);
        assert_non_null(c->bench_bytes);
        assert_non_null(c->ops);
    }
}

static void missing_hook_is_refused(void **state)
{
    (void)state;
    char buf[160];
    assert_null(wt_transform_refusal(wt_transform_find("dwt"), "denoise", WT_THOOK_DENOISE, buf,
                                     sizeof buf));
    assert_null(wt_transform_refusal(wt_transform_find("swt"), "denoise", WT_THOOK_DENOISE, buf,
                                     sizeof buf));
    assert_null(wt_transform_refusal(wt_transform_find("starlet"), "denoise", WT_THOOK_DENOISE,
                                     buf, sizeof buf));
    /* any kind without the hook: the message comes from its class */
    wt_transform_class lacking = *wt_transform_find("swt");
    lacking.name = "lacking";
    lacking.denoise = NULL;
    assert_false(wt_transform_has(&lacking, WT_THOOK_DENOISE));
    assert_string_equal(wt_transform_refusal(&lacking, "denoise", WT_THOOK_DENOISE, buf,
                                             sizeof buf),
                        "denoise does not support --transform lacking (it takes dwt, swt, starlet or "
                        "packet)");
}

/* A stack's bands: index(band_ref(i)) == i for details, distinct member names, distinct
 * mosaic cells inside the grid. */
static void check_stack_layout(const wt_uparams *p)
{
    const wt_transform_class *c = wt_transform_class_of(p->transform);
    int nb = c->nbands(p);
    size_t rows, cols;
    char names[64][16];
    int used[64] = {0};
    assert_int_equal(nb, wt_ustack_bands(p));
    assert_true(nb <= 64);
    c->mosaic_grid(p, &rows, &cols);
    for (int i = 0; i < nb; i++) {
        wt_band_ref r;
        if (c->band_ref(p, i, &r)) /* a detail band */
            assert_int_equal(c->band_index(p, r.level, r.band), i);
        c->member_name(p, i, names[i], sizeof names[i]);
        for (int k = 0; k < i; k++)
            assert_string_not_equal(names[k], names[i]);
        size_t row, col;
        c->mosaic_cell(p, i, &row, &col);
        assert_true(row < rows && col < cols && row * cols + col < 64);
        assert_int_equal(used[row * cols + col]++, 0);
    }
}

static void stack_layouts_are_consistent(void **state)
{
    (void)state;
    const wt_wavelet *db2 = wt_wavelet_find("db2");
    for (int L = 1; L <= 4; L++) {
        wt_uparams swt = {WT_TRANSFORM_SWT, db2, L, 0, 0, 0, WT_BORDER_MIRROR};
        check_stack_layout(&swt);
        swt.all_approx = 1;
        check_stack_layout(&swt);
        wt_uparams starlet = {WT_TRANSFORM_STARLET, NULL, L, 0, 0, 0, WT_BORDER_MIRROR};
        check_stack_layout(&starlet);
    }
    char name[16];
    wt_uparams swt = {WT_TRANSFORM_SWT, db2, 2, 0, 0, 1, WT_BORDER_MIRROR};
    wt_transform_class_of(swt.transform)->member_name(&swt, 0, name, sizeof name);
    assert_string_equal(name, "cA");
    wt_transform_class_of(swt.transform)->member_name(&swt, 1, name, sizeof name);
    assert_string_equal(name, "cH2");
    wt_transform_class_of(swt.transform)->member_name(&swt, 7, name, sizeof name);
    assert_string_equal(name, "cA1");
    wt_uparams starlet = {WT_TRANSFORM_STARLET, NULL, 2, 0, 0, 0, WT_BORDER_MIRROR};
    wt_transform_class_of(starlet.transform)->member_name(&starlet, 2, name, sizeof name);
    assert_string_equal(name, "w2");
}

/* ---- volumes (src/transforms/transform_volume.c) ------------------------------ */

static wt_volume_spec volume_spec(const char *kind, const char *wavelet, int levels,
                                  const char *axes)
{
    wt_volume_spec s = {.transform = wt_transform_find(kind)->kind,
                        .params = {wt_wavelet_find(wavelet), WT_MODE_SYMMETRIC, WT_METHOD_AUTO,
                                   levels}};
    s.uparams = (wt_uparams){s.transform, s.params.wavelet, levels, 0, 0, 0, WT_BORDER_MIRROR};
    assert_int_equal(wt_volume_parse_axes(axes, s.axes, &s.naxes), WT_OK);
    wt_params_resolve(&s.params);
    return s;
}

static void volume_axes_are_parsed(void **state)
{
    (void)state;
    int axes[3], n = 0;
    assert_int_equal(wt_volume_parse_axes("2,0", axes, &n), WT_OK);
    assert_int_equal(n, 2);
    assert_int_equal(axes[0], 2);
    assert_int_equal(axes[1], 0);
    static const char *const bad[] = {"", "0,0", "3", "0,", ",1", "0,1,2,0", "a", "01", "-1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(wt_volume_parse_axes(bad[i], axes, &n), WT_ERR_INVALID);
}

static void volume_plans_follow_wavedecn(void **state)
{
    (void)state;
    wt_volume_spec s = volume_spec("dwt", "haar", 2, "0,1,2");
    const size_t shape[3] = {5, 8, 7};
    wt_vcoeffs c;
    assert_int_equal(wt_volume_plan(&s, shape, 2, &c), WT_OK);
    assert_int_equal(c.nbands, 1 + 2 * 7);
    assert_string_equal(c.band[0].key, "aaa");
    assert_int_equal(c.band[0].level, 2);
    assert_int_equal(c.band[0].shape[0], 2); /* 5 -> 3 -> 2 */
    assert_string_equal(c.band[1].key, "aad");
    assert_string_equal(c.band[c.nbands - 1].key, "ddd");
    assert_int_equal(c.band[c.nbands - 1].level, 1);
    assert_int_equal(c.band[c.nbands - 1].shape[2], 4); /* 7 -> 4 */
    s = volume_spec("swt", "db2", 2, "1");
    s.uparams.all_approx = 1;
    assert_int_equal(wt_volume_plan(&s, shape, 1, &c), WT_OK);
    assert_int_equal(c.nbands, 1 + 1 + 1 + 1); /* a2, d2, a1, d1 */
    assert_string_equal(c.band[2].key, "a");
    s = volume_spec("starlet", "haar", 3, "0,1,2");
    assert_int_equal(wt_volume_plan(&s, shape, 1, &c), WT_OK);
    assert_string_equal(c.band[0].key, "c");
    assert_string_equal(c.band[1].key, "w");
    assert_int_equal(c.band[1].level, 3);
    /* the JPEG 2000 kinds split a 1-sample axis into 1 + 0: empty bands */
    s = volume_spec("dwt", "cdf97", 2, "0,1,2");
    assert_int_equal(wt_volume_plan(&s, (const size_t[3]){3, 1, 9}, 2, &c), WT_OK);
    assert_int_equal(c.band[c.nbands - 1].shape[1], 0);
}

static void volume_plans_refuse(void **state)
{
    (void)state;
    wt_volume_spec s = volume_spec("dwt", "haar", 1, "0");
    wt_vcoeffs c;
    assert_int_equal(wt_volume_plan(&s, (const size_t[3]){0, 4, 4}, 1, &c), WT_ERR_INVALID);
    assert_int_equal(wt_volume_plan(&s, (const size_t[3]){4, 4, 4}, 0, &c), WT_ERR_INVALID);
    s.params.levels = WT_MAX_LEVELS + 1;
    assert_int_equal(wt_volume_plan(&s, (const size_t[3]){4, 4, 4}, 1, &c), WT_ERR_INVALID);
    s = volume_spec("dwt", "haar", 1, "0");
    s.naxes = 0;
    assert_int_equal(wt_volume_plan(&s, (const size_t[3]){4, 4, 4}, 1, &c), WT_ERR_INVALID);
    const size_t huge[3] = {(size_t)1 << 30, (size_t)1 << 30, (size_t)1 << 30};
    s = volume_spec("swt", "haar", 8, "0,1,2");
    assert_int_equal(wt_volume_plan(&s, huge, 64, &c), WT_ERR_LIMIT);
}

/* wt_volume_forward then wt_volume_inverse of integer samples in a
 * (shape, 2 channels) volume give the samples back. */
static void check_volume_round_trip(const wt_volume_spec *s, const size_t shape[3],
                                    const char *what)
{
    const size_t n = 2 * shape[0] * shape[1] * shape[2];
    float *x = malloc(n * sizeof *x), *back = malloc(n * sizeof *back);
    assert_non_null(x);
    assert_non_null(back);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)((uint32_t)(i * 2654435761u) >> 24); /* 0..255 */
    wt_vcoeffs c;
    assert_int_equal(wt_volume_forward(s, x, shape, 2, 1, &c), WT_OK);
    assert_int_equal(wt_volume_inverse(s, &c, back, 2), WT_OK);
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(back[i] - x[i]) < 1e-2f))
            fail_msg("%s: sample %zu is %g, not %g", what, i, back[i], x[i]);
    wt_vcoeffs_free(&c);
    free(x);
    free(back);
}

/* Forward and inverse give integer samples back for each kind and axes. */
static void volume_round_trips(void **state)
{
    (void)state;
    static const char *const kinds[][3] = {{"dwt", "db3", "0,1,2"},    {"dwt", "legall53", "2,0"},
                                           {"dwt", "cdf97", "1"},       {"swt", "sym4", "0,1,2"},
                                           {"swt", "haar", "1,2"},      {"starlet", "haar", "0,2"}};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        const wt_volume_spec s = volume_spec(kinds[k][0], kinds[k][1], 2, kinds[k][2]);
        check_volume_round_trip(&s, (const size_t[3]){6, 9, 7}, kinds[k][1]);
    }
}

/* Lines shorter than the filter: the approximations grow from level to
 * level ((n + F - 1) / 2), and the JPEG 2000 kinds leave empty bands. */
static void volume_short_lines_round_trip(void **state)
{
    (void)state;
    static const struct {
        const char *wavelet, *axes;
        wt_mode mode;
        size_t shape[3];
    } cases[] = {{"sym4", "0", WT_MODE_CONSTANT, {3, 1, 9}},
                 {"coif1", "0", WT_MODE_ANTISYMMETRIC, {1, 5, 7}},
                 {"db4", "0,1,2", WT_MODE_REFLECT, {2, 3, 1}},
                 {"cdf97", "1,2", WT_MODE_REFLECT, {3, 1, 9}},
                 {"cdf97", "0,1,2", WT_MODE_SYMMETRIC, {9, 16, 2}}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        wt_volume_spec s = volume_spec("dwt", cases[k].wavelet, 3, cases[k].axes);
        s.params.mode = cases[k].mode;
        check_volume_round_trip(&s, cases[k].shape, cases[k].wavelet);
    }
}

/* wt_packet_decompose on the CPU engine: every node and the basis and
 * costs of wt_packet_forward + wt_packet_choose; a level:N basis deeper than
 * the tree refused before any work. */
static void packet_decompose_is_forward_and_choose(void **state)
{
    (void)state;
    const wt_params p = {wt_wavelet_find("db2"), WT_MODE_SYMMETRIC, WT_METHOD_CONV, 2};
    const size_t h = 21, w = 34, plane = 2 * h * w, n = wt_packet_node_count(2);
    const wt_packet_rule best = {WT_BASIS_BEST, 0}, deep = {WT_BASIS_LEVEL, 3};
    const wt_packet_cost cost = {WT_COST_NORM, 1.5};
    wt_engine *e = NULL;
    wt_packet_tree a = {0}, b = {0};
    float *x = malloc(plane * sizeof *x);
    unsigned char ba[21], bb[21];
    double ca[21], cb[21];
    assert_int_equal(n, 21);
    assert_non_null(x);
    for (size_t i = 0; i < plane; i++)
        x[i] = (float)((i * 7919u) % 251) - 125.0f + (i % 13 == 0 ? 300.0f : 0.0f);
    assert_int_equal(wt_engine_open(&e, "cpu"), WT_OK);
    assert_int_equal(wt_packet_alloc(&a, &p, h, w, 2), WT_OK);
    assert_int_equal(wt_packet_alloc(&b, &p, h, w, 2), WT_OK);
    assert_int_equal(wt_packet_decompose(e, &a, x, &best, &cost, ba, ca, 0), WT_OK);
    assert_int_equal(wt_packet_forward(e, &b, x), WT_OK);
    assert_int_equal(wt_packet_choose(&b, &best, &cost, bb, cb), WT_OK);
    assert_memory_equal(a.data, b.data, a.level_at[3] * sizeof *a.data);
    assert_memory_equal(ba, bb, n);
    assert_memory_equal(ca, cb, sizeof ca);
    assert_int_equal(wt_packet_decompose(e, &a, x, &deep, &cost, ba, NULL, 0), WT_ERR_INVALID);
    assert_non_null(strstr(wt_error_message(), "level:3 is deeper than the 2 levels"));
    wt_packet_free(&a);
    wt_packet_free(&b);
    wt_engine_close(e);
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lookup_by_name_and_kind),
        cmocka_unit_test(unknown_name_lists_the_registry),
        cmocka_unit_test(name_lists),
        cmocka_unit_test(every_kind_has_its_hooks),
        cmocka_unit_test(missing_hook_is_refused),
        cmocka_unit_test(stack_layouts_are_consistent),
        cmocka_unit_test(volume_axes_are_parsed),
        cmocka_unit_test(volume_plans_follow_wavedecn),
        cmocka_unit_test(volume_plans_refuse),
        cmocka_unit_test(volume_round_trips),
        cmocka_unit_test(volume_short_lines_round_trip),
        cmocka_unit_test(packet_decompose_is_forward_and_choose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
