/* One place that holds the last failure message of each thread. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "wavetool.h"
#include "wavetool_hooks.h"

static _Thread_local char last_message[1024];

const char *wt_error_message(void)
{
    return last_message;
}

char *wt_escape_controls(char *out, size_t cap, const char *in)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)in; cap && *p; p++) {
        char esc[5];
        int len = *p == '\n' ? snprintf(esc, sizeof esc, "\\n")
                  : *p == '\r' ? snprintf(esc, sizeof esc, "\\r")
                  : *p == '\t' ? snprintf(esc, sizeof esc, "\\t")
                  : (*p < 0x20 || *p == 0x7f) ? snprintf(esc, sizeof esc, "\\x%02x", *p)
                                              : (esc[0] = (char)*p, 1);
        if (n + (size_t)len >= cap)
            break;
        memcpy(out + n, esc, (size_t)len);
        n += (size_t)len;
    }
    if (cap)
        out[n] = '\0';
    return out;
}

wt_status wt_error_set(wt_status code, const char *fmt, ...)
{
    char raw[sizeof last_message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    wt_escape_controls(last_message, sizeof last_message, raw);
    return code;
}

wt_status wt_error_prefix(wt_status st, const char *prefix)
{
    size_t len = strlen(prefix);
    int named = strncmp(last_message, prefix, len) == 0 && strncmp(last_message + len, ": ", 2) == 0;
    if (st != WT_OK && !named) {
        char reason[sizeof last_message];
        snprintf(reason, sizeof reason, "%s", last_message);
        wt_error_set(st, "%s: %s", prefix, reason);
    }
    return st;
}

void wt_error_clear(void)
{
    last_message[0] = '\0';
}

static _Thread_local char last_warning[1024];

const char *wt_warning_message(void)
{
    return last_warning;
}

void wt_warning_set(const char *fmt, ...)
{
    if (last_warning[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_warning, sizeof last_warning, fmt, ap);
    va_end(ap);
}

void wt_warning_clear(void)
{
    last_warning[0] = '\0';
}

const char *wt_status_name(wt_status code)
{
    switch (code) {
    case WT_OK: return "success";
    case WT_ERR_INVALID: return "invalid argument";
    case WT_ERR_NOMEM: return "out of memory";
    case WT_ERR_IO: return "input/output error";
    case WT_ERR_FORMAT: return "corrupt or unrecognised data";
    case WT_ERR_LIMIT: return "limit exceeded";
    case WT_ERR_UNSUPPORTED: return "unsupported";
    case WT_ERR_DEVICE: return "GPU error";
    case WT_ERR_DEVICE_NOMEM: return "GPU out of memory";
    case WT_ERR_INTERRUPTED: return "interrupted";
    }
    return "unknown error";
}
