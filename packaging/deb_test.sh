#!/usr/bin/env bash
# make deb-test: installs the .deb into a clean Debian 12 root (mmdebstrap, from Debian's packages: apt and
# man-db, nothing of this machine's) and uses it there: apt resolves its dependencies (FFmpeg's runtime
# libraries, libmicrohttpd; not its recommendations), `reel --version`, `reel record` from the built-in sources, `man reel`, the
# units and the environment file where they belong. Exits 1 at the first failure.
set -euo pipefail
deb=$(realpath "$1")
root=$(mktemp -d /tmp/reel-root-XXXXXX)
cleanup() { umount "$root/proc" 2>/dev/null || true; rm -rf "$root"; }
trap cleanup EXIT
fail() { echo "deb-test: FAILED: $*"; exit 1; }
pass() { echo "deb-test: $*"; }

mmdebstrap --quiet --variant=apt --include=man-db bookworm "$root" http://deb.debian.org/debian || fail "mmdebstrap"
pass "a clean Debian 12 root: $(du -sh "$root" | cut -f1)"
cp "$deb" "$root/tmp/reel.deb"
# Swift reads a program's arguments from /proc/self/cmdline: the root needs its /proc, as any system has.
mount -t proc proc "$root/proc"
# mmdebstrap leaves no package lists: apt reads them again, through this machine's resolver.
cp /etc/resolv.conf "$root/etc/resolv.conf"
chroot "$root" apt-get update -qq >/dev/null || fail "apt-get update in the clean root"
# Without its recommendations (ffmpeg): what it depends on must be enough.
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /tmp/reel.deb >"$root.apt.log" 2>&1 \
    || { tail -20 "$root.apt.log"; fail "apt-get install reel.deb"; }
rm -f "$root.apt.log"
pass "apt-get install ./reel.deb: $(chroot "$root" dpkg-query -W -f='${Package} ${Version}, depends ${Depends}' reel)"
version=$(chroot "$root" reel --version) || fail "reel --version"
pass "reel --version: $version"
chroot "$root" reel record /tmp/clip.mov --video lavfi:testsrc2 --audio lavfi:sine --preset 352x288 --max-duration 1 --json \
    >"$root/tmp/result.json" 2>/dev/null || fail "reel record in the clean root"
grep -q '"recordedSuccessfully" : true' "$root/tmp/result.json" || fail "the recording: $(cat "$root/tmp/result.json")"
[ -s "$root/tmp/clip.mov" ] || fail "no movie"
pass "reel record from the built-in sources in the clean root: $(stat -c %s "$root/tmp/clip.mov") bytes"
chroot "$root" env MANWIDTH=100 man reel 2>/dev/null | grep -q "reel record" || fail "man reel"
pass "man reel shows the page"
for file in /usr/lib/systemd/system/reel-serve.service /usr/lib/systemd/system/reel-batch@.service \
            /usr/lib/systemd/system/reel-batch@.timer /etc/default/reel-serve /usr/share/bash-completion/completions/reel; do
    [ -f "$root$file" ] || fail "$file is missing"
done
chroot "$root" dpkg-query -W -f='${Conffiles}' reel | grep -q /etc/default/reel-serve || fail "/etc/default/reel-serve is not a conffile"
pass "units, completion and the environment file (a conffile) in place"
echo "deb-test: passed"
