// An LD_PRELOAD shim for tests: listen(2) waits REEL_SLOW_LISTEN_MS milliseconds (default 500) before it
// listens, as on a machine too busy to run the listener's thread, which widens the moment between a socket's
// bind (its file appears) and its listen (it accepts connections). Nothing in Reel knows of it.
//
//   REEL_SLOW_LISTEN_MS=500 LD_PRELOAD=slowlisten.so reel record --control ctl.sock ...
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

int listen(int fd, int backlog) {
    static int (*real_listen)(int, int);
    if (!real_listen) real_listen = dlsym(RTLD_NEXT, "listen");
    const char *text = getenv("REEL_SLOW_LISTEN_MS");
    long milliseconds = text ? atol(text) : 500;
    struct timespec pause = {milliseconds / 1000, (milliseconds % 1000) * 1000000L};
    while (nanosleep(&pause, &pause) != 0) {}
    return real_listen(fd, backlog);
}
