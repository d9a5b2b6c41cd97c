#include "CLinuxCapture.h"

#include <dlfcn.h>

typedef void (*reel_alsa_error_handler)(const char *file, int line, const char *function, int error, const char *format, ...);
typedef int (*reel_alsa_set_handler)(reel_alsa_error_handler handler);

static void silent_handler(const char *file, int line, const char *function, int error, const char *format, ...) {
    (void)file; (void)line; (void)function; (void)error; (void)format;
}

void reel_silence_alsa_errors(void) {
    void *library = dlopen("libasound.so.2", RTLD_LAZY | RTLD_NOLOAD);
    if (!library) return;
    reel_alsa_set_handler set_handler = (reel_alsa_set_handler)dlsym(library, "snd_lib_error_set_handler");
    if (set_handler) set_handler(silent_handler);
    dlclose(library);
}
