#!/bin/sh
# Regenerates the known-good indexes the QuickTime tests compare with (needs ffmpeg, ffprobe, python3).
# For each case: a small movie encoded by the ffmpeg CLI (FFmpeg 5.1's mov muxer), then
#   template.moov  the moov the same muxer writes at the start of a fragmented copy (empty_moov)
#   regular.moov   the movie's own moov: FFmpeg's complete index, the known-good answer
#   samples.csv    every sample as ffprobe reads it (track, dts, pts, duration, size, offset, flags K/D),
#                  the disposable flag (D) taken from the movie's sdtp, which ffprobe does not print
# The movies themselves are not kept.
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
video='testsrc2=size=160x120:rate=30'
audio='sine=frequency=440:sample_rate=48000'

make_case() {
    name=$1; shift
    mkdir -p "$name"
    ffmpeg -v error -y "$@" "$work/$name.mov"
    if [ -n "${ROTATE:-}" ]; then
        # The CLI turns a rotate tag into a display matrix (tkhd) only when copying streams.
        ffmpeg -v error -y -i "$work/$name.mov" -map 0 -c copy -metadata:s:v:0 rotate="$ROTATE" "$work/$name-rotated.mov"
        mv "$work/$name-rotated.mov" "$work/$name.mov"
    fi
    ffmpeg -v error -y -i "$work/$name.mov" -map 0 -c copy -movflags frag_custom+empty_moov+skip_trailer "$work/$name-fragmented.mov"
    ffprobe -v error -show_entries packet=stream_index,dts,pts,duration,size,pos,flags -of csv=p=0 "$work/$name.mov" > "$work/$name.csv"
    python3 - "$work/$name.mov" "$work/$name-fragmented.mov" "$work/$name.csv" "$name" <<'PY'
import struct, sys
movie, fragmented, packets, name = sys.argv[1:]

def boxes(data, start, end):
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        yield kind.decode("latin-1"), start, size
        start += size

def moov(path):
    data = open(path, "rb").read()
    return next(data[o:o + s] for k, o, s in boxes(data, 0, len(data)) if k == "moov")

regular = moov(movie)
open(f"{name}/regular.moov", "wb").write(regular)
open(f"{name}/template.moov", "wb").write(moov(fragmented))

disposable = {}
for kind, offset, size in boxes(regular, 8, len(regular)):
    if kind != "trak":
        continue
    track = sdtp = None
    def walk(start, end):
        global track, sdtp
        for k, o, s in boxes(regular, start, end):
            if k == "tkhd":
                track = struct.unpack(">I", regular[o + 20:o + 24])[0] - 1
            elif k == "sdtp":
                sdtp = regular[o + 12:o + s]
            elif k in ("mdia", "minf", "stbl"):
                walk(o + 8, o + s)
    walk(offset + 8, offset + size)
    if sdtp is not None:
        disposable[track] = [(flags >> 2) & 3 == 2 for flags in sdtp]

rows = [line.strip().split(",") for line in open(packets) if line.strip()]
seen = {}
with open(f"{name}/samples.csv", "w") as out:
    out.write("# track,dts,pts,duration,size,offset,flags\n")
    for row in sorted(rows, key=lambda r: int(r[5])):
        stream, pts, dts, duration, size, pos, flags = row[:7]
        index = seen.get(stream, 0)
        seen[stream] = index + 1
        marks = ("K" if flags.startswith("K") else "") + ("D" if disposable.get(int(stream), [])[index:index + 1] == [True] else "")
        out.write(",".join([stream, dts, pts, duration, size, pos, marks]) + "\n")
PY
}

# H.264 with B-frames (edit list skipping the reordering delay, ctts, stss) and AAC (priming: media time 1024,
# sample group).
make_case h264-aac -f lavfi -i "$video" -f lavfi -i "$audio" -t 1 -c:v libx264 -preset ultrafast -bf 2 -g 12 \
    -c:a aac -b:a 64k -shortest
# HEVC tagged hvc1 with x265's disposable B-frames (sdtp), alone, shown rotated a quarter turn (tkhd matrix).
ROTATE=90 make_case hevc-rotated -f lavfi -i "$video" -t 1 -c:v libx265 -preset ultrafast -tag:v hvc1 \
    -x265-params log-level=none:keyint=15:bframes=3
# Video that starts half a second after the audio (an empty edit first), without B-frames.
make_case delayed-video -itsoffset 0.5 -f lavfi -i "$video" -f lavfi -i "$audio" -t 1.5 -fps_mode:v passthrough -c:v libx264 -preset ultrafast \
    -bf 0 -g 30 -c:a aac -b:a 64k -map 0:v -map 1:a -shortest
