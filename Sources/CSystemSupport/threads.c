#define _GNU_SOURCE
#include <pthread.h>
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "CSystemSupport.h"

void reel_name_current_thread(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = 0;
    pthread_setname_np(pthread_self(), truncated);
}

int reel_raise_current_thread_priority(int nice_level) {
    pid_t thread = gettid();
    errno = 0;
    int current = getpriority(PRIO_PROCESS, (id_t)thread);
    if (errno != 0 || current <= nice_level) return 0;
    return setpriority(PRIO_PROCESS, (id_t)thread, nice_level) == 0 ? 1 : 0;
}
