#ifndef REEL_CSTOPSIGNALS_H
#define REEL_CSTOPSIGNALS_H

/// Catches the given signals with a process-wide handler that only writes the signal's number (one byte)
/// to a pipe, and unblocks them in the calling thread. Call it on the main thread before other threads
/// exist (they inherit its mask): from then on no signal is lost, whichever thread the kernel hands it to,
/// and the byte waits in the pipe until it is read. Returns the pipe's read end (non-blocking, close-on-exec;
/// the caller owns it), or -errno with no handler installed and no descriptor left open. Call once per process.
int reel_stop_signals_install(const int *numbers, int count);

/// The read end of the pipe of a handler installed as the program was loaded (for `reel record`, `capture`,
/// `batch` and `serve`), which the caller then owns; -1 when none was. The signals it catches are SIGINT,
/// SIGTERM and SIGUSR1.
int reel_stop_signals_early(void);

#endif
