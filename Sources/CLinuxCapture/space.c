#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>

#include "CLinuxCapture.h"

int reel_reserve_file_space(int descriptor, int64_t offset, int64_t length) {
    return fallocate(descriptor, FALLOC_FL_KEEP_SIZE, offset, length) == 0 ? 0 : -errno;
}
