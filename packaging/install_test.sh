#!/usr/bin/env bash
# make install-test: installs Reel into a temporary root (DESTDIR, PREFIX=/usr) and uses what was installed
# there, from outside the checkout: the binary (its version, a recording from the built-in sources with a
# built-in preset), the man page (one section per command of --help), bash completion, the systemd units
# (systemd-analyze verify), and make uninstall leaving nothing behind. Exits 1 at the first failure.
set -euo pipefail
checkout=$(cd "$(dirname "$0")/.." && pwd)
root=$(mktemp -d /tmp/reel-install-XXXXXX)
trap 'rm -rf "$root"' EXIT
fail() { echo "install-test: FAILED: $*"; exit 1; }
pass() { echo "install-test: $*"; }

make -C "$checkout" --no-print-directory install DESTDIR="$root" PREFIX=/usr >"$root.log" 2>&1 || { cat "$root.log"; fail "make install"; }
rm -f "$root.log"
reel="$root/usr/bin/reel"
cd /   # nothing of the checkout is at hand from here

version=$("$reel" --version) || fail "the installed reel does not run"
pass "installed reel runs: $version"
"$reel" record "$root/clip.mov" --video lavfi:testsrc2 --audio lavfi:sine --preset 352x288 --max-duration 1 --quiet >/dev/null \
    || fail "reel record from the installed binary"
streams=$(ffprobe -v error -show_entries stream=codec_name -of csv=p=0 "$root/clip.mov" | tr '\n' ' ')
[ "$streams" = "h264 aac " ] || fail "the installed reel's movie holds '$streams'"
rm -f "$root/clip.mov"
pass "the installed reel records a movie with a built-in preset (h264 + aac)"
"$reel" record "$root/own.mov" --preset "$root/usr/share/reel/presets/low.json" --max-duration 1 --quiet >/dev/null \
    || fail "a preset file from share/reel/presets"
rm -f "$root/own.mov"
pass "a preset copied from share/reel/presets works with --preset FILE.json"

page=$(MANWIDTH=120 man -l "$root/usr/share/man/man1/reel.1" 2>&1) || fail "man -l reel.1: $page"
for command in $("$reel" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p'); do
    grep -q "^   reel $command\$" <<<"$page" || fail "the man page has no section for reel $command"
    # A line of the command's --help, as the page shows it (the same text: they cannot disagree).
    line=$("$reel" "$command" --help | sed -n '1p' | sed 's/ *$//')
    grep -qF -- "$line" <<<"$page" || fail "the man page's reel $command does not say '$line'"
done
pass "man reel: a section per command, each its --help"

completion=$(bash -c "source '$root/usr/share/bash-completion/completions/reel'
    COMP_WORDS=('$reel' rec); COMP_CWORD=1; _reel; echo \"\${COMPREPLY[*]}\"
    COMP_WORDS=('$reel' record --replay); COMP_CWORD=2; _reel; echo \"\${COMPREPLY[*]}\"
    COMP_WORDS=('$reel' record --preset 72); COMP_CWORD=3; _reel; echo \"\${COMPREPLY[*]}\"")
[ "$completion" = $'record\n--replay-buffer --replay-buffer-size\n720p 720p-live' ] || fail "bash completion gave: $completion"
pass "bash completion: commands, a command's options, preset names"

units=$(mktemp -d /tmp/reel-units-XXXXXX)
trap 'rm -rf "$root" "$units"' EXIT
for unit in reel-serve.service reel-batch@.service reel-batch@.timer; do
    # The units name /usr/bin/reel; here it is under the temporary root.
    sed "s|/usr/bin/reel|$reel|g" "$root/usr/lib/systemd/system/$unit" > "$units/${unit/@./@nightly.}"
done
MANPATH="$root/usr/share/man" systemd-analyze verify "$units"/*.service "$units"/*.timer || fail "systemd-analyze verify"
pass "systemd-analyze verify: reel-serve.service, reel-batch@nightly.service, reel-batch@nightly.timer"

make -C "$checkout" --no-print-directory uninstall DESTDIR="$root" PREFIX=/usr >/dev/null
left=$(find "$root" -type f)
[ -z "$left" ] || fail "make uninstall left $left"
pass "make uninstall removes every file install wrote"
echo "install-test: passed"
