#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
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

/// The read end of the pipe installed before main (see reel_stop_signals_early), or -1.
static int early_read_end = -1;

/// Runs as the program starts, before any library's initializers (the Swift runtime's, FFmpeg's) and main:
/// the executable's preinit array, which glibc calls with argc and argv once the dynamic loader has mapped and
/// relocated everything (a constructor would run only after every library's initializers: 100 ms into a debug
/// build). For the commands that stop on signals it installs the handler at once, so a SIGINT, SIGTERM or
/// SIGUSR1 in the first milliseconds is caught rather than ending the process by its default action; the
/// window left is the dynamic loader's few milliseconds, before any of the program's code runs. Only the
/// `reel` program itself, so that test runners linking this target keep their own signal handling.
static void install_early(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc < 2 || argv == NULL || argv[0] == NULL || argv[1] == NULL) return;
    const char *slash = strrchr(argv[0], '/');
    const char *program = slash ? slash + 1 : argv[0];
    if (strncmp(program, "reel", 4) != 0 || strncmp(program, "reel-test", 9) == 0) return;
    static const char *const commands[] = {"record", "capture", "batch", "serve"};
    for (unsigned index = 0; index < sizeof commands / sizeof commands[0]; index++) {
        if (strcmp(argv[1], commands[index]) == 0) {
            const int numbers[] = {SIGINT, SIGTERM, SIGUSR1};
            int end = reel_stop_signals_install(numbers, 3);
            if (end >= 0) early_read_end = end;
            return;
        }
    }
}

__attribute__((section(".preinit_array"), used)) static void (*const install_early_entry)(int, char **, char **) = install_early;

int reel_stop_signals_early(void) { return early_read_end; }
