/* The JSON writer: see json.h. */
#include "json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wt_json_init(wt_json *j, int spaced)
{
    memset(j, 0, sizeof *j);
    j->spaced = spaced;
}

static int reserve(wt_json *j, size_t more)
{
    if (j->failed)
        return 0;
    if (j->len + more + 1 <= j->cap)
        return 1;
    size_t cap = (j->len + more + 1) * 2;
    char *grown = realloc(j->data, cap);
    if (!grown) {
        j->failed = 1;
        return 0;
    }
    j->data = grown;
    j->cap = cap;
    return 1;
}

static void put(wt_json *j, const char *text, size_t n)
{
    if (!reserve(j, n))
        return;
    memcpy(j->data + j->len, text, n);
    j->len += n;
    j->data[j->len] = '\0';
}

static void puts_text(wt_json *j, const char *text)
{
    put(j, text, strlen(text));
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put_format(wt_json *j, const char *fmt, ...)
{
    char small[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        j->failed = 1;
    } else if ((size_t)n < sizeof small) {
        put(j, small, (size_t)n);
    } else if (reserve(j, (size_t)n)) {
        va_start(ap, fmt);
        vsnprintf(j->data + j->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
        j->len += (size_t)n;
    }
}

/* The separator before a key or a value: none after a key or first in a container. */
static void before_item(wt_json *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth > 0 && j->items[j->depth - 1])
        puts_text(j, j->spaced ? ", " : ",");
    if (j->depth > 0)
        j->items[j->depth - 1] = 1;
}

static void open_container(wt_json *j, char bracket)
{
    before_item(j);
    if (j->depth == WT_JSON_MAX_DEPTH) {
        j->failed = 1;
        return;
    }
    j->items[j->depth++] = 0;
    put(j, &bracket, 1);
}

static void close_container(wt_json *j, char bracket)
{
    if (j->depth == 0 || j->after_key) {
        j->failed = 1;
        return;
    }
    j->depth--;
    put(j, &bracket, 1);
}

void wt_json_begin_object(wt_json *j)
{
    open_container(j, '{');
}

void wt_json_end_object(wt_json *j)
{
    close_container(j, '}');
}

void wt_json_begin_array(wt_json *j)
{
    open_container(j, '[');
}

void wt_json_end_array(wt_json *j)
{
    close_container(j, ']');
}

/* Length of the valid UTF-8 sequence at @p p (shortest form, no surrogates,
 * at most U+10FFFF), or 0. */
static int utf8_length(const unsigned char *p)
{
    int n = p[0] < 0x80 ? 1 : p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : (p[0] & 0xf0) == 0xe0 ? 3
            : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((n == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0))) ||
        (n == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))))
        return 0;
    return n;
}

/* @p s as a string literal: quotes and backslashes escaped, control
 * characters and DEL as \u00XX, bytes that are not UTF-8 as U+FFFD. */
static void quoted(wt_json *j, const char *s)
{
    puts_text(j, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = utf8_length(p);
        if (*p == '"' || *p == '\\')
            put_format(j, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            put_format(j, "\\u%04x", *p);
        else if (!n)
            puts_text(j, "\\ufffd");
        else
            put(j, (const char *)p, (size_t)n);
        p += n ? n : 1;
    }
    puts_text(j, "\"");
}

int wt_json_utf8_valid(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = utf8_length(p);
        if (!n)
            return 0;
        p += n;
    }
    return 1;
}

void wt_json_key(wt_json *j, const char *key)
{
    before_item(j);
    quoted(j, key);
    puts_text(j, j->spaced ? ": " : ":");
    j->after_key = 1;
}

void wt_json_string(wt_json *j, const char *s)
{
    before_item(j);
    quoted(j, s);
}

void wt_json_int(wt_json *j, long long v)
{
    before_item(j);
    put_format(j, "%lld", v);
}

void wt_json_uint(wt_json *j, unsigned long long v)
{
    before_item(j);
    put_format(j, "%llu", v);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
void wt_json_number(wt_json *j, const char *format, double v)
{
    before_item(j);
    if (!isfinite(v)) {
        puts_text(j, "null");
        return;
    }
    char text[512];
    int n = snprintf(text, sizeof text, format, v);
    if (n < 0 || (size_t)n >= sizeof text)
        j->failed = 1;
    else
        put(j, text, (size_t)n);
}
#pragma GCC diagnostic pop

void wt_json_bool(wt_json *j, int v)
{
    before_item(j);
    puts_text(j, v ? "true" : "false");
}

void wt_json_null(wt_json *j)
{
    before_item(j);
    puts_text(j, "null");
}

void wt_json_newline(wt_json *j)
{
    if (j->depth != 0 || j->after_key)
        j->failed = 1;
    puts_text(j, "\n");
}

void wt_json_key_string(wt_json *j, const char *key, const char *s)
{
    wt_json_key(j, key);
    wt_json_string(j, s);
}

void wt_json_key_int(wt_json *j, const char *key, long long v)
{
    wt_json_key(j, key);
    wt_json_int(j, v);
}

void wt_json_key_uint(wt_json *j, const char *key, unsigned long long v)
{
    wt_json_key(j, key);
    wt_json_uint(j, v);
}

void wt_json_key_number(wt_json *j, const char *key, const char *format, double v)
{
    wt_json_key(j, key);
    wt_json_number(j, format, v);
}

char *wt_json_finish(wt_json *j)
{
    if (!j->failed && !j->data)
        puts_text(j, "");
    if (j->failed || j->depth != 0) {
        wt_json_discard(j);
        return NULL;
    }
    char *text = j->data;
    j->data = NULL;
    return text;
}

void wt_json_discard(wt_json *j)
{
    free(j->data);
    j->data = NULL;
    j->len = j->cap = 0;
}
