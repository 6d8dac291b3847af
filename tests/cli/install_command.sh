#!/bin/sh
# The README's install command (the block after "install-command"), run with
# stand-ins for id, sudo, apt-get, meson and wavetool that record their
# arguments: as root it installs into /usr/local without sudo, whose bin is on
# every login shell's PATH (/etc/profile); as a user into ~/.local, sudo for
# apt only. Usage: install_command.sh SOURCEDIR. TAP on stdout.
set -u
src=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/wt-install-cmd.XXXXXX")
trap 'rm -rf "$work"' EXIT
cmd=$(sed -n '/<!-- install-command -->/,/^```$/p' "$src/README.md" | sed '1,2d;$d')
mkdir -p "$work/bin" "$work/home"
for tool in id sudo apt-get meson wavetool; do
    cat >"$work/bin/$tool" <<EOF
#!/bin/sh
[ "$tool" = id ] && { echo "\$FAKE_UID"; exit 0; }
echo "$tool \$*" >>"$work/calls"
[ "$tool" = sudo ] && exec "\$@"
exit 0
EOF
    chmod +x "$work/bin/$tool"
done

n=0 failed=0
check() { # description command...
    n=$((n + 1))
    if "$@"; then echo "ok $n - $desc"; else
        failed=$((failed + 1)); echo "not ok $n - $desc"; sed 's/^/# /' "$work/calls"; fi
}
has() { grep -qxF "$1" "$work/calls"; }
lacks() { ! grep -q "$1" "$work/calls"; }

for who in root user; do
    uid=0 prefix=/usr/local
    [ $who = root ] || { uid=1000 prefix=$work/home/.local; }
    : >"$work/calls"
    (cd "$work" && HOME="$work/home" FAKE_UID=$uid PATH="$work/bin:$PATH" sh -c "$cmd")
    desc="as $who: meson setup --prefix=$prefix"
    check has "meson setup build --prefix=$prefix --libdir=lib"
    desc="as $who: meson install, then wavetool runs"
    check has "meson install -C build"
    desc="as $who: the sample decomposed"
    check has "wavetool decompose -v -l 3 data/astronaut.png build/astronaut-mosaic.png"
    if [ $who = root ]; then
        desc="as root: no sudo"
        check lacks "^sudo"
    else
        desc="as a user: sudo for apt-get only"
        check has "sudo apt-get update"
    fi
done
echo "1..$n"
[ $failed -eq 0 ]
