#!/bin/sh
# meson install's last step: refresh the dynamic linker's cache, so that
# programs linked with -lwavetool find libwavetool.so in a system folder
# (/usr/local/lib) as root. Not run under DESTDIR (meson.build: packages run
# ldconfig when installed); nothing as a user or where no ldconfig is (meson
# 1.0 does not run it). Usage: ldconfig.sh LIBDIR
[ "$(id -u)" -eq 0 ] || exit 0
PATH="$PATH:/sbin:/usr/sbin"
command -v ldconfig >/dev/null 2>&1 || exit 0
ldconfig || echo "wavetool: ldconfig failed; run it to use libwavetool from $1" >&2
exit 0
