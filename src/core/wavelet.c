/* Wavelet lookup, modes, methods and the shape rules of PyWavelets. */
#include <string.h>

#include "wavelet_table.h"
#include "wavetool.h"
#include "wavetool_hooks.h"

size_t wt_wavelet_count(void)
{
    return wt_wavelet_table_len;
}

const wt_wavelet *wt_wavelet_at(size_t i)
{
    return i < wt_wavelet_table_len ? &wt_wavelet_table[i] : NULL;
}

const wt_wavelet *wt_wavelet_find(const char *name)
{
    for (size_t i = 0; i < wt_wavelet_table_len; i++)
        if (strcmp(wt_wavelet_table[i].name, name) == 0)
            return &wt_wavelet_table[i];
    return NULL;
}

size_t wt_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    size_t prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb];
}

const char *wt_wavelet_suggest(const char *name)
{
    const char *best = wt_wavelet_table[0].name;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < wt_wavelet_table_len; i++) {
        size_t d = wt_edit_distance(name, wt_wavelet_table[i].name);
        if (d < best_d) {
            best_d = d;
            best = wt_wavelet_table[i].name;
        }
    }
    return best;
}

static const char *const mode_names[WT_MODE_COUNT] = {
    "zero", "constant", "symmetric", "reflect", "periodic",
    "smooth", "antisymmetric", "antireflect", "periodization",
};

const char *wt_mode_name(wt_mode mode)
{
    return (unsigned)mode < WT_MODE_COUNT ? mode_names[mode] : "?";
}

wt_status wt_mode_parse(const char *name, wt_mode *mode)
{
    for (int m = 0; m < WT_MODE_COUNT; m++)
        if (strcmp(name, mode_names[m]) == 0) {
            *mode = (wt_mode)m;
            return WT_OK;
        }
    return wt_error_set(WT_ERR_INVALID,
                        "unknown mode '%s' (zero, constant, symmetric, reflect, periodic, "
                        "smooth, antisymmetric, antireflect, periodization)",
                        name);
}

static const char *const method_names[] = {"auto", "conv", "lifting"};

const char *wt_method_name(wt_method method)
{
    return (unsigned)method <= WT_METHOD_LIFTING ? method_names[method] : "?";
}

wt_status wt_method_parse(const char *name, wt_method *method)
{
    for (int m = 0; m <= WT_METHOD_LIFTING; m++)
        if (strcmp(name, method_names[m]) == 0) {
            *method = (wt_method)m;
            return WT_OK;
        }
    return wt_error_set(WT_ERR_INVALID, "unknown method '%s' (auto, conv, lifting)", name);
}

wt_status wt_params_resolve(wt_params *p)
{
    const wt_wavelet *w = p->wavelet;
    if (!w)
        return wt_error_set(WT_ERR_INVALID, "no wavelet given");
    if ((unsigned)p->mode >= WT_MODE_COUNT)
        return wt_error_set(WT_ERR_INVALID, "invalid mode");
    if (p->levels < 0 || p->levels > WT_MAX_LEVELS)
        return wt_error_set(WT_ERR_INVALID, "levels must be between 0 and %d", WT_MAX_LEVELS);
    if (w->kind == WT_KIND_JPEG2000 && p->mode != WT_MODE_SYMMETRIC &&
        p->mode != WT_MODE_REFLECT && p->mode != WT_MODE_PERIODIZATION)
        return wt_error_set(WT_ERR_INVALID,
                            "wavelet %s supports modes symmetric (JPEG 2000 whole-sample "
                            "symmetric extension; reflect is the same) and periodization, "
                            "not %s",
                            w->name, wt_mode_name(p->mode));
    if (p->method == WT_METHOD_AUTO)
        p->method = w->kind == WT_KIND_JPEG2000 ? WT_METHOD_LIFTING : WT_METHOD_CONV;
    if (p->method == WT_METHOD_LIFTING && !w->lifting)
        return wt_error_set(WT_ERR_INVALID,
                            "wavelet %s has no lifting scheme (use --method conv; "
                            "'wavetool wavelets' lists those with lifting)",
                            w->name);
    if (p->method == WT_METHOD_CONV && w->integer)
        return wt_error_set(WT_ERR_INVALID,
                            "wavelet %s is integer lifting by definition; "
                            "use --method lifting or auto",
                            w->name);
    return WT_OK;
}

size_t wt_coeff_len(size_t n, const wt_wavelet *w, wt_mode mode, int high)
{
    if (mode == WT_MODE_PERIODIZATION)
        return (n + 1) / 2;
    if (w->kind == WT_KIND_JPEG2000)
        return high ? n / 2 : (n + 1) / 2;
    return (n + (size_t)w->filter_len - 1) / 2;
}

static int max_level_1d(size_t n, const wt_wavelet *w)
{
    if (w->kind == WT_KIND_JPEG2000) {
        int l = 0; /* non-expansive: halve until one sample is left */
        while (n > 1) {
            n = (n + 1) / 2;
            l++;
        }
        return l;
    }
    size_t f = (size_t)w->filter_len;
    if (f <= 1 || n < f - 1)
        return 0;
    size_t q = n / (f - 1);
    int l = 0;
    while (q >>= 1)
        l++;
    return l;
}

int wt_max_level(size_t h, size_t w, const wt_wavelet *wavelet)
{
    int a = max_level_1d(h, wavelet), b = max_level_1d(w, wavelet);
    int l = a < b ? a : b;
    return l > WT_MAX_LEVELS ? WT_MAX_LEVELS : l;
}
