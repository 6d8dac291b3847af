/* The transform registry: one row per kind, each the const class its module
 * (src/transform_NAME.c) defines. Adding a kind is one module and one row. */
#include <stdio.h>
#include <string.h>

#include "transform.h"

static const wt_transform_class *const registry[] = {
    &wt_transform_dwt,
    &wt_transform_swt,
    &wt_transform_starlet,
    &wt_transform_packet,
};
#define NCLASSES (int)(sizeof registry / sizeof registry[0])

const wt_transform_class *wt_transform_at(int i)
{
    return i >= 0 && i < NCLASSES ? registry[i] : NULL;
}

const wt_transform_class *wt_transform_class_of(wt_transform t)
{
    for (int i = 0; i < NCLASSES; i++)
        if (registry[i]->kind == t)
            return registry[i];
    return registry[0];
}

int wt_transform_has(const wt_transform_class *c, unsigned hooks)
{
    return !(hooks & WT_THOOK_DENOISE) || c->denoise;
}

/* Appends @p s to @p buf (NUL-terminated, @p size bytes), truncating. */
static void append(char *buf, size_t size, const char *s)
{
    size_t n = strlen(buf);
    if (n < size)
        snprintf(buf + n, size - n, "%s", s);
}

void wt_transform_names(unsigned params, unsigned hooks, const char *sep, const char *last,
                        char *buf, size_t size)
{
    const wt_transform_class *match[NCLASSES];
    int n = 0;
    for (int i = 0; i < NCLASSES; i++)
        if ((registry[i]->params & params) == params && wt_transform_has(registry[i], hooks))
            match[n++] = registry[i];
    if (size)
        buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i)
            append(buf, size, i == n - 1 && last ? last : sep);
        append(buf, size, match[i]->name);
    }
}

const wt_transform_class *wt_transform_find(const char *name)
{
    for (int i = 0; i < NCLASSES; i++)
        if (strcmp(name, registry[i]->name) == 0)
            return registry[i];
    char names[128];
    wt_transform_names(0, 0, ", ", NULL, names, sizeof names);
    wt_error_set(WT_ERR_INVALID, "unknown transform '%s' (%s)", name, names);
    return NULL;
}

const char *wt_transform_refusal(const wt_transform_class *c, const char *command,
                                 unsigned hooks, char *buf, size_t size)
{
    if (wt_transform_has(c, hooks))
        return NULL;
    char names[128];
    wt_transform_names(0, hooks, ", ", " or ", names, sizeof names);
    snprintf(buf, size, "%s does not support --transform %s (it takes %s)", command, c->name,
             names);
    return buf;
}

/* ---- the public API over the registry ------------------------------------------ */

wt_status wt_transform_parse(const char *name, wt_transform *t)
{
    const wt_transform_class *c = wt_transform_find(name);
    if (c)
        *t = c->kind;
    return c ? WT_OK : WT_ERR_INVALID;
}

const char *wt_transform_name(wt_transform t)
{
    for (int i = 0; i < NCLASSES; i++)
        if (registry[i]->kind == t)
            return registry[i]->name;
    return "?";
}

/* ---- shared by the modules ------------------------------------------------------- */

const wt_transform_class *wt_transform_of_denoise(const wt_denoise_options *o)
{
    return o->packet    ? &wt_transform_packet
           : o->swt     ? &wt_transform_swt
           : o->starlet ? &wt_transform_starlet
                        : &wt_transform_dwt;
}

void wt_denoise_set_transform(wt_denoise_options *o, const wt_transform_class *c)
{
    o->swt = c == &wt_transform_swt;
    o->packet = c == &wt_transform_packet;
    o->starlet = c == &wt_transform_starlet;
}

void wt_tband_ref_name(const wt_band_ref *r, char *buf, size_t size)
{
    static const char letters[] = "AHVD";
    snprintf(buf, size, "c%c%d", letters[r->band & 3], r->level);
}

int wt_tfloor_log2(size_t n)
{
    int k = 0;
    while (n > 1) {
        n >>= 1;
        k++;
    }
    return k;
}
