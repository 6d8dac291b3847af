/* Unit tests of the JSON writer (src/json.c, through wavetool_hooks.h): the
 * two separator styles, nesting, string escaping (quotes, backslashes,
 * control characters, bytes that are not UTF-8), numbers in the caller's
 * format and non-finite numbers as null, and misuse reported as failure. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wavetool.h"
#include "wavetool_hooks.h"

/* The text of @p j, checked against @p want, freed. */
static void expect_text(wt_json *j, const char *want)
{
    char *text = wt_json_finish(j);
    assert_non_null(text);
    assert_string_equal(text, want);
    free(text);
}

static void test_compact_and_spaced(void **state)
{
    (void)state;
    for (int spaced = 0; spaced <= 1; spaced++) {
        wt_json j;
        wt_json_init(&j, spaced);
        wt_json_begin_object(&j);
        wt_json_key_int(&j, "a", -3);
        wt_json_key(&j, "b");
        wt_json_begin_array(&j);
        wt_json_uint(&j, 18446744073709551615ull);
        wt_json_bool(&j, 1);
        wt_json_null(&j);
        wt_json_begin_object(&j);
        wt_json_end_object(&j);
        wt_json_end_array(&j);
        wt_json_end_object(&j);
        wt_json_newline(&j);
        expect_text(&j, spaced ? "{\"a\": -3, \"b\": [18446744073709551615, true, null, {}]}\n"
                               : "{\"a\":-3,\"b\":[18446744073709551615,true,null,{}]}\n");
    }
}

static void test_string_escapes(void **state)
{
    (void)state;
    wt_json j;
    wt_json_init(&j, 0);
    wt_json_begin_array(&j);
    wt_json_string(&j, "q\"b\\s/");
    wt_json_string(&j, "\t\n\x01\x1f\x7f");
    wt_json_string(&j, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");       /* valid UTF-8 */
    wt_json_string(&j, "a\xff" "b\xc0\xaf" "c\xed\xa0\x80" "d\xe2\x82"); /* not UTF-8 */
    wt_json_end_array(&j);
    expect_text(&j, "[\"q\\\"b\\\\s/\",\"\\u0009\\u000a\\u0001\\u001f\\u007f\","
                    "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\","
                    "\"a\\ufffdb\\ufffd\\ufffdc\\ufffd\\ufffd\\ufffdd\\ufffd\\ufffd\"]");
    assert_true(wt_json_utf8_valid("caf\xc3\xa9"));
    assert_false(wt_json_utf8_valid("caf\xe9"));
}

static void test_numbers(void **state)
{
    (void)state;
    wt_json j;
    wt_json_init(&j, 0);
    wt_json_begin_array(&j);
    wt_json_number(&j, "%.10g", 0.1);
    wt_json_number(&j, "%.3f", 2.0 / 3.0);
    wt_json_number(&j, "%.0f", 1e6);
    wt_json_number(&j, "%.10g", NAN);
    wt_json_number(&j, "%.10g", -NAN);
    wt_json_number(&j, "%.2f", INFINITY);
    wt_json_number(&j, "%.2f", -INFINITY);
    wt_json_end_array(&j);
    expect_text(&j, "[0.1,0.667,1000000,null,null,null,null]");
}

static void test_misuse_fails(void **state)
{
    (void)state;
    wt_json j;
    wt_json_init(&j, 0);
    wt_json_begin_object(&j); /* never closed */
    assert_null(wt_json_finish(&j));
    wt_json_init(&j, 0);
    wt_json_end_array(&j); /* nothing open */
    assert_null(wt_json_finish(&j));
    wt_json_init(&j, 0);
    wt_json_begin_object(&j);
    wt_json_key(&j, "dangling");
    wt_json_end_object(&j); /* a key without its value */
    assert_null(wt_json_finish(&j));
    wt_json_init(&j, 0);
    for (int i = 0; i <= WT_JSON_MAX_DEPTH; i++)
        wt_json_begin_array(&j);
    assert_null(wt_json_finish(&j));
    wt_json_init(&j, 0);
    expect_text(&j, ""); /* nothing written: the empty text */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compact_and_spaced),
        cmocka_unit_test(test_string_escapes),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_misuse_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
