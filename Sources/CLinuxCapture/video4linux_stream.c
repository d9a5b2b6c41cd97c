// Streaming capture from a V4L2 device with memory-mapped buffers (the kernel's streaming I/O), without
// libavdevice: open, set the format and rate, map and queue the buffers, then take filled ones in turn.
// The one owner of the device's file descriptor and mappings is the reel_v4l2_stream.
#include "CLinuxCapture.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/videodev2.h>

#define REEL_V4L2_MAX_BUFFERS 32

struct reel_v4l2_stream {
    int fd;
    int count;
    void *starts[REEL_V4L2_MAX_BUFFERS];
    size_t lengths[REEL_V4L2_MAX_BUFFERS];
    int streaming;
};

static int xioctl(int fd, unsigned long request, void *argument) {
    int result;
    do { result = ioctl(fd, request, argument); } while (result == -1 && errno == EINTR);
    return result;
}

void reel_v4l2_stream_close(reel_v4l2_stream *stream) {
    if (!stream) return;
    if (stream->streaming) {
        enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        xioctl(stream->fd, VIDIOC_STREAMOFF, &type);
    }
    for (int i = 0; i < stream->count; i++) {
        if (stream->starts[i] && stream->starts[i] != MAP_FAILED) munmap(stream->starts[i], stream->lengths[i]);
    }
    if (stream->fd >= 0) close(stream->fd);
    free(stream);
}

static reel_v4l2_stream *fail(reel_v4l2_stream *stream, int *error, int code) {
    *error = code;
    reel_v4l2_stream_close(stream);
    return NULL;
}

reel_v4l2_stream *reel_v4l2_stream_open(const char *path, uint32_t fourcc, int width, int height, int fps_milli,
                                        reel_v4l2_format *format, int *error) {
    reel_v4l2_stream *stream = calloc(1, sizeof *stream);
    if (!stream) { *error = -ENOMEM; return NULL; }
    stream->fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (stream->fd < 0) return fail(stream, error, -errno);

    struct v4l2_capability capability;
    memset(&capability, 0, sizeof capability);
    if (xioctl(stream->fd, VIDIOC_QUERYCAP, &capability) < 0) return fail(stream, error, -errno);
    uint32_t caps = (capability.capabilities & V4L2_CAP_DEVICE_CAPS) ? capability.device_caps : capability.capabilities;
    if (!(caps & V4L2_CAP_VIDEO_CAPTURE) || !(caps & V4L2_CAP_STREAMING)) return fail(stream, error, -ENOTTY);

    struct v4l2_format requested;
    memset(&requested, 0, sizeof requested);
    requested.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    requested.fmt.pix.width = (uint32_t)width;
    requested.fmt.pix.height = (uint32_t)height;
    requested.fmt.pix.pixelformat = fourcc;
    requested.fmt.pix.field = V4L2_FIELD_ANY;
    if (xioctl(stream->fd, VIDIOC_S_FMT, &requested) < 0) return fail(stream, error, -errno);
    format->fourcc = requested.fmt.pix.pixelformat;
    format->width = (int)requested.fmt.pix.width;
    format->height = (int)requested.fmt.pix.height;
    format->bytes_per_line = (int)requested.fmt.pix.bytesperline;

    if (fps_milli > 0) {
        struct v4l2_streamparm parameters;
        memset(&parameters, 0, sizeof parameters);
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        parameters.parm.capture.timeperframe.numerator = 1000;
        parameters.parm.capture.timeperframe.denominator = (uint32_t)fps_milli;
        // A camera that cannot change its rate keeps its own: not an error.
        xioctl(stream->fd, VIDIOC_S_PARM, &parameters);
    }

    struct v4l2_requestbuffers request;
    memset(&request, 0, sizeof request);
    // Half a second at 30 fps of slack for a reader the machine holds up (libavdevice asks for 256, which
    // uvcvideo caps at 32).
    request.count = 16;
    request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    request.memory = V4L2_MEMORY_MMAP;
    if (xioctl(stream->fd, VIDIOC_REQBUFS, &request) < 0) return fail(stream, error, -errno);
    if (request.count < 2) return fail(stream, error, -ENOMEM);
    stream->count = request.count > REEL_V4L2_MAX_BUFFERS ? REEL_V4L2_MAX_BUFFERS : (int)request.count;
    for (int i = 0; i < stream->count; i++) {
        struct v4l2_buffer buffer;
        memset(&buffer, 0, sizeof buffer);
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        buffer.memory = V4L2_MEMORY_MMAP;
        buffer.index = (uint32_t)i;
        if (xioctl(stream->fd, VIDIOC_QUERYBUF, &buffer) < 0) return fail(stream, error, -errno);
        stream->lengths[i] = buffer.length;
        stream->starts[i] = mmap(NULL, buffer.length, PROT_READ | PROT_WRITE, MAP_SHARED, stream->fd, buffer.m.offset);
        if (stream->starts[i] == MAP_FAILED) return fail(stream, error, -errno);
        if (xioctl(stream->fd, VIDIOC_QBUF, &buffer) < 0) return fail(stream, error, -errno);
    }
    enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(stream->fd, VIDIOC_STREAMON, &type) < 0) return fail(stream, error, -errno);
    stream->streaming = 1;
    *error = 0;
    return stream;
}

int reel_v4l2_stream_next(reel_v4l2_stream *stream, int timeout_ms, reel_v4l2_buffer *out) {
    struct pollfd descriptor = { .fd = stream->fd, .events = POLLIN };
    int ready = poll(&descriptor, 1, timeout_ms);
    if (ready < 0) return errno == EINTR ? 0 : -errno;
    if (ready == 0) return 0;
    struct v4l2_buffer buffer;
    memset(&buffer, 0, sizeof buffer);
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer.memory = V4L2_MEMORY_MMAP;
    if (xioctl(stream->fd, VIDIOC_DQBUF, &buffer) < 0) return errno == EAGAIN ? 0 : -errno;
    if (buffer.index >= (uint32_t)stream->count) return -EIO;
    out->index = (int)buffer.index;
    out->data = stream->starts[buffer.index];
    out->size = buffer.bytesused;
    out->timestamp_us = (int64_t)buffer.timestamp.tv_sec * 1000000 + buffer.timestamp.tv_usec;
    out->sequence = buffer.sequence;
    out->damaged = (buffer.flags & V4L2_BUF_FLAG_ERROR) ? 1 : 0;
    return 1;
}

int reel_v4l2_stream_release(reel_v4l2_stream *stream, int index) {
    struct v4l2_buffer buffer;
    memset(&buffer, 0, sizeof buffer);
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer.memory = V4L2_MEMORY_MMAP;
    buffer.index = (uint32_t)index;
    return xioctl(stream->fd, VIDIOC_QBUF, &buffer) < 0 ? -errno : 0;
}
