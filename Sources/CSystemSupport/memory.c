#include <malloc.h>

#include "CSystemSupport.h"

void reel_release_free_memory(void) { malloc_trim(0); }
