#include <malloc.h>

#include "CSystemSupport.h"

// Defined by every sanitizer runtime that brings its own allocator (TSan, ASan, MSan, LSan); absent otherwise.
extern size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));

void reel_release_free_memory(void) {
    // Under a sanitizer, malloc is the sanitizer's and glibc's heap is never used: malloc_trim would be the
    // first call into it, and glibc initialises that heap without a lock on first use (it is normally done
    // long before the process has threads), so two encoders freed at once on two threads can walk
    // half-initialised bins and crash. Nothing of glibc's is there to give back in that case.
    if (__sanitizer_get_current_allocated_bytes) return;
    malloc_trim(0);
}
