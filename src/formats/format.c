/* The format registry (model: libvips' foreign classes): one row per codec,
 * each with its name, extensions, sniffer, decoder, encoder and what it holds.
 * Extension lookup, sniffing, help text and messages all read this table. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <strings.h>

#include "format.h"
#include "wavetool_hooks.h"

/* Row i is wt_file_format i; the named ones first, at their enum values. */
static const wt_codec *const codecs[] = {
    [WT_FORMAT_PNG] = &wt_codec_png,
    [WT_FORMAT_JPEG] = &wt_codec_jpeg,
    [WT_FORMAT_NPZ] = &wt_codec_npz,
    &wt_codec_tiff,
    &wt_codec_npy,
    &wt_codec_pnm,
};
#define CODEC_ROWS ((int)(sizeof codecs / sizeof codecs[0]))

int wt_format_count(void)
{
    return CODEC_ROWS - 1;
}

const wt_codec *wt_codec_of(wt_file_format format)
{
    return (int)format > 0 && (int)format < CODEC_ROWS ? codecs[format] : NULL;
}

const wt_format_info *wt_format_describe(wt_file_format format)
{
    const wt_codec *c = wt_codec_of(format);
    return c ? &c->info : NULL;
}

wt_file_format wt_format_from_ext(const char *ext)
{
    const char *name = ext[0] == '.' ? ext + 1 : ext;
    for (int f = 1; f < CODEC_ROWS; f++)
        for (const char *const *e = codecs[f]->info.extensions; *e; e++)
            if (strcasecmp(name, *e) == 0)
                return (wt_file_format)f;
    return WT_FORMAT_UNKNOWN;
}

wt_file_format wt_format_from_path(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    return dot ? wt_format_from_ext(dot + 1) : WT_FORMAT_UNKNOWN;
}

int wt_starts_like(const uint8_t *data, size_t size, const void *magic, size_t len)
{
    return memcmp(data, magic, size < len ? size : len) == 0;
}

const wt_codec *wt_codec_sniff(const uint8_t *data, size_t size)
{
    for (int f = 1; f < CODEC_ROWS; f++)
        if (codecs[f]->is_a(data, size))
            return codecs[f];
    return NULL;
}

uint64_t wt_probe_samples(const char *path)
{
    struct stat sb; /* regular files only: opening a FIFO would wait for its writer */
    if (strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    uint8_t *head = malloc(WT_PROBE_HEAD);
    size_t got = head ? fread(head, 1, WT_PROBE_HEAD, fp) : 0;
    uint64_t samples = 0;
    const wt_codec *codec = got ? wt_codec_sniff(head, got) : NULL;
    if (codec && codec->probe)
        samples = codec->probe(head, got, path);
    if (samples == 0 && fseeko(fp, 0, SEEK_END) == 0) /* as many samples as bytes */
        samples = (uint64_t)ftello(fp);
    free(head);
    fclose(fp);
    return samples;
}

/* Append @p text to @p buf at @p *len, cut to @p size. */
static void append(char *buf, size_t size, size_t *len, const char *text)
{
    int n = snprintf(buf + *len, size - *len, "%s", text);
    if (n > 0)
        *len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

/* 1 when @p c holds any of @p holds (WT_HOLDS_*) */
static int holds_any(const wt_codec *c, unsigned holds)
{
    unsigned has = c->info.holds;
    if (c->pages_in && c->pages_out)
        has |= WT_HOLDS_STACK;
    if ((c->info.holds & WT_HOLDS_IMAGE) && c->info.floats)
        has |= WT_HOLDS_FLOATS;
    return (has & holds) != 0;
}

int wt_format_holds(wt_file_format format, unsigned holds)
{
    const wt_codec *c = wt_codec_of(format);
    return c && holds_any(c, holds);
}

/* The extensions @p c is listed by: all, or with WT_LIST_USUAL its first. */
static size_t listed_extensions(const wt_codec *c, unsigned holds)
{
    size_t n = 0;
    if (!holds_any(c, holds))
        return 0;
    while (c->info.extensions[n] && (n == 0 || !(holds & WT_LIST_USUAL)))
        n++;
    return n;
}

const char *wt_format_list(char *buf, size_t size, unsigned holds, const char *dot,
                           const char *sep, const char *last)
{
    size_t len = 0, total = 0, done = 0;
    if (!size)
        return buf;
    buf[0] = '\0';
    for (int f = 1; f < CODEC_ROWS; f++)
        total += listed_extensions(codecs[f], holds);
    for (int f = 1; f < CODEC_ROWS; f++) {
        size_t n = listed_extensions(codecs[f], holds);
        for (size_t e = 0; e < n; e++, done++) {
            if (done)
                append(buf, size, &len, done + 1 == total ? last : sep);
            append(buf, size, &len, dot);
            append(buf, size, &len, codecs[f]->info.extensions[e]);
        }
    }
    return buf;
}

static const wt_save_option_info *find_option(const wt_format_info *info, const char *name)
{
    for (const wt_save_option_info *o = info ? info->options : NULL; o && o->name; o++)
        if (strcmp(o->name, name) == 0)
            return o;
    return NULL;
}

const wt_save_option_info *wt_format_option(wt_file_format format, const char *name)
{
    return find_option(wt_format_describe(format), name);
}

int wt_save_option_value(const wt_codec *c, const char *option, const wt_save_options *opt)
{
    const wt_save_option_info *o = find_option(&c->info, option);
    int v;
    if (!o) /* not declared: a programming error the codec's tests show */
        return 0;
    if (!opt)
        return o->def;
    memcpy(&v, (const char *)opt + o->offset, sizeof v);
    return v < o->min ? o->def : v > o->max ? o->max : v;
}

int wt_format_depth(wt_file_format format, int wanted)
{
    const wt_format_info *info = wt_format_describe(format);
    if (!info || !info->depths || wanted < 1 || wanted > 31)
        return wanted;
    for (int d = wanted; d >= 1; d--)
        if (info->depths & (1u << d))
            return d;
    for (int d = wanted + 1; d <= 31; d++)
        if (info->depths & (1u << d))
            return d;
    return wanted;
}
