/* Unit tests of the transform registry (src/transform.c and its modules):
 * lookup by name and kind, the name lists of messages and help, the hooks
 * every kind needs for its commands, the refusal message of a missing hook,
 * and the consistency of each band-stack layout (index, name, mosaic cell). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
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
    wt_transform_names(WT_TPARAM_BASIS, WT_THOOK_BANDS, ", ", NULL, buf, sizeof buf);
    assert_string_equal(buf, ""); /* packets take no band figures */
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
        if (!wt_transform_has(c, WT_THOOK_BANDS))
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
    const char *msg = wt_transform_refusal(wt_transform_find("packet"), "stats", WT_THOOK_BANDS,
                                           buf, sizeof buf);
    assert_non_null(msg);
    assert_string_equal(msg, "stats does not support --transform packet (it takes dwt, swt or "
                             "starlet)");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lookup_by_name_and_kind),
        cmocka_unit_test(unknown_name_lists_the_registry),
        cmocka_unit_test(name_lists),
        cmocka_unit_test(every_kind_has_its_hooks),
        cmocka_unit_test(missing_hook_is_refused),
        cmocka_unit_test(stack_layouts_are_consistent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
