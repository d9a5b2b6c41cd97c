#include "CLinuxCapture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/videodev2.h>

static int xioctl(int fd, unsigned long request, void *argument) {
    int result;
    do { result = ioctl(fd, request, argument); } while (result == -1 && errno == EINTR);
    return result;
}

int reel_v4l2_query_capture(const char *path, char *card, size_t card_length) {
    int fd = open(path, O_RDWR | O_NONBLOCK);
    if (fd < 0) return -errno;
    struct v4l2_capability capability;
    memset(&capability, 0, sizeof capability);
    int result = xioctl(fd, VIDIOC_QUERYCAP, &capability);
    int saved = errno;
    close(fd);
    if (result < 0) return -saved;
    uint32_t caps = (capability.capabilities & V4L2_CAP_DEVICE_CAPS) ? capability.device_caps : capability.capabilities;
    if (card && card_length > 0) {
        strncpy(card, (const char *)capability.card, card_length - 1);
        card[card_length - 1] = 0;
    }
    return (caps & V4L2_CAP_VIDEO_CAPTURE) ? 1 : 0;
}

static void add_mode(reel_v4l2_mode *modes, int capacity, int *count, const struct v4l2_fmtdesc *format,
                     uint32_t width, uint32_t height, uint32_t numerator, uint32_t denominator) {
    if (*count < capacity) {
        reel_v4l2_mode *mode = &modes[*count];
        uint32_t fourcc = format->pixelformat;
        for (int i = 0; i < 4; i++) mode->fourcc[i] = (char)((fourcc >> (8 * i)) & 0xff);
        mode->fourcc[4] = 0;
        mode->compressed = (format->flags & V4L2_FMT_FLAG_COMPRESSED) != 0;
        mode->width = width;
        mode->height = height;
        mode->interval_numerator = numerator;
        mode->interval_denominator = denominator;
    }
    (*count)++;
}

static void add_intervals(int fd, reel_v4l2_mode *modes, int capacity, int *count,
                          const struct v4l2_fmtdesc *format, uint32_t width, uint32_t height) {
    struct v4l2_frmivalenum interval;
    memset(&interval, 0, sizeof interval);
    interval.pixel_format = format->pixelformat;
    interval.width = width;
    interval.height = height;
    int found = 0;
    while (xioctl(fd, VIDIOC_ENUM_FRAMEINTERVALS, &interval) == 0) {
        if (interval.type == V4L2_FRMIVAL_TYPE_DISCRETE) {
            add_mode(modes, capacity, count, format, width, height, interval.discrete.numerator, interval.discrete.denominator);
        } else {
            // Continuous or stepwise: report the fastest rate the range allows.
            add_mode(modes, capacity, count, format, width, height, interval.stepwise.min.numerator,
                     interval.stepwise.min.denominator);
            found++;
            break;
        }
        found++;
        interval.index++;
    }
    if (!found) add_mode(modes, capacity, count, format, width, height, 0, 0);
}

int reel_v4l2_list_modes(const char *path, reel_v4l2_mode *modes, int capacity) {
    static const uint32_t common_sizes[][2] = {
        {160, 120}, {176, 144}, {320, 240}, {352, 288}, {640, 480}, {800, 600}, {960, 540},
        {1280, 720}, {1920, 1080}, {2560, 1440}, {3840, 2160}};
    int fd = open(path, O_RDWR | O_NONBLOCK);
    if (fd < 0) return -errno;
    int count = 0;
    struct v4l2_fmtdesc format;
    memset(&format, 0, sizeof format);
    format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    while (xioctl(fd, VIDIOC_ENUM_FMT, &format) == 0) {
        struct v4l2_frmsizeenum size;
        memset(&size, 0, sizeof size);
        size.pixel_format = format.pixelformat;
        while (xioctl(fd, VIDIOC_ENUM_FRAMESIZES, &size) == 0) {
            if (size.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
                add_intervals(fd, modes, capacity, &count, &format, size.discrete.width, size.discrete.height);
                size.index++;
            } else {
                for (size_t i = 0; i < sizeof common_sizes / sizeof common_sizes[0]; i++) {
                    uint32_t width = common_sizes[i][0], height = common_sizes[i][1];
                    if (width >= size.stepwise.min_width && width <= size.stepwise.max_width &&
                        height >= size.stepwise.min_height && height <= size.stepwise.max_height)
                        add_intervals(fd, modes, capacity, &count, &format, width, height);
                }
                break;
            }
        }
        format.index++;
    }
    close(fd);
    return count;
}

int reel_v4l2_list_controls(const char *path, reel_v4l2_control *controls, int capacity) {
    int fd = open(path, O_RDWR | O_NONBLOCK);
    if (fd < 0) return -errno;
    int count = 0;
    struct v4l2_query_ext_ctrl query;
    memset(&query, 0, sizeof query);
    query.id = V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND;
    while (xioctl(fd, VIDIOC_QUERY_EXT_CTRL, &query) == 0) {
        uint32_t id = query.id;
        if (query.type != V4L2_CTRL_TYPE_CTRL_CLASS && !(query.flags & V4L2_CTRL_FLAG_DISABLED) && query.elems <= 1) {
            if (count < capacity) {
                reel_v4l2_control *control = &controls[count];
                memset(control, 0, sizeof *control);
                control->id = id;
                strncpy(control->name, query.name, sizeof control->name - 1);
                control->type = query.type;
                control->minimum = query.minimum;
                control->maximum = query.maximum;
                control->step = query.step;
                control->default_value = query.default_value;
                control->flags = query.flags;
                if (!(query.flags & V4L2_CTRL_FLAG_WRITE_ONLY) && query.type != V4L2_CTRL_TYPE_BUTTON) {
                    struct v4l2_ext_control value;
                    memset(&value, 0, sizeof value);
                    value.id = id;
                    struct v4l2_ext_controls values;
                    memset(&values, 0, sizeof values);
                    values.which = V4L2_CTRL_WHICH_CUR_VAL;
                    values.count = 1;
                    values.controls = &value;
                    if (xioctl(fd, VIDIOC_G_EXT_CTRLS, &values) == 0) {
                        control->value = query.type == V4L2_CTRL_TYPE_INTEGER64 ? value.value64 : value.value;
                        control->has_value = 1;
                    }
                }
            }
            count++;
        }
        query.id = id | V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND;
    }
    close(fd);
    return count;
}

int reel_v4l2_menu_entry(const char *path, uint32_t id, uint32_t index, int integer_menu, char *name, size_t name_length) {
    int fd = open(path, O_RDWR | O_NONBLOCK);
    if (fd < 0) return -errno;
    struct v4l2_querymenu entry;
    memset(&entry, 0, sizeof entry);
    entry.id = id;
    entry.index = index;
    int result = xioctl(fd, VIDIOC_QUERYMENU, &entry);
    int saved = errno;
    close(fd);
    if (result < 0) return saved == EINVAL ? 0 : -saved;
    if (name && name_length > 0) {
        if (integer_menu) {
            snprintf(name, name_length, "%lld", (long long)entry.value);
        } else {
            strncpy(name, (const char *)entry.name, name_length - 1);
            name[name_length - 1] = 0;
        }
    }
    return 1;
}

int reel_v4l2_set_control(const char *path, uint32_t id, int64_t value, int is_64bit) {
    int fd = open(path, O_RDWR | O_NONBLOCK);
    if (fd < 0) return -errno;
    struct v4l2_ext_control control;
    memset(&control, 0, sizeof control);
    control.id = id;
    if (is_64bit) control.value64 = value; else control.value = (int32_t)value;
    struct v4l2_ext_controls controls;
    memset(&controls, 0, sizeof controls);
    controls.which = V4L2_CTRL_WHICH_CUR_VAL;
    controls.count = 1;
    controls.controls = &control;
    int result = xioctl(fd, VIDIOC_S_EXT_CTRLS, &controls);
    int saved = errno;
    close(fd);
    return result < 0 ? -saved : 0;
}
