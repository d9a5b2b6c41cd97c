#!/usr/bin/env python3
"""Writes linker/hot-functions.order: the functions of the release `reel` binary that typical commands run
(recording, transcoding, batch, grab, snap, probe), found with callgrind. lld places them together at the
start of .text (--symbol-ordering-file), so the few hundred KB of code that runs sit in a few hundred pages
instead of being spread over the 15 MB of the Swift runtime and Foundation linked into the binary: the
kernel maps code 64 KB around each touched page, and the spread cost ~6 MB of resident memory per process.

Only functions in sections of their own can move: much of the Swift runtime's C++ and part of the standard
library come in one large .text per object file. Functions of small sections come first; those inside large
sections come after them, so that those sections at least end up next to each other. The section of each
symbol is read from the link map of the current binary (`linker/function_order.py MAP`).

Run `make function-order` after large changes; a stale list costs memory, never correctness (names that no
longer exist are ignored)."""
import collections, os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, ".build/release/reel")
OUTPUT = os.path.join(ROOT, "linker/hot-functions.order")


def workloads(folder):
    source = os.path.join(folder, "small.mp4")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-f", "lavfi",
                    "-i", "sine", "-t", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", source], check=True)
    with open(os.path.join(folder, "jobs.json"), "w") as jobs:
        jobs.write('{"jobs": [{"name": "a", "type": "transcode", "input": "small.mp4", "preset": "low", "output": "ja.mov"},'
                   ' {"name": "b", "type": "record", "video": "lavfi:testsrc2?realtime=0", "audio": "lavfi:sine?realtime=0",'
                   ' "preset": "low", "maxDuration": 1, "output": "jb.mov"}]}')
    fast = ["--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0"]
    return [
        ["record", "a.mov", *fast, "--preset", "352x288", "--max-duration", "1", "--json", "--quiet", "--fragment-interval", "0.5", "--still", "a.jpg"],
        ["record", "b.mov", *fast, "--preset", "720p", "--max-duration", "0.5", "--json", "--quiet", "--fragment-interval", "0"],
        ["record", "c.mov", "--video", "lavfi:testsrc2", "--audio", "lavfi:sine", "--preset", "low", "--max-duration", "1"],
        ["record", "d.mov", *fast, "--preset", "720p", "--tier", "352x288:d-small.mov", "--max-duration", "0.5", "--json", "--quiet"],
        ["record", "e-{index}.mov", *fast, "--preset", "352x288", "--max-duration", "1", "--segment-duration", "0.5", "--json", "--quiet"],
        ["transcode", "small.mp4", "t.mov", "--preset", "352x288", "--json", "--quiet", "--fragment-interval", "0"],
        ["batch", "jobs.json", "--quiet"],
        ["grab", "small.mp4", "g.jpg", "--at", "1"],
        ["snap", "s.png", "--video", "lavfi:testsrc2"],
        ["probe", "small.mp4", "--json"],
        ["presets"],
        ["--help"],
    ]


def executed_functions(profile, object_name):
    """Names of the functions callgrind saw run in `object_name` (symbol names as the binary spells them)."""
    objects, functions, current, found = {}, {}, None, set()
    for line in open(profile, errors="replace"):
        match = re.match(r"^(c?ob|c?fn)=\((\d+)\)(?: (.*))?", line)
        if not match:
            continue
        kind, ident, name = match.groups()
        if kind in ("ob", "cob"):
            if name:
                objects[ident] = name
            if kind == "ob":
                current = objects[ident]
        else:
            if name:
                functions[ident] = name
            if kind == "fn" and current and current.endswith(object_name):
                found.add(functions[ident])
    return found


# A section larger than this is an object file's whole .text, not one function.
LARGEST_FUNCTION_SECTION = 16 * 1024


def section_sizes(link_map):
    """For each symbol in .text, the size of the input section that holds it (the smallest, when a local name
    occurs in several object files), from an lld -Map file."""
    sizes, current, in_text = {}, None, False
    for line in open(link_map, errors="replace"):
        # VMA LMA Size Align, then the name indented by nesting: output section, input section, symbol.
        match = re.match(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ (\s*)(.*)$", line)
        if not match:
            continue
        size, indent, name = int(match.group(1), 16), len(match.group(2)), match.group(3).strip()
        if indent == 0:
            in_text = name == ".text"
        elif indent == 8:
            current = size
        elif in_text and current is not None:
            sizes[name] = min(current, sizes.get(name, current))
    return sizes


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: function_order.py LINK_MAP (make function-order passes the release link's map)")
    sizes = section_sizes(sys.argv[1])
    if not shutil.which("valgrind"):
        sys.exit("function_order.py: valgrind is needed (apt-get install valgrind)")
    uses = collections.Counter()
    with tempfile.TemporaryDirectory() as folder:
        # valgrind cannot read Swift's DWARF: profile a copy without debug information (same addresses). The
        # symbol table stays: with it callgrind knows where each function starts, so a function entered by a
        # tail call (Swift's thunks and specializations jump to one another) counts as run; without it only
        # functions entered by a call did (288 of the 3,216 that the workloads run were left out of the order).
        profiled = os.path.join(folder, "reel-profiled")
        subprocess.run(["strip", "--strip-debug", "-o", profiled, BINARY], check=True)
        for index, arguments in enumerate(workloads(folder)):
            profile = os.path.join(folder, f"profile{index}")
            subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={profile}", profiled,
                            *arguments], cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
            # A name with a suffix ("'2") is the same function entered again; an address is code without a symbol.
            names = {name.split("'")[0] for name in executed_functions(profile, "reel-profiled")}
            uses.update(name for name in names if not name.startswith("0x"))
    # Movable functions first, then those inside whole-object sections; within each, code every command
    # runs first; names sorted within a rank so the file diffs well.
    def movable(name):
        # Names missing from the map (it prints C++ names demangled) come from whole-object sections.
        return sizes.get(name, LARGEST_FUNCTION_SECTION + 1) <= LARGEST_FUNCTION_SECTION
    ordered = sorted(uses, key=lambda name: (not movable(name), -uses[name], name))
    with open(OUTPUT, "w") as output:
        output.write("\n".join(ordered) + "\n")
    print(f"{os.path.relpath(OUTPUT, ROOT)}: {len(ordered)} functions, {sum(map(movable, ordered))} in sections of their own")


if __name__ == "__main__":
    main()
