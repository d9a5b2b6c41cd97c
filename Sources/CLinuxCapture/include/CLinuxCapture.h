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

/// One control a V4L2 device offers (VIDIOC_QUERY_EXT_CTRL), with its current value (VIDIOC_G_EXT_CTRLS).
typedef struct {
    uint32_t id;
    char name[32];
    /// 1 integer, 2 boolean, 3 menu, 4 button, 5 64-bit integer, 9 integer menu (enum v4l2_ctrl_type).
    uint32_t type;
    int64_t minimum;
    int64_t maximum;
    uint64_t step;
    int64_t default_value;
    int64_t value;
    int has_value;
    /// V4L2_CTRL_FLAG_* (inactive 0x10, read-only 0x04, write-only 0x40, ...).
    uint32_t flags;
} reel_v4l2_control;

/// Fills up to `capacity` user-visible controls (class headers and disabled controls left out). Returns the
/// number found (may exceed capacity), or -errno.
int reel_v4l2_list_controls(const char *path, reel_v4l2_control *controls, int capacity);

/// The name of menu entry `index` of control `id` (VIDIOC_QUERYMENU; for an integer menu, its value written
/// out): 1 when found, 0 when the index is not in the menu, -errno on error.
int reel_v4l2_menu_entry(const char *path, uint32_t id, uint32_t index, int integer_menu, char *name, size_t name_length);

/// Sets control `id` of the device at `path` (VIDIOC_S_EXT_CTRLS); 0, or -errno (EACCES for an inactive or
/// read-only control, ERANGE/EINVAL for a value the driver refuses).
int reel_v4l2_set_control(const char *path, uint32_t id, int64_t value, int is_64bit);

/// Streaming capture with memory-mapped buffers (video4linux_stream.c).
typedef struct reel_v4l2_stream reel_v4l2_stream;

/// The format the device settled on (it may adjust the size asked for).
typedef struct {
    uint32_t fourcc;
    int width;
    int height;
    int bytes_per_line;
} reel_v4l2_format;

/// One filled buffer, valid until released.
typedef struct {
    int index;
    const void *data;
    size_t size;
    /// CLOCK_MONOTONIC microseconds of the capture.
    int64_t timestamp_us;
    uint32_t sequence;
    int damaged;
} reel_v4l2_buffer;

/// Opens `path`, sets the format and rate (thousandths of frames per second; 0 keeps the device's), maps and queues the
/// buffers and starts streaming. NULL with `*error` = -errno on failure (-ENOTTY: not a capture device).
reel_v4l2_stream *reel_v4l2_stream_open(const char *path, uint32_t fourcc, int width, int height, int fps_milli,
                                        reel_v4l2_format *format, int *error);
/// Waits up to `timeout_ms` for a filled buffer: 1 with `out` set, 0 for none yet, -errno when the device
/// failed (-ENODEV: unplugged).
int reel_v4l2_stream_next(reel_v4l2_stream *stream, int timeout_ms, reel_v4l2_buffer *out);
/// Gives a buffer back to the device to fill again.
int reel_v4l2_stream_release(reel_v4l2_stream *stream, int index);
/// Stops streaming, unmaps the buffers and closes the device.
void reel_v4l2_stream_close(reel_v4l2_stream *stream);

/// Stops alsa-lib from printing its own error lines on stderr (Reel reports errors itself). alsa-lib is
/// reached through libavdevice; this looks it up at run time, so there is no build dependency on it.
void reel_silence_alsa_errors(void);

/// Allocates `length` bytes of disk blocks after `offset` without changing the file's size (fallocate with
/// FALLOC_FL_KEEP_SIZE): room kept in reserve that later writes at that offset are sure to find.
/// Returns 0 or -errno (EOPNOTSUPP on filesystems without it).
int reel_reserve_file_space(int descriptor, int64_t offset, int64_t length);

#endif
