#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "CStopSignals.h"

/// The pipe's write end, set once before the handler is installed; it stays open for the process's life (the
/// handler may run at any time). The read end belongs to the caller.
static volatile int write_end = -1;

/// Async-signal-safe: one write(2), errno kept. A full pipe (thousands of unread signals) drops the byte.
static void on_signal(int number) {
    int saved = errno;
    unsigned char byte = (unsigned char)number;
    ssize_t written = write(write_end, &byte, 1);
    (void)written;
    errno = saved;
}

int reel_stop_signals_install(const int *numbers, int count) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) return -errno;
    write_end = ends[1];
    struct sigaction action = {0};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    // System calls the signal interrupts in other threads restart instead of failing with EINTR.
    action.sa_flags = SA_RESTART;
    sigset_t unblock;
    sigemptyset(&unblock);
    for (int index = 0; index < count; index++) {
        if (sigaction(numbers[index], &action, NULL) != 0) {
            // Nothing half-installed: a handler writing to a pipe nobody reads would swallow the signals.
            int failure = errno;
            struct sigaction fallback = {0};
            fallback.sa_handler = SIG_DFL;
            for (int undo = 0; undo < index; undo++) sigaction(numbers[undo], &fallback, NULL);
            write_end = -1;
            close(ends[0]);
            close(ends[1]);
            return -failure;
        }
        sigaddset(&unblock, numbers[index]);
    }
    // A parent may have started us with these signals blocked (the mask is inherited).
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
    return ends[0];
}
