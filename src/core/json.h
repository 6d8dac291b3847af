/* The one JSON writer: every JSON text the library and the program print (the
 * coefficient file's meta, reports, stats, sigma, wavelets, bench) is built
 * here, so each is valid JSON whatever the values: strings escaped (quotes,
 * backslashes, control characters as \u00XX, bytes that are not UTF-8 as
 * U+FFFD), numbers in the caller's printf format, NaN and infinities as null.
 * A streaming writer into a growing buffer: values, keys and containers in
 * order, separators by itself ("," and ":", or ", " and ": " when spaced).
 * Declared for the program through wavetool_hooks.h (not exported). */
#ifndef WT_JSON_H
#define WT_JSON_H

#include <stddef.h>

#define WT_JSON_MAX_DEPTH 16

typedef struct wt_json {
    char *data; /* the text so far, NUL-terminated; owned until wt_json_finish */
    size_t len, cap;
    int failed;  /* out of memory, or containers nested too deep or unbalanced */
    int spaced;  /* ", " and ": " between items (the meta's and bench's style) */
    int depth;   /* containers open */
    int after_key;
    unsigned char items[WT_JSON_MAX_DEPTH]; /* an item written in each open container */
} wt_json;

/* An empty writer; @p spaced: ", " and ": " rather than "," and ":". */
void wt_json_init(wt_json *j, int spaced);
void wt_json_begin_object(wt_json *j);
void wt_json_end_object(wt_json *j);
void wt_json_begin_array(wt_json *j);
void wt_json_end_array(wt_json *j);
/* A key of the open object; its value comes next. */
void wt_json_key(wt_json *j, const char *key);
void wt_json_string(wt_json *j, const char *s);
void wt_json_int(wt_json *j, long long v);
void wt_json_uint(wt_json *j, unsigned long long v);
/* @p v in @p format (one double conversion: "%.10g", "%.3f"); not finite: null. */
void wt_json_number(wt_json *j, const char *format, double v);
void wt_json_bool(wt_json *j, int v);
void wt_json_null(wt_json *j);
/* A line end after a top-level value: JSON lines. */
void wt_json_newline(wt_json *j);

/* "key": value in one call. */
void wt_json_key_string(wt_json *j, const char *key, const char *s);
void wt_json_key_int(wt_json *j, const char *key, long long v);
void wt_json_key_uint(wt_json *j, const char *key, unsigned long long v);
void wt_json_key_number(wt_json *j, const char *key, const char *format, double v);

/* 1 when @p s is valid UTF-8 (shortest forms, no surrogates, at most U+10FFFF). */
int wt_json_utf8_valid(const char *s);

/* The text (the caller frees it), or NULL when the writer failed (freed). */
char *wt_json_finish(wt_json *j);
/* Free the text of a writer not finished. */
void wt_json_discard(wt_json *j);

#endif
