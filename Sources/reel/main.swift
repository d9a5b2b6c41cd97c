import Glibc
import ReelCLI

// _exit, not exit: every output is written with write(2) and every file is closed by now, and running the
// destructors of the ~200 FFmpeg libraries at exit only pages their code in (up to 3 MB of peak memory,
// depending on which threads are still winding down) to tidy memory the kernel frees anyway.
_exit(ReelCommandLine.main(CommandLine.arguments))
