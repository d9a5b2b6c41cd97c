#ifndef REEL_CLINUXCAPTURE_H
#define REEL_CLINUXCAPTURE_H

#include <stddef.h>
#include <stdint.h>

/// One capture mode a V4L2 device offers: a pixel format at a size and frame interval.
typedef struct {
    char fourcc[5];
    int compressed;
    uint32_t width;
    uint32_t height;
    uint32_t interval_numerator;   // seconds per frame = numerator / denominator
    uint32_t interval_denominator;
} reel_v4l2_mode;

/// 1 when `path` is a V4L2 video capture device (card name copied into `card`), 0 when not, -errno on error.
int reel_v4l2_query_capture(const char *path, char *card, size_t card_length);

/// Fills up to `capacity` modes (discrete sizes and intervals; stepwise ranges are sampled at common sizes).
/// Returns the number of modes found (may exceed capacity), or -errno.
int reel_v4l2_list_modes(const char *path, reel_v4l2_mode *modes, int capacity);

/// Stops alsa-lib from printing its own error lines on stderr (Reel reports errors itself). alsa-lib is
/// reached through libavdevice; this looks it up at run time, so there is no build dependency on it.
void reel_silence_alsa_errors(void);

/// Allocates `length` bytes of disk blocks after `offset` without changing the file's size (fallocate with
/// FALLOC_FL_KEEP_SIZE): room kept in reserve that later writes at that offset are sure to find.
/// Returns 0 or -errno (EOPNOTSUPP on filesystems without it).
int reel_reserve_file_space(int descriptor, int64_t offset, int64_t length);

/// Names the calling thread (shown by top -H, gdb, /proc/PID/task/*/comm); Linux keeps the first 15 bytes.
void reel_name_current_thread(const char *name);

#endif
