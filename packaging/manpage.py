#!/usr/bin/env python3
"""Writes reel(1) from the help texts of a built `reel` (its --help and each command's), so the man page and
--help never disagree: `python3 packaging/manpage.py .build/release/reel > reel.1`.

The page: NAME, SYNOPSIS, DESCRIPTION (the top-level help), one COMMANDS subsection per command (its help
text as written, preformatted), EXIT STATUS, FILES and SEE ALSO."""
import re
import subprocess
import sys


def help_text(reel, *arguments):
    result = subprocess.run([reel, *arguments, "--help"], capture_output=True, text=True, timeout=30)
    return (result.stdout or result.stderr).rstrip("\n")


def roff(text):
    """Text as roff shows it literally: backslashes doubled, a leading dot or quote guarded."""
    lines = []
    for line in text.split("\n"):
        line = line.replace("\\", "\\e")
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def main():
    reel = sys.argv[1] if len(sys.argv) > 1 else "reel"
    version = subprocess.run([reel, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    top = help_text(reel)
    commands = re.findall(r"^  ([a-z]+) ", top.split("commands:", 1)[1], flags=re.MULTILINE)
    out = [f'.TH REEL 1 "" "{version}" "User Commands"',
           ".SH NAME", "reel \\- record, transcode and serve H.264/HEVC + AAC QuickTime movies on Linux",
           ".SH SYNOPSIS", ".B reel", ".I COMMAND", "[\\fIoptions\\fR]",
           ".SH DESCRIPTION", ".nf", roff(top), ".fi",
           ".SH COMMANDS"]
    for command in commands:
        out += [f".SS reel {command}", ".nf", roff(help_text(reel, command)), ".fi"]
    out += [".SH EXIT STATUS",
            "0 done (a movie finalized, also when a limit or a signal stopped it); 1 a runtime failure; 2 bad usage or "
            "input, nothing written; 3 with \\fB--alarm-exit\\fR, finalized with an alarm still on; 130 a second Ctrl-C. "
            "Each command's section lists its own.",
            ".SH FILES",
            ".TP", ".I /etc/default/reel-serve", "the environment of \\fBreel-serve.service\\fR (listen address, token, recordings folder)",
            ".TP", ".I /etc/reel/batch/NAME.json", "the job file \\fBreel-batch@NAME.timer\\fR runs",
            ".TP", ".I PREFIX/share/reel/presets/", "the built-in presets as JSON (they are compiled in; copy one to change it and pass it with \\fB--preset FILE.json\\fR)",
            ".SH SEE ALSO", "\\fBffmpeg\\fR(1), \\fBffprobe\\fR(1)"]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
