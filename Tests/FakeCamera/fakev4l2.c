// An emulated V4L2 (UVC-like) camera as an LD_PRELOAD library, for tests on machines with no camera and no
// kernel modules. It answers the libc calls that libavdevice's v4l2 demuxer (and Reel's own enumeration)
// make on the configured device paths; every other call goes to libc untouched. See README.md for the
// configuration schema and for exactly what is modelled and what is not.
//
//   FAKE_V4L2_CONFIG=cameras.json [FAKE_V4L2_STATE=state.json] [FAKE_V4L2_STATS=1]
//   LD_PRELOAD=.build/fake-camera/libfakev4l2.so ffmpeg -f v4l2 -i /dev/video0 ...
//
// The device's file descriptor is a real timerfd (CLOCK_MONOTONIC): while streaming it is armed for the next
// event (next frame due, or the unplug), and fires at once while a filled buffer waits to be dequeued, so
// poll/select/epoll on it wake when a frame is ready. Frames are produced lazily: whenever the application
// calls in (poll, DQBUF, QBUF), every frame whose due time has passed is "captured" into the oldest queued
// buffer (or dropped, as a real camera drops frames when no buffer is queued), stamped with its due time.
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>

#include "json.h"

#define MAX_CAMERAS 8
#define MAX_MODES 32
#define MAX_BUFFERS 32  // uvcvideo's UVC_MAX_VIDEO_BUFFERS
#define MAX_FDS 65536
#define PICTURES 256    // pictures repeat every 256 frames (the numbers have 8 bits), so MJPEG is encoded once each
#define BLACK_PICTURE PICTURES  // a picture of black (the lens capped), drawn for the frames of `blackFrom`

// ---------------------------------------------------------------------------------------------------------
// Real libc functions

static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_close)(int);
static int (*real_ioctl)(int, unsigned long, ...);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static void *(*real_mmap64)(void *, size_t, int, int, int, off64_t);
static int (*real_poll)(struct pollfd *, nfds_t, int);
static int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
static ssize_t (*real_read)(int, void *, size_t);
static int (*real_stat)(const char *, struct stat *);
static int (*real_stat64)(const char *, struct stat64 *);
static int (*real_lstat)(const char *, struct stat *);
static int (*real_lstat64)(const char *, struct stat64 *);
static int (*real_fstat)(int, struct stat *);
static int (*real_fstat64)(int, struct stat64 *);
static int (*real_fstatat)(int, const char *, struct stat *, int);
static int (*real_fstatat64)(int, const char *, struct stat64 *, int);
static int (*real_xstat)(int, const char *, struct stat *);
static int (*real_xstat64)(int, const char *, struct stat64 *);
static int (*real_lxstat)(int, const char *, struct stat *);
static int (*real_lxstat64)(int, const char *, struct stat64 *);
static int (*real_fxstat)(int, int, struct stat *);
static int (*real_fxstat64)(int, int, struct stat64 *);
static int (*real_access)(const char *, int);
static DIR *(*real_opendir)(const char *);
static FILE *(*real_fopen)(const char *, const char *);
static FILE *(*real_fopen64)(const char *, const char *);
static struct dirent *(*real_readdir)(DIR *);
static struct dirent64 *(*real_readdir64)(DIR *);
static int (*real_closedir)(DIR *);

static void *resolve(void **slot, const char *symbol) {
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!f) { f = dlsym(RTLD_NEXT, symbol); __atomic_store_n(slot, f, __ATOMIC_RELEASE); }
    return f;
}
#define REAL(name, symbol) ((__typeof__(real_##name))resolve((void **)&real_##name, symbol))

// ---------------------------------------------------------------------------------------------------------
// Model

typedef struct {
    uint32_t fourcc;
    uint32_t width, height;
    uint32_t fps;
} mode;

enum { CTRL_NORMAL, CTRL_CLASS_ENTRY };

typedef struct {
    uint32_t id;
    const char *key;    // v4l2-ctl's name, used in the state file
    const char *label;  // what QUERYCTRL reports
    uint32_t type;
    int32_t minimum, maximum, step, def;
    uint32_t menu_mask;           // menus: the valid indices
    const char *const *menu;      // menus: names by index
    int32_t value;
} control;

static const char *const power_line_menu[] = { "Disabled", "50 Hz", "60 Hz" };
static const char *const exposure_menu[] = { "Auto Mode", "Manual Mode", "Shutter Priority Mode", "Aperture Priority Mode" };

// A typical UVC webcam's controls, sorted by id (V4L2_CTRL_FLAG_NEXT_CTRL walks them in this order).
static const control control_template[] = {
    { V4L2_CID_USER_CLASS, "user_controls", "User Controls", V4L2_CTRL_TYPE_CTRL_CLASS, 0, 0, 0, 0, 0, NULL, 0 },
    { V4L2_CID_BRIGHTNESS, "brightness", "Brightness", V4L2_CTRL_TYPE_INTEGER, -64, 64, 1, 0, 0, NULL, 0 },
    { V4L2_CID_CONTRAST, "contrast", "Contrast", V4L2_CTRL_TYPE_INTEGER, 0, 64, 1, 32, 0, NULL, 0 },
    { V4L2_CID_SATURATION, "saturation", "Saturation", V4L2_CTRL_TYPE_INTEGER, 0, 128, 1, 64, 0, NULL, 0 },
    { V4L2_CID_AUTO_WHITE_BALANCE, "white_balance_automatic", "White Balance, Automatic", V4L2_CTRL_TYPE_BOOLEAN, 0, 1, 1, 1, 0, NULL, 0 },
    { V4L2_CID_GAIN, "gain", "Gain", V4L2_CTRL_TYPE_INTEGER, 0, 100, 1, 0, 0, NULL, 0 },
    { V4L2_CID_POWER_LINE_FREQUENCY, "power_line_frequency", "Power Line Frequency", V4L2_CTRL_TYPE_MENU, 0, 2, 1, 1, 0x7, power_line_menu, 0 },
    { V4L2_CID_WHITE_BALANCE_TEMPERATURE, "white_balance_temperature", "White Balance Temperature", V4L2_CTRL_TYPE_INTEGER, 2800, 6500, 10, 4600, 0, NULL, 0 },
    { V4L2_CID_CAMERA_CLASS, "camera_controls", "Camera Controls", V4L2_CTRL_TYPE_CTRL_CLASS, 0, 0, 0, 0, 0, NULL, 0 },
    { V4L2_CID_EXPOSURE_AUTO, "auto_exposure", "Auto Exposure", V4L2_CTRL_TYPE_MENU, 0, 3, 1, 3, 0xa, exposure_menu, 0 },
    { V4L2_CID_EXPOSURE_ABSOLUTE, "exposure_time_absolute", "Exposure Time, Absolute", V4L2_CTRL_TYPE_INTEGER, 3, 2047, 1, 250, 0, NULL, 0 },
    { V4L2_CID_EXPOSURE_AUTO_PRIORITY, "exposure_dynamic_framerate", "Exposure, Dynamic Framerate", V4L2_CTRL_TYPE_BOOLEAN, 0, 1, 1, 0, 0, NULL, 0 },
    { V4L2_CID_FOCUS_ABSOLUTE, "focus_absolute", "Focus, Absolute", V4L2_CTRL_TYPE_INTEGER, 0, 250, 5, 0, 0, NULL, 0 },
    { V4L2_CID_FOCUS_AUTO, "focus_automatic_continuous", "Focus, Automatic Continuous", V4L2_CTRL_TYPE_BOOLEAN, 0, 1, 1, 1, 0, NULL, 0 },
    { V4L2_CID_ZOOM_ABSOLUTE, "zoom_absolute", "Zoom, Absolute", V4L2_CTRL_TYPE_INTEGER, 100, 500, 1, 100, 0, NULL, 0 },
    { V4L2_CID_FLASH_CLASS, "flash_controls", "Flash Controls", V4L2_CTRL_TYPE_CTRL_CLASS, 0, 0, 0, 0, 0, NULL, 0 },
    { V4L2_CID_FLASH_TORCH_INTENSITY, "torch_intensity", "Torch Intensity", V4L2_CTRL_TYPE_INTEGER, 0, 100, 1, 0, 0, NULL, 0 },
};
#define CONTROLS ((int)(sizeof control_template / sizeof control_template[0]))

enum { BUF_DEQUEUED, BUF_QUEUED, BUF_DONE };

typedef struct {
    int state;
    uint32_t bytesused, sequence;
    struct timeval timestamp;
} buffer;

typedef struct {
    // configuration
    char path[64];
    char card[32];
    int minor;
    mode modes[MAX_MODES];
    int mode_count;
    double unplug_after;  // seconds after STREAMON, 0 = never
    long stall_after;     // frames, <0 = never
    double jitter_ms;
    double start_delay_s;  // the first frame comes this much later than 1/fps after STREAMON
    double fps_actual;    // 0 = as negotiated
    int busy, capture;
    long freeze_from, freeze_frames;  // frames [from, from + frames) show picture `from` (a stuck camera); <0 = never
    long black_from, black_frames;    // frames [from, from + frames) are black (a capped lens); <0 = never

    int unplugged;        // once set, for the life of the process
    control controls[CONTROLS];

    // format (shared by every open file, as on a real device)
    uint32_t fourcc, width, height, interval_den;  // interval_den = frames per second (numerator 1)

    // streaming, owned by one open file
    int owner;            // fd, or -1
    int memfd;
    uint8_t *memory;
    int buffer_count;
    uint32_t buffer_length, buffer_stride;  // stride: page-aligned length, the mmap offset step
    buffer buffers[MAX_BUFFERS];
    int queued[MAX_BUFFERS], queued_head, queued_count;  // FIFO of indices
    int done[MAX_BUFFERS], done_head, done_count;
    int streaming, stalled;
    int64_t t0, next_due, unplug_at;  // ns, CLOCK_MONOTONIC
    uint32_t sequence;
    uint64_t rng;

    // MJPEG pictures, encoded on first use
    AVCodecContext *encoder;
    AVFrame *frame;
    AVPacket *packet;
    uint32_t jpeg_width, jpeg_height;
    uint8_t *jpeg[PICTURES + 1];  // and the black picture
    int jpeg_size[PICTURES + 1];

    // statistics
    uint64_t delivered, dropped;
} camera;

static camera cameras[MAX_CAMERAS];
static int camera_count;
static camera *fd_camera[MAX_FDS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *state_path;
static int stats_enabled;
static int64_t cpu_ns;  // thread CPU time spent inside the emulator (FAKE_V4L2_STATS)

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint32_t fourcc_from(const char *s) {
    char c[4] = { ' ', ' ', ' ', ' ' };
    for (int i = 0; i < 4 && s[i]; i++) c[i] = s[i];
    return v4l2_fourcc(c[0], c[1], c[2], c[3]);
}

static int known_format(uint32_t f) {
    return f == V4L2_PIX_FMT_YUYV || f == V4L2_PIX_FMT_MJPEG || f == V4L2_PIX_FMT_NV12;
}

// ---------------------------------------------------------------------------------------------------------
// Configuration

static void load_config(void) {
    stats_enabled = getenv("FAKE_V4L2_STATS") != NULL;
    state_path = getenv("FAKE_V4L2_STATE");
    const char *path = getenv("FAKE_V4L2_CONFIG");
    if (!path) return;
    FILE *file = fopen(path, "r");
    if (!file) { fprintf(stderr, "fakev4l2: cannot read %s\n", path); return; }
    char *text = NULL;
    size_t size = 0, length = 0;
    for (;;) {
        if (length + 4096 + 1 > size) {
            size = size ? size * 2 : 8192;
            char *grown = realloc(text, size);
            if (!grown) { free(text); fclose(file); return; }
            text = grown;
        }
        size_t n = fread(text + length, 1, 4096, file);
        length += n;
        if (n == 0) break;
    }
    fclose(file);
    text[length] = 0;
    const char *where = NULL;
    json_value *root = json_parse(text, &where);
    if (!root) {
        fprintf(stderr, "fakev4l2: %s: JSON syntax error at byte %ld\n", path, (long)(where - text));
        free(text);
        return;
    }
    const json_value *list = json_get(root, "cameras");
    for (int i = 0; list && list->type == JSON_ARRAY && i < list->count && camera_count < MAX_CAMERAS; i++) {
        const json_value *c = list->items[i];
        camera *cam = &cameras[camera_count];
        memset(cam, 0, sizeof *cam);
        snprintf(cam->path, sizeof cam->path, "%s", json_string(c, "path", "/dev/video0"));
        snprintf(cam->card, sizeof cam->card, "%s", json_string(c, "card", "Fake UVC Camera"));
        const char *digits = cam->path + strcspn(cam->path, "0123456789");
        cam->minor = atoi(digits);
        cam->unplug_after = json_number(c, "unplugAfter", 0);
        cam->stall_after = (long)json_number(c, "stallAfter", -1);
        cam->jitter_ms = json_number(c, "jitterMs", 0);
        cam->start_delay_s = json_number(c, "startDelay", 0);
        cam->fps_actual = json_number(c, "fpsActual", 0);
        cam->busy = json_bool(c, "busy", 0);
        cam->capture = json_bool(c, "capture", 1);
        cam->freeze_from = (long)json_number(c, "freezeFrom", -1);
        cam->freeze_frames = (long)json_number(c, "freezeFrames", 0);
        cam->black_from = (long)json_number(c, "blackFrom", -1);
        cam->black_frames = (long)json_number(c, "blackFrames", 0);
        const json_value *modes = json_get(c, "modes");
        for (int m = 0; modes && modes->type == JSON_ARRAY && m < modes->count && cam->mode_count < MAX_MODES; m++) {
            const json_value *mv = modes->items[m];
            mode md;
            md.fourcc = fourcc_from(json_string(mv, "format", "YUYV"));
            unsigned w = 0, h = 0;
            if (sscanf(json_string(mv, "size", "640x480"), "%ux%u", &w, &h) != 2 || !w || !h || (w & 1)) {
                fprintf(stderr, "fakev4l2: %s: bad size in mode %d\n", cam->path, m);
                continue;
            }
            if (!known_format(md.fourcc)) {
                fprintf(stderr, "fakev4l2: %s: unsupported format in mode %d (YUYV, MJPG, NV12)\n", cam->path, m);
                continue;
            }
            md.width = w;
            md.height = h;
            md.fps = (uint32_t)json_number(mv, "fps", 30);
            if (!md.fps) md.fps = 30;
            cam->modes[cam->mode_count++] = md;
        }
        if (!cam->mode_count) cam->modes[cam->mode_count++] = (mode){ V4L2_PIX_FMT_YUYV, 640, 480, 30 };
        memcpy(cam->controls, control_template, sizeof control_template);
        for (int k = 0; k < CONTROLS; k++) cam->controls[k].value = cam->controls[k].def;
        cam->fourcc = cam->modes[0].fourcc;
        cam->width = cam->modes[0].width;
        cam->height = cam->modes[0].height;
        cam->interval_den = cam->modes[0].fps;
        cam->owner = -1;
        cam->memfd = -1;
        cam->rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)camera_count;
        camera_count++;
    }
    json_free(root);
    free(text);
}

static void init(void) { pthread_once(&once, load_config); }

static camera *camera_at(const char *path) {
    if (!path || strncmp(path, "/dev/", 5)) return NULL;
    init();
    for (int i = 0; i < camera_count; i++)
        if (!strcmp(cameras[i].path, path)) return &cameras[i];
    return NULL;
}

static camera *camera_of(int fd) {
    if (fd < 0 || fd >= MAX_FDS) return NULL;
    return __atomic_load_n(&fd_camera[fd], __ATOMIC_ACQUIRE);
}

// ---------------------------------------------------------------------------------------------------------
// Formats

static uint32_t bytes_per_line(uint32_t fourcc, uint32_t width) {
    return fourcc == V4L2_PIX_FMT_YUYV ? width * 2 : fourcc == V4L2_PIX_FMT_NV12 ? width : 0;
}

static uint32_t size_image(uint32_t fourcc, uint32_t width, uint32_t height) {
    if (fourcc == V4L2_PIX_FMT_NV12) return width * height * 3 / 2;
    return width * height * 2;  // YUYV; MJPEG: the usual dwMaxVideoFrameBufferSize
}

static void fill_pix_format(const camera *cam, struct v4l2_pix_format *pix) {
    memset(pix, 0, sizeof *pix);
    pix->width = cam->width;
    pix->height = cam->height;
    pix->pixelformat = cam->fourcc;
    pix->field = V4L2_FIELD_NONE;
    pix->bytesperline = bytes_per_line(cam->fourcc, cam->width);
    pix->sizeimage = size_image(cam->fourcc, cam->width, cam->height);
    pix->colorspace = V4L2_COLORSPACE_SRGB;
}

// The distinct formats in configuration order; index -> fourcc (0 past the end).
static uint32_t format_at(const camera *cam, uint32_t index) {
    uint32_t seen = 0;
    for (int i = 0; i < cam->mode_count; i++) {
        int first = 1;
        for (int j = 0; j < i; j++) if (cam->modes[j].fourcc == cam->modes[i].fourcc) first = 0;
        if (first && seen++ == index) return cam->modes[i].fourcc;
    }
    return 0;
}

static int has_format(const camera *cam, uint32_t fourcc) {
    for (int i = 0; i < cam->mode_count; i++) if (cam->modes[i].fourcc == fourcc) return 1;
    return 0;
}

// The index-th distinct size of a format; 0 if none.
static const mode *size_at(const camera *cam, uint32_t fourcc, uint32_t index) {
    uint32_t seen = 0;
    for (int i = 0; i < cam->mode_count; i++) {
        const mode *m = &cam->modes[i];
        if (m->fourcc != fourcc) continue;
        int first = 1;
        for (int j = 0; j < i; j++)
            if (cam->modes[j].fourcc == fourcc && cam->modes[j].width == m->width && cam->modes[j].height == m->height) first = 0;
        if (first && seen++ == index) return m;
    }
    return NULL;
}

// Frame rates of one format and size, fastest first; returns how many.
static int rates_of(const camera *cam, uint32_t fourcc, uint32_t width, uint32_t height, uint32_t *rates) {
    int count = 0;
    for (int i = 0; i < cam->mode_count; i++) {
        const mode *m = &cam->modes[i];
        if (m->fourcc != fourcc || m->width != width || m->height != height) continue;
        int dup = 0;
        for (int j = 0; j < count; j++) if (rates[j] == m->fps) dup = 1;
        if (!dup) rates[count++] = m->fps;
    }
    for (int i = 1; i < count; i++)
        for (int j = i; j > 0 && rates[j] > rates[j - 1]; j--) { uint32_t t = rates[j]; rates[j] = rates[j - 1]; rates[j - 1] = t; }
    return count;
}

// uvcvideo's choice: the requested format if the device has it, else the first; then the nearest size.
static void choose_format(const camera *cam, struct v4l2_pix_format *pix, uint32_t *fps) {
    uint32_t fourcc = has_format(cam, pix->pixelformat) ? pix->pixelformat : format_at(cam, 0);
    const mode *best = NULL;
    uint64_t best_distance = UINT64_MAX;
    for (int i = 0; i < cam->mode_count; i++) {
        const mode *m = &cam->modes[i];
        if (m->fourcc != fourcc) continue;
        int64_t dw = (int64_t)m->width - pix->width, dh = (int64_t)m->height - pix->height;
        uint64_t distance = (uint64_t)(dw * dw + dh * dh);
        if (distance < best_distance) { best_distance = distance; best = m; }
    }
    uint32_t rates[MAX_MODES];
    rates_of(cam, fourcc, best->width, best->height, rates);
    camera tmp = *cam;  // cheap enough: only the format fields are read below
    tmp.fourcc = fourcc;
    tmp.width = best->width;
    tmp.height = best->height;
    fill_pix_format(&tmp, pix);
    if (fps) *fps = rates[0];
}

// ---------------------------------------------------------------------------------------------------------
// Pictures: left half luma 22 + 13 * (n mod 16), right half 22 + 13 * ((n / 16) mod 16), neutral chroma, as
// Reel's numberedPictures; the bottom eighth is dark with a white bar that moves one step per frame.

static uint32_t flat_height(uint32_t height) {
    uint32_t h = (height * 7 / 8) & ~15u;
    return h ? h : height;
}

static void levels(uint32_t n, int *left, int *right, uint32_t width, uint32_t *bar_x, uint32_t *bar_w) {
    *left = 22 + 13 * (int)(n % 16);
    *right = 22 + 13 * (int)((n / 16) % 16);
    *bar_w = width / 16 ? width / 16 : 1;
    *bar_x = (n % PICTURES) * (width - *bar_w) / (PICTURES - 1);
}

static void draw_luma_rows(uint8_t *plane, size_t stride, uint32_t width, uint32_t height, uint32_t n, int full_range) {
    int left, right;
    uint32_t bar_x, bar_w, top = flat_height(height);
    levels(n, &left, &right, width, &bar_x, &bar_w);
    int dark = 16, white = 235;
    if (n == BLACK_PICTURE) { left = right = 16; bar_w = 0; white = 16; }
    if (full_range) {  // the same brightness in a JPEG's full range
        left = (int)((left - 16) * 255.0 / 219 + 0.5);
        right = (int)((right - 16) * 255.0 / 219 + 0.5);
        dark = 0;
        white = 255;
    }
    for (uint32_t y = 0; y < height; y++) {
        uint8_t *row = plane + y * stride;
        if (y < top) {
            memset(row, left, width / 2);
            memset(row + width / 2, right, width - width / 2);
        } else {
            memset(row, dark, width);
            memset(row + bar_x, white, bar_w);
        }
    }
}

static void draw_yuyv(uint8_t *out, uint32_t width, uint32_t height, uint32_t n) {
    int left, right;
    uint32_t bar_x, bar_w, top = flat_height(height);
    levels(n, &left, &right, width, &bar_x, &bar_w);
    if (n == BLACK_PICTURE) { left = right = 16; bar_w = 0; }
    size_t stride = (size_t)width * 2;
    uint8_t *flat = out, *strip = top < height ? out + top * stride : NULL;
    for (uint32_t x = 0; x < width; x++) {
        flat[2 * x] = (uint8_t)(x < width / 2 ? left : right);
        flat[2 * x + 1] = 128;
        if (strip) {
            strip[2 * x] = (uint8_t)(x >= bar_x && x < bar_x + bar_w ? 235 : 16);
            strip[2 * x + 1] = 128;
        }
    }
    for (uint32_t y = 1; y < top; y++) memcpy(out + y * stride, flat, stride);
    for (uint32_t y = top + 1; y < height; y++) memcpy(out + y * stride, strip, stride);
}

static void draw_nv12(uint8_t *out, uint32_t width, uint32_t height, uint32_t n) {
    draw_luma_rows(out, width, width, height, n, 0);
    memset(out + (size_t)width * height, 128, (size_t)width * height / 2);
}

// The JPEG of picture n at the current size (encoded once, then cached); size 0 on failure.
static const uint8_t *jpeg_picture(camera *cam, uint32_t n, int *size) {
    n = n == BLACK_PICTURE ? BLACK_PICTURE : n % PICTURES;
    if (cam->jpeg_width != cam->width || cam->jpeg_height != cam->height) {
        for (int i = 0; i <= PICTURES; i++) { free(cam->jpeg[i]); cam->jpeg[i] = NULL; cam->jpeg_size[i] = 0; }
        avcodec_free_context(&cam->encoder);
        av_frame_free(&cam->frame);
        av_packet_free(&cam->packet);
        const AVCodec *codec = avcodec_find_encoder(AV_CODEC_ID_MJPEG);
        if (!codec) { *size = 0; return NULL; }
        cam->encoder = avcodec_alloc_context3(codec);
        cam->encoder->width = (int)cam->width;
        cam->encoder->height = (int)cam->height;
        cam->encoder->pix_fmt = AV_PIX_FMT_YUVJ422P;  // what UVC cameras send
        cam->encoder->time_base = (AVRational){ 1, 30 };
        cam->encoder->flags |= AV_CODEC_FLAG_QSCALE;
        cam->encoder->global_quality = FF_QP2LAMBDA * 2;
        cam->encoder->thread_count = 1;
        if (avcodec_open2(cam->encoder, codec, NULL) < 0) { avcodec_free_context(&cam->encoder); *size = 0; return NULL; }
        cam->frame = av_frame_alloc();
        cam->frame->format = AV_PIX_FMT_YUVJ422P;
        cam->frame->width = (int)cam->width;
        cam->frame->height = (int)cam->height;
        av_frame_get_buffer(cam->frame, 0);
        cam->packet = av_packet_alloc();
        cam->jpeg_width = cam->width;
        cam->jpeg_height = cam->height;
    }
    if (!cam->jpeg[n] && cam->encoder) {
        AVFrame *f = cam->frame;
        av_frame_make_writable(f);
        draw_luma_rows(f->data[0], (size_t)f->linesize[0], cam->width, cam->height, n, 1);
        for (uint32_t y = 0; y < cam->height; y++) {
            memset(f->data[1] + y * f->linesize[1], 128, cam->width / 2);
            memset(f->data[2] + y * f->linesize[2], 128, cam->width / 2);
        }
        f->pts = n;
        f->quality = cam->encoder->global_quality;
        if (avcodec_send_frame(cam->encoder, f) >= 0 && avcodec_receive_packet(cam->encoder, cam->packet) >= 0) {
            cam->jpeg[n] = malloc((size_t)cam->packet->size);
            if (cam->jpeg[n]) {
                memcpy(cam->jpeg[n], cam->packet->data, (size_t)cam->packet->size);
                cam->jpeg_size[n] = cam->packet->size;
            }
            av_packet_unref(cam->packet);
        }
    }
    *size = cam->jpeg_size[n];
    return cam->jpeg[n];
}

// The picture frame `sequence` shows: its own, the one a freeze holds, or black.
static uint32_t picture_of(const camera *cam, uint32_t sequence) {
    if (cam->black_from >= 0 && sequence >= (uint32_t)cam->black_from && sequence < (uint32_t)(cam->black_from + cam->black_frames))
        return BLACK_PICTURE;
    if (cam->freeze_from >= 0 && sequence >= (uint32_t)cam->freeze_from && sequence < (uint32_t)(cam->freeze_from + cam->freeze_frames))
        return (uint32_t)cam->freeze_from;
    return sequence;
}

static uint32_t draw_frame(camera *cam, uint8_t *out, uint32_t n) {
    switch (cam->fourcc) {
    case V4L2_PIX_FMT_YUYV: draw_yuyv(out, cam->width, cam->height, n); return cam->width * cam->height * 2;
    case V4L2_PIX_FMT_NV12: draw_nv12(out, cam->width, cam->height, n); return cam->width * cam->height * 3 / 2;
    case V4L2_PIX_FMT_MJPEG: {
        int size = 0;
        const uint8_t *jpeg = jpeg_picture(cam, n, &size);
        if (!jpeg || (uint32_t)size > cam->buffer_length) return 0;
        memcpy(out, jpeg, (size_t)size);
        return (uint32_t)size;
    }
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------------------
// Streaming (called with the lock held)

static double delivery_fps(const camera *cam) {
    return cam->fps_actual > 0 ? cam->fps_actual : (double)cam->interval_den;
}

static double uniform(camera *cam) {  // [-1, 1)
    cam->rng ^= cam->rng << 13;
    cam->rng ^= cam->rng >> 7;
    cam->rng ^= cam->rng << 17;
    return (double)(cam->rng >> 11) / (double)(1ull << 52) - 1.0;
}

static int64_t due_time(camera *cam, uint32_t sequence) {
    int64_t due = cam->t0 + (int64_t)(cam->start_delay_s * 1e9) + (int64_t)((double)(sequence + 1) * 1e9 / delivery_fps(cam));
    if (cam->jitter_ms > 0) due += (int64_t)(uniform(cam) * cam->jitter_ms * 1e6);
    return due;
}

static int check_unplug(camera *cam, int64_t now) {
    if (!cam->unplugged && cam->streaming && cam->unplug_at && now >= cam->unplug_at) cam->unplugged = 1;
    return cam->unplugged;
}

static void catch_up(camera *cam, int64_t now) {
    if (!cam->streaming) return;
    while (!cam->stalled && cam->next_due <= now) {
        if (cam->unplug_at && cam->next_due >= cam->unplug_at) break;
        if (cam->stall_after >= 0 && cam->sequence >= (uint64_t)cam->stall_after) { cam->stalled = 1; break; }
        if (cam->queued_count) {
            int index = cam->queued[cam->queued_head];
            cam->queued_head = (cam->queued_head + 1) % MAX_BUFFERS;
            cam->queued_count--;
            buffer *b = &cam->buffers[index];
            b->bytesused = draw_frame(cam, cam->memory + (size_t)index * cam->buffer_stride, picture_of(cam, cam->sequence));
            b->sequence = cam->sequence;
            b->timestamp.tv_sec = cam->next_due / 1000000000;
            b->timestamp.tv_usec = (cam->next_due % 1000000000) / 1000;
            b->state = BUF_DONE;
            cam->done[(cam->done_head + cam->done_count) % MAX_BUFFERS] = index;
            cam->done_count++;
            cam->delivered++;
        } else {
            cam->dropped++;
        }
        cam->sequence++;
        int64_t next = due_time(cam, cam->sequence);
        cam->next_due = next > cam->next_due ? next : cam->next_due + 1;
    }
    check_unplug(cam, now);
}

// Keeps the timerfd's readiness true to the device: readable now if a buffer is done (or the device is gone),
// else at the next frame or the unplug, else never. timerfd_settime also clears earlier expirations.
static void rearm(camera *cam, int fd) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    int64_t when = 0;
    if (cam->streaming || cam->unplugged) {
        if (cam->done_count || cam->unplugged) when = 1;  // an absolute time long past: fires at once
        else {
            if (!cam->stalled) when = cam->next_due;
            if (cam->unplug_at && (!when || cam->unplug_at < when)) when = cam->unplug_at;
        }
    }
    spec.it_value.tv_sec = when / 1000000000;
    spec.it_value.tv_nsec = when % 1000000000;
    timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

static void release_buffers(camera *cam) {
    if (cam->memory) munmap(cam->memory, (size_t)cam->buffer_stride * (size_t)cam->buffer_count);
    if (cam->memfd >= 0) REAL(close, "close")(cam->memfd);
    cam->memory = NULL;
    cam->memfd = -1;
    cam->buffer_count = 0;
    cam->owner = -1;
    cam->streaming = 0;
}

static void stop_streaming(camera *cam) {
    cam->streaming = 0;
    cam->stalled = 0;
    cam->queued_count = cam->done_count = 0;
    cam->queued_head = cam->done_head = 0;
    for (int i = 0; i < cam->buffer_count; i++) cam->buffers[i].state = BUF_DEQUEUED;
}

// ---------------------------------------------------------------------------------------------------------
// Controls

static control *find_control(camera *cam, uint32_t id) {
    for (int i = 0; i < CONTROLS; i++) if (cam->controls[i].id == id) return &cam->controls[i];
    return NULL;
}

static int32_t control_value(camera *cam, uint32_t id) {
    control *c = find_control(cam, id);
    return c ? c->value : 0;
}

static int control_inactive(camera *cam, const control *c) {
    switch (c->id) {
    case V4L2_CID_WHITE_BALANCE_TEMPERATURE: return control_value(cam, V4L2_CID_AUTO_WHITE_BALANCE) != 0;
    case V4L2_CID_EXPOSURE_ABSOLUTE: return control_value(cam, V4L2_CID_EXPOSURE_AUTO) != V4L2_EXPOSURE_MANUAL;
    case V4L2_CID_FOCUS_ABSOLUTE: return control_value(cam, V4L2_CID_FOCUS_AUTO) != 0;
    }
    return 0;
}

static uint32_t control_flags(camera *cam, const control *c) {
    uint32_t flags = 0;
    if (c->type == V4L2_CTRL_TYPE_CTRL_CLASS) flags |= V4L2_CTRL_FLAG_READ_ONLY | V4L2_CTRL_FLAG_WRITE_ONLY;
    if (control_inactive(cam, c)) flags |= V4L2_CTRL_FLAG_INACTIVE;
    if (c->id == V4L2_CID_AUTO_WHITE_BALANCE || c->id == V4L2_CID_EXPOSURE_AUTO || c->id == V4L2_CID_FOCUS_AUTO)
        flags |= V4L2_CTRL_FLAG_UPDATE;  // changing it changes other controls' flags
    return flags;
}

// Validates (and, as uvcvideo does, rounds and clamps integers and booleans) a value to be set.
static int control_check(camera *cam, const control *c, int32_t *value) {
    if (c->type == V4L2_CTRL_TYPE_CTRL_CLASS) return EACCES;
    if (control_inactive(cam, c)) return EACCES;
    switch (c->type) {
    case V4L2_CTRL_TYPE_INTEGER: {
        int64_t v = *value, step = c->step ? c->step : 1;
        v = c->minimum + ((v - c->minimum) + (v >= c->minimum ? step / 2 : -step / 2)) / step * step;
        if (v < c->minimum) v = c->minimum;
        if (v > c->maximum) v = c->maximum;
        *value = (int32_t)v;
        return 0;
    }
    case V4L2_CTRL_TYPE_BOOLEAN:
        *value = *value < 0 ? 0 : *value > 1 ? 1 : *value;
        return 0;
    case V4L2_CTRL_TYPE_MENU:
        if (*value < c->minimum || *value > c->maximum) return ERANGE;
        if (!(c->menu_mask & (1u << *value))) return EINVAL;
        return 0;
    }
    return EINVAL;
}

static void write_state(void) {
    if (!state_path) return;
    char temporary[4096];
    snprintf(temporary, sizeof temporary, "%s.tmp%d", state_path, (int)getpid());
    FILE *f = fopen(temporary, "w");
    if (!f) return;
    fprintf(f, "{\"cameras\": [");
    for (int i = 0; i < camera_count; i++) {
        camera *cam = &cameras[i];
        char cc[5] = { (char)(cam->fourcc & 0xff), (char)((cam->fourcc >> 8) & 0xff), (char)((cam->fourcc >> 16) & 0xff),
                       (char)(cam->fourcc >> 24), 0 };
        fprintf(f, "%s\n  {\"path\": \"%s\", \"format\": \"%s\", \"size\": \"%ux%u\", \"fps\": %u, \"streaming\": %s, "
                   "\"unplugged\": %s, \"controls\": {",
                i ? "," : "", cam->path, cc, cam->width, cam->height, cam->interval_den, cam->streaming ? "true" : "false",
                cam->unplugged ? "true" : "false");
        int first = 1;
        for (int k = 0; k < CONTROLS; k++) {
            control *c = &cam->controls[k];
            if (c->type == V4L2_CTRL_TYPE_CTRL_CLASS) continue;
            fprintf(f, "%s\"%s\": %d", first ? "" : ", ", c->key, c->value);
            first = 0;
        }
        fprintf(f, "}}");
    }
    fprintf(f, "\n]}\n");
    fclose(f);
    rename(temporary, state_path);
}

static int query_control(camera *cam, struct v4l2_queryctrl *q) {
    uint32_t id = q->id;
    control *c = NULL;
    if (id & (V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND)) {
        uint32_t after = id & ~(V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND);
        if (id & V4L2_CTRL_FLAG_NEXT_CTRL)  // no compound controls here
            for (int i = 0; i < CONTROLS && !c; i++) if (cam->controls[i].id > after) c = &cam->controls[i];
    } else {
        c = find_control(cam, id);
    }
    if (!c) return EINVAL;
    memset(q, 0, sizeof *q);
    q->id = c->id;
    q->type = c->type;
    snprintf((char *)q->name, sizeof q->name, "%s", c->label);
    q->minimum = c->minimum;
    q->maximum = c->maximum;
    q->step = c->step;
    q->default_value = c->def;
    q->flags = control_flags(cam, c);
    return 0;
}

static int get_ext(camera *cam, struct v4l2_ext_controls *e, int mode /* 0 get, 1 try, 2 set */) {
    uint32_t which = e->which;
    if (which == V4L2_CTRL_WHICH_REQUEST_VAL) return EINVAL;
    if (which == V4L2_CTRL_WHICH_DEF_VAL && mode) return EINVAL;
    if (which != V4L2_CTRL_WHICH_CUR_VAL && which != V4L2_CTRL_WHICH_DEF_VAL) {
        // a control class
        if (which != V4L2_CTRL_CLASS_USER && which != V4L2_CTRL_CLASS_CAMERA && which != V4L2_CTRL_CLASS_FLASH) return EINVAL;
    }
    if (e->count == 0) return 0;
    if (e->count > 64) return E2BIG;
    // TRY and SET check each control against the state left by the ones before it in the same call (so
    // "autofocus off, focus 100" works in one call), then keep (SET) or roll back (TRY, or any failure).
    int32_t saved[CONTROLS];
    for (int k = 0; k < CONTROLS; k++) saved[k] = cam->controls[k].value;
    for (uint32_t i = 0; i < e->count; i++) {
        struct v4l2_ext_control *x = &e->controls[i];
        control *c = find_control(cam, x->id);
        int err = 0;
        int32_t value = 0;
        if (!c) err = EINVAL;
        else if (which != V4L2_CTRL_WHICH_CUR_VAL && which != V4L2_CTRL_WHICH_DEF_VAL && V4L2_CTRL_ID2WHICH(x->id) != which)
            err = EINVAL;
        else if (c->type == V4L2_CTRL_TYPE_CTRL_CLASS) err = EACCES;
        else if (mode) {
            value = x->value;
            err = control_check(cam, c, &value);
        }
        if (err) {
            for (int k = 0; k < CONTROLS; k++) cam->controls[k].value = saved[k];
            e->error_idx = mode == 2 ? e->count : i;  // as the kernel: for SET, "failed before anything was written"
            return err;
        }
        if (mode == 0) x->value = which == V4L2_CTRL_WHICH_DEF_VAL ? c->def : c->value;
        else { x->value = value; c->value = value; }
    }
    if (mode == 1) for (int k = 0; k < CONTROLS; k++) cam->controls[k].value = saved[k];
    if (mode == 2) write_state();
    return 0;
}

// ---------------------------------------------------------------------------------------------------------
// ioctl

static int device_ioctl(int fd, camera *cam, unsigned long request, void *arg) {
    if (cam->unplugged || check_unplug(cam, now_ns())) return ENODEV;
    if (!arg && request != VIDIOC_LOG_STATUS) return EFAULT;
    int capture_ioctl = 1;
    switch (request) {
    case VIDIOC_QUERYCAP: {
        struct v4l2_capability *cap = arg;
        memset(cap, 0, sizeof *cap);
        snprintf((char *)cap->driver, sizeof cap->driver, "uvcvideo");
        snprintf((char *)cap->card, sizeof cap->card, "%s", cam->card);
        snprintf((char *)cap->bus_info, sizeof cap->bus_info, "usb-0000:00:14.0-%d", cam->minor + 1);
        cap->version = (6u << 16) | (1u << 8);
        cap->device_caps = (cam->capture ? V4L2_CAP_VIDEO_CAPTURE : V4L2_CAP_META_CAPTURE) | V4L2_CAP_STREAMING |
                           V4L2_CAP_EXT_PIX_FORMAT;
        cap->capabilities = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_META_CAPTURE | V4L2_CAP_STREAMING |
                            V4L2_CAP_EXT_PIX_FORMAT | V4L2_CAP_DEVICE_CAPS;
        if (!cam->capture) cap->capabilities &= ~V4L2_CAP_VIDEO_CAPTURE;
        return 0;
    }
    case VIDIOC_QUERYCTRL: return query_control(cam, arg);
    case VIDIOC_QUERY_EXT_CTRL: {
        struct v4l2_query_ext_ctrl *q = arg;
        struct v4l2_queryctrl basic = { .id = q->id };
        int err = query_control(cam, &basic);
        if (err) return err;
        memset(q, 0, sizeof *q);
        q->id = basic.id;
        q->type = basic.type;
        memcpy(q->name, basic.name, sizeof basic.name);
        q->minimum = basic.minimum;
        q->maximum = basic.maximum;
        q->step = (uint64_t)basic.step;
        q->default_value = basic.default_value;
        q->flags = basic.flags;
        q->elem_size = 4;
        q->elems = 1;
        return 0;
    }
    case VIDIOC_QUERYMENU: {
        struct v4l2_querymenu *m = arg;
        control *c = find_control(cam, m->id);
        if (!c || c->type != V4L2_CTRL_TYPE_MENU) return EINVAL;
        if (m->index < (uint32_t)c->minimum || m->index > (uint32_t)c->maximum || !(c->menu_mask & (1u << m->index)))
            return EINVAL;
        uint32_t id = m->id, index = m->index;
        memset(m, 0, sizeof *m);
        m->id = id;
        m->index = index;
        snprintf((char *)m->name, sizeof m->name, "%s", c->menu[index]);
        return 0;
    }
    case VIDIOC_G_CTRL: {
        struct v4l2_control *x = arg;
        control *c = find_control(cam, x->id);
        if (!c) return EINVAL;
        if (c->type == V4L2_CTRL_TYPE_CTRL_CLASS) return EACCES;
        x->value = c->value;
        return 0;
    }
    case VIDIOC_S_CTRL: {
        struct v4l2_control *x = arg;
        control *c = find_control(cam, x->id);
        if (!c) return EINVAL;
        int32_t value = x->value;
        int err = control_check(cam, c, &value);
        if (err) return err;
        c->value = x->value = value;
        write_state();
        return 0;
    }
    case VIDIOC_G_EXT_CTRLS: return get_ext(cam, arg, 0);
    case VIDIOC_TRY_EXT_CTRLS: return get_ext(cam, arg, 1);
    case VIDIOC_S_EXT_CTRLS: return get_ext(cam, arg, 2);
    case VIDIOC_ENUMSTD: case VIDIOC_G_STD: case VIDIOC_S_STD: case VIDIOC_QUERYSTD:
        return ENOTTY;  // uvcvideo has no TV standards: the ioctls are not implemented
    case VIDIOC_LOG_STATUS: return 0;
    default: break;
    }

    if (!cam->capture) capture_ioctl = 0;  // a metadata node: nothing below applies
    switch (request) {
    case VIDIOC_ENUMINPUT: {
        struct v4l2_input *in = arg;
        if (in->index != 0) return EINVAL;
        uint32_t index = in->index;
        memset(in, 0, sizeof *in);
        in->index = index;
        snprintf((char *)in->name, sizeof in->name, "Camera 1");
        in->type = V4L2_INPUT_TYPE_CAMERA;
        return 0;
    }
    case VIDIOC_G_INPUT: *(int *)arg = 0; return 0;
    case VIDIOC_S_INPUT: return *(int *)arg == 0 ? 0 : EINVAL;
    case VIDIOC_ENUM_FMT: {
        struct v4l2_fmtdesc *d = arg;
        if (!capture_ioctl || d->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
        uint32_t fourcc = format_at(cam, d->index);
        if (!fourcc) return EINVAL;
        uint32_t index = d->index;
        memset(d, 0, sizeof *d);
        d->index = index;
        d->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        d->pixelformat = fourcc;
        if (fourcc == V4L2_PIX_FMT_MJPEG) { d->flags = V4L2_FMT_FLAG_COMPRESSED; snprintf((char *)d->description, sizeof d->description, "Motion-JPEG"); }
        else if (fourcc == V4L2_PIX_FMT_YUYV) snprintf((char *)d->description, sizeof d->description, "YUYV 4:2:2");
        else snprintf((char *)d->description, sizeof d->description, "Y/UV 4:2:0");
        return 0;
    }
    case VIDIOC_ENUM_FRAMESIZES: {
        struct v4l2_frmsizeenum *s = arg;
        if (!capture_ioctl) return EINVAL;
        const mode *m = size_at(cam, s->pixel_format, s->index);
        if (!m) return EINVAL;
        s->type = V4L2_FRMSIZE_TYPE_DISCRETE;
        s->discrete.width = m->width;
        s->discrete.height = m->height;
        return 0;
    }
    case VIDIOC_ENUM_FRAMEINTERVALS: {
        struct v4l2_frmivalenum *v = arg;
        if (!capture_ioctl) return EINVAL;
        uint32_t rates[MAX_MODES];
        int count = rates_of(cam, v->pixel_format, v->width, v->height, rates);
        if (v->index >= (uint32_t)count) return EINVAL;
        v->type = V4L2_FRMIVAL_TYPE_DISCRETE;
        v->discrete.numerator = 1;
        v->discrete.denominator = rates[v->index];
        return 0;
    }
    case VIDIOC_G_FMT: {
        struct v4l2_format *f = arg;
        if (!capture_ioctl || f->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
        fill_pix_format(cam, &f->fmt.pix);
        return 0;
    }
    case VIDIOC_TRY_FMT:
    case VIDIOC_S_FMT: {
        struct v4l2_format *f = arg;
        if (!capture_ioctl || f->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
        uint32_t fps = 0;
        if (request == VIDIOC_S_FMT && (cam->streaming || (cam->owner >= 0 && cam->owner != fd))) return EBUSY;
        if (request == VIDIOC_S_FMT && cam->buffer_count) return EBUSY;
        choose_format(cam, &f->fmt.pix, &fps);
        if (request == VIDIOC_S_FMT) {
            cam->fourcc = f->fmt.pix.pixelformat;
            cam->width = f->fmt.pix.width;
            cam->height = f->fmt.pix.height;
            cam->interval_den = fps;  // uvcvideo: the frame's default interval
        }
        return 0;
    }
    case VIDIOC_G_PARM:
    case VIDIOC_S_PARM: {
        struct v4l2_streamparm *p = arg;
        if (!capture_ioctl || p->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
        if (request == VIDIOC_S_PARM) {
            if (cam->streaming) return EBUSY;
            struct v4l2_fract want = p->parm.capture.timeperframe;
            uint32_t rates[MAX_MODES];
            int count = rates_of(cam, cam->fourcc, cam->width, cam->height, rates);
            double wanted = want.numerator && want.denominator ? (double)want.denominator / want.numerator : rates[0];
            uint32_t best = rates[0];
            for (int i = 1; i < count; i++)
                if (((double)rates[i] - wanted) * ((double)rates[i] - wanted) < ((double)best - wanted) * ((double)best - wanted))
                    best = rates[i];
            cam->interval_den = best;
        }
        memset(&p->parm, 0, sizeof p->parm);
        p->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
        p->parm.capture.timeperframe.numerator = 1;
        p->parm.capture.timeperframe.denominator = cam->interval_den;
        return 0;
    }
    case VIDIOC_REQBUFS: {
        struct v4l2_requestbuffers *r = arg;
        if (!capture_ioctl || r->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || r->memory != V4L2_MEMORY_MMAP) return EINVAL;
        if (cam->owner >= 0 && cam->owner != fd) return EBUSY;
        if (cam->streaming) return EBUSY;
        release_buffers(cam);
        stop_streaming(cam);
        memset(r->reserved, 0, sizeof r->reserved);
        r->capabilities = V4L2_BUF_CAP_SUPPORTS_MMAP;
        if (r->count == 0) return 0;
        uint32_t count = r->count > MAX_BUFFERS ? MAX_BUFFERS : r->count;
        long page = sysconf(_SC_PAGESIZE);
        cam->buffer_length = size_image(cam->fourcc, cam->width, cam->height);
        cam->buffer_stride = (uint32_t)((cam->buffer_length + page - 1) / page * page);
        size_t total = (size_t)cam->buffer_stride * count;
        cam->memfd = memfd_create("fakev4l2-buffers", MFD_CLOEXEC);
        if (cam->memfd < 0 || ftruncate(cam->memfd, (off_t)total) < 0) { release_buffers(cam); return ENOMEM; }
        cam->memory = REAL(mmap, "mmap")(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, cam->memfd, 0);
        if (cam->memory == MAP_FAILED) { cam->memory = NULL; release_buffers(cam); return ENOMEM; }
        cam->buffer_count = (int)count;
        cam->owner = fd;
        memset(cam->buffers, 0, sizeof cam->buffers);
        r->count = count;
        return 0;
    }
    case VIDIOC_QUERYBUF:
    case VIDIOC_QBUF:
    case VIDIOC_DQBUF: {
        struct v4l2_buffer *b = arg;
        if (!capture_ioctl || b->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
        if (cam->owner != fd) return cam->owner >= 0 ? EBUSY : EINVAL;
        if (request == VIDIOC_DQBUF) break;  // below, it may wait
        if (b->index >= (uint32_t)cam->buffer_count || b->memory != V4L2_MEMORY_MMAP) return EINVAL;
        buffer *state = &cam->buffers[b->index];
        if (request == VIDIOC_QBUF) {
            if (state->state != BUF_DEQUEUED) return EINVAL;
            state->state = BUF_QUEUED;
            cam->queued[(cam->queued_head + cam->queued_count) % MAX_BUFFERS] = (int)b->index;
            cam->queued_count++;
        }
        uint32_t index = b->index;
        memset(b, 0, sizeof *b);
        b->index = index;
        b->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        b->memory = V4L2_MEMORY_MMAP;
        b->length = cam->buffer_length;
        b->m.offset = index * cam->buffer_stride;
        b->field = V4L2_FIELD_NONE;
        b->flags = V4L2_BUF_FLAG_MAPPED | V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC | V4L2_BUF_FLAG_TSTAMP_SRC_SOE |
                   (state->state == BUF_QUEUED ? V4L2_BUF_FLAG_QUEUED : state->state == BUF_DONE ? V4L2_BUF_FLAG_DONE : 0);
        b->bytesused = state->bytesused;
        b->sequence = state->sequence;
        b->timestamp = state->timestamp;
        if (request == VIDIOC_QBUF && cam->streaming) { catch_up(cam, now_ns()); rearm(cam, fd); }
        return 0;
    }
    case VIDIOC_STREAMON: {
        if (!capture_ioctl || *(int *)arg != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
        if (cam->owner != fd) return cam->owner >= 0 ? EBUSY : EINVAL;
        if (cam->streaming) return 0;
        cam->streaming = 1;
        cam->stalled = 0;
        cam->sequence = 0;
        cam->t0 = now_ns();
        cam->unplug_at = cam->unplug_after > 0 ? cam->t0 + (int64_t)(cam->unplug_after * 1e9) : 0;
        cam->next_due = due_time(cam, 0);
        rearm(cam, fd);
        return 0;
    }
    case VIDIOC_STREAMOFF: {
        if (!capture_ioctl || *(int *)arg != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
        if (cam->owner != fd) return cam->owner >= 0 ? EBUSY : EINVAL;
        stop_streaming(cam);
        rearm(cam, fd);
        return 0;
    }
    default:
        return ENOTTY;
    }

    // DQBUF: the oldest done buffer; without O_NONBLOCK, wait for one as vb2 does.
    struct v4l2_buffer *b = arg;
    for (;;) {
        int64_t now = now_ns();
        catch_up(cam, now);
        if (cam->unplugged) { rearm(cam, fd); return ENODEV; }
        if (!cam->streaming) return EINVAL;
        if (cam->done_count) {
            int index = cam->done[cam->done_head];
            cam->done_head = (cam->done_head + 1) % MAX_BUFFERS;
            cam->done_count--;
            buffer *state = &cam->buffers[index];
            state->state = BUF_DEQUEUED;
            memset(b, 0, sizeof *b);
            b->index = (uint32_t)index;
            b->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
            b->memory = V4L2_MEMORY_MMAP;
            b->length = cam->buffer_length;
            b->m.offset = (uint32_t)index * cam->buffer_stride;
            b->field = V4L2_FIELD_NONE;
            b->flags = V4L2_BUF_FLAG_MAPPED | V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC | V4L2_BUF_FLAG_TSTAMP_SRC_SOE;
            b->bytesused = state->bytesused;
            b->sequence = state->sequence;
            b->timestamp = state->timestamp;
            rearm(cam, fd);
            return 0;
        }
        rearm(cam, fd);
        if (fcntl(fd, F_GETFL) & O_NONBLOCK) return EAGAIN;
        // Wait on the timerfd without the lock, so QBUF from another thread (FFmpeg releases packets
        // elsewhere) and STREAMOFF still get through.
        pthread_mutex_unlock(&lock);
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = REAL(poll, "poll")(&p, 1, -1);
        int saved = errno;
        pthread_mutex_lock(&lock);
        if (r < 0 && saved == EINTR) return EINTR;
        if (camera_of(fd) != cam) return EBADF;  // closed meanwhile
    }
}

// ---------------------------------------------------------------------------------------------------------
// Intercepted calls

static int fake_open(const char *path, int flags, int *handled) {
    camera *cam = camera_at(path);
    *handled = cam != NULL;
    if (!cam) return -1;
    if (cam->unplugged) { errno = ENOENT; return -1; }
    if (cam->busy) { errno = EBUSY; return -1; }
    int fd = timerfd_create(CLOCK_MONOTONIC, ((flags & O_NONBLOCK) ? TFD_NONBLOCK : 0) | ((flags & O_CLOEXEC) ? TFD_CLOEXEC : 0));
    if (fd < 0) return -1;
    if (fd >= MAX_FDS) { REAL(close, "close")(fd); errno = EMFILE; return -1; }
    __atomic_store_n(&fd_camera[fd], cam, __ATOMIC_RELEASE);
    return fd;
}

#define OPEN_MODE(flags, mode) do { \
    if ((flags) & (O_CREAT | __O_TMPFILE)) { va_list ap; va_start(ap, flags); mode = va_arg(ap, int); va_end(ap); } \
} while (0)

int open(const char *path, int flags, ...) {
    int mode = 0, handled;
    OPEN_MODE(flags, mode);
    int fd = fake_open(path, flags, &handled);
    return handled ? fd : REAL(open, "open")(path, flags, mode);
}

int open64(const char *path, int flags, ...) {
    int mode = 0, handled;
    OPEN_MODE(flags, mode);
    int fd = fake_open(path, flags, &handled);
    return handled ? fd : REAL(open64, "open64")(path, flags, mode);
}

int __open_2(const char *path, int flags) { return open(path, flags); }
int __open64_2(const char *path, int flags) { return open64(path, flags); }

int openat(int dirfd, const char *path, int flags, ...) {
    int mode = 0, handled;
    OPEN_MODE(flags, mode);
    int fd = fake_open(path, flags, &handled);
    return handled ? fd : REAL(openat, "openat")(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...) {
    int mode = 0, handled;
    OPEN_MODE(flags, mode);
    int fd = fake_open(path, flags, &handled);
    return handled ? fd : REAL(openat64, "openat64")(dirfd, path, flags, mode);
}

// /sys/dev/char/81:N/uevent, which v4l-utils reads to learn a node's type (DEVNAME=videoN).
static FILE *fake_uevent(const char *path, int *handled) {
    unsigned major_number, minor_number;
    char tail[16];
    *handled = 0;
    if (strncmp(path, "/sys/dev/char/", 14) || sscanf(path + 14, "%u:%u/%15s", &major_number, &minor_number, tail) != 3 ||
        major_number != 81 || strcmp(tail, "uevent"))
        return NULL;
    init();
    for (int i = 0; i < camera_count; i++) {
        if ((unsigned)cameras[i].minor != minor_number || cameras[i].unplugged) continue;
        *handled = 1;
        char text[128];
        int length = snprintf(text, sizeof text, "MAJOR=81\nMINOR=%u\nDEVNAME=%s\n", minor_number, cameras[i].path + 5);
        int fd = memfd_create("fakev4l2-uevent", MFD_CLOEXEC);
        if (fd < 0) return NULL;
        if (write(fd, text, (size_t)length) != length) { REAL(close, "close")(fd); return NULL; }
        lseek(fd, 0, SEEK_SET);
        return fdopen(fd, "r");
    }
    return NULL;
}

FILE *fopen(const char *path, const char *how) {
    int handled;
    FILE *f = fake_uevent(path, &handled);
    return handled ? f : REAL(fopen, "fopen")(path, how);
}

FILE *fopen64(const char *path, const char *how) {
    int handled;
    FILE *f = fake_uevent(path, &handled);
    return handled ? f : REAL(fopen64, "fopen64")(path, how);
}

int close(int fd) {
    camera *cam = camera_of(fd);
    if (cam) {
        pthread_mutex_lock(&lock);
        if (cam->owner == fd) { stop_streaming(cam); release_buffers(cam); }
        __atomic_store_n(&fd_camera[fd], NULL, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&lock);
    }
    return REAL(close, "close")(fd);
}

int ioctl(int fd, unsigned long request, ...) {
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    camera *cam = camera_of(fd);
    if (!cam) return REAL(ioctl, "ioctl")(fd, request, arg);
    int64_t cpu = stats_enabled ? thread_cpu_ns() : 0;
    pthread_mutex_lock(&lock);
    int err = device_ioctl(fd, cam, request, arg);
    if (stats_enabled) cpu_ns += thread_cpu_ns() - cpu;  // includes waiting threads' (tiny) CPU only
    pthread_mutex_unlock(&lock);
    if (err) { errno = err; return -1; }
    return 0;
}

static void *fake_mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset, camera *cam) {
    void *result = MAP_FAILED;
    pthread_mutex_lock(&lock);
    if (cam->unplugged) errno = ENODEV;
    else if (cam->owner != fd || !cam->memory || offset < 0 || offset % cam->buffer_stride ||
             (uint64_t)offset + length > (uint64_t)cam->buffer_stride * (uint64_t)cam->buffer_count || !(flags & MAP_SHARED))
        errno = EINVAL;
    else result = REAL(mmap, "mmap")(addr, length, prot, flags, cam->memfd, offset);
    pthread_mutex_unlock(&lock);
    return result;
}

void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset) {
    camera *cam = (flags & MAP_ANONYMOUS) ? NULL : camera_of(fd);
    if (cam) return fake_mmap(addr, length, prot, flags, fd, offset, cam);
    return REAL(mmap, "mmap")(addr, length, prot, flags, fd, offset);
}

void *mmap64(void *addr, size_t length, int prot, int flags, int fd, off64_t offset) {
    camera *cam = (flags & MAP_ANONYMOUS) ? NULL : camera_of(fd);
    if (cam) return fake_mmap(addr, length, prot, flags, fd, (off_t)offset, cam);
    return REAL(mmap64, "mmap64")(addr, length, prot, flags, fd, offset);
}
// munmap needs no interception: the buffers are real shared mappings of a memfd.

ssize_t read(int fd, void *buffer, size_t count) {
    if (camera_of(fd)) { errno = EINVAL; return -1; }  // uvcvideo has no read() I/O
    return REAL(read, "read")(fd, buffer, count);
}

// poll: the device's revents as vb2 would give them; other descriptors as the kernel gives them.
static int fake_poll(struct pollfd *fds, nfds_t n, int64_t timeout_ns, const sigset_t *mask, int use_ppoll) {
    int64_t deadline = timeout_ns < 0 ? -1 : now_ns() + timeout_ns;
    struct pollfd local[64];
    struct pollfd *copy = n <= 64 ? local : malloc(n * sizeof *copy);
    if (!copy) { errno = ENOMEM; return -1; }
    int result;
    for (;;) {
        int ready = 0;
        int64_t now = now_ns();
        pthread_mutex_lock(&lock);
        for (nfds_t i = 0; i < n; i++) {
            copy[i] = fds[i];
            copy[i].revents = 0;
            camera *cam = camera_of(fds[i].fd);
            if (!cam) continue;
            short revents = 0;
            if (cam->owner == fds[i].fd) catch_up(cam, now);
            if (cam->unplugged || check_unplug(cam, now)) revents = POLLERR | POLLHUP;
            else if (cam->owner != fds[i].fd || !cam->streaming) revents = POLLERR;
            else if (cam->done_count) revents = (short)(fds[i].events & (POLLIN | POLLRDNORM));
            if (cam->owner == fds[i].fd) rearm(cam, fds[i].fd);
            copy[i].revents = revents;
            copy[i].events = revents ? 0 : POLLIN;  // otherwise wait for the timerfd (next frame or unplug)
            if (revents) { copy[i].fd = -1; ready = 1; }
        }
        pthread_mutex_unlock(&lock);
        int64_t left = deadline < 0 ? -1 : deadline - now_ns();
        if (left < 0 && deadline >= 0) left = 0;
        if (ready) left = 0;
        struct timespec ts = { left / 1000000000, left % 1000000000 };
        // Keep our computed revents for the device entries (poll clears revents of fd -1 entries).
        short device_revents[64];
        for (nfds_t i = 0; i < n && i < 64; i++) device_revents[i] = copy[i].revents;
        if (use_ppoll || left > INT32_MAX * 1000000LL) result = REAL(ppoll, "ppoll")(copy, n, left < 0 ? NULL : &ts, mask);
        else result = REAL(poll, "poll")(copy, n, left < 0 ? -1 : (int)((left + 999999) / 1000000));
        if (result < 0) break;
        int count = 0, woke_device = 0;
        for (nfds_t i = 0; i < n; i++) {
            camera *cam = camera_of(fds[i].fd);
            if (cam) {
                fds[i].revents = i < 64 ? device_revents[i] : 0;
                if (copy[i].revents & POLLIN) woke_device = 1;  // re-evaluated on the next pass
            } else {
                fds[i].revents = copy[i].revents;
            }
            if (fds[i].revents) count++;
        }
        if (count || (!woke_device && result == 0 && left >= 0)) { result = count; break; }
        if (deadline >= 0 && now_ns() >= deadline) { result = 0; break; }
    }
    if (copy != local) free(copy);
    return result;
}

static int has_device(struct pollfd *fds, nfds_t n) {
    if (!fds || n > 64) return 0;
    for (nfds_t i = 0; i < n; i++) if (camera_of(fds[i].fd)) return 1;
    return 0;
}

int poll(struct pollfd *fds, nfds_t n, int timeout) {
    if (!has_device(fds, n)) return REAL(poll, "poll")(fds, n, timeout);
    return fake_poll(fds, n, timeout < 0 ? -1 : (int64_t)timeout * 1000000, NULL, 0);
}

int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout, const sigset_t *mask) {
    if (!has_device(fds, n)) return REAL(ppoll, "ppoll")(fds, n, timeout, mask);
    return fake_poll(fds, n, timeout ? (int64_t)timeout->tv_sec * 1000000000 + timeout->tv_nsec : -1, mask, 1);
}

// stat and friends: a configured path is a character device (major 81, as V4L2 nodes), until unplugged.
static void fill_stat(const camera *cam, struct stat *st) {
    memset(st, 0, sizeof *st);
    st->st_mode = S_IFCHR | 0660;
    st->st_rdev = makedev(81, (unsigned)cam->minor);
    st->st_dev = makedev(0, 5);
    st->st_ino = 100000 + (ino_t)cam->minor;
    st->st_nlink = 1;
    st->st_gid = 44;  // video
    st->st_blksize = 4096;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    st->st_atim = st->st_mtim = st->st_ctim = now;
}

static int fake_stat(const char *path, void *st) {  // 1 handled, 0 not ours
    camera *cam = camera_at(path);
    if (!cam) return 0;
    if (cam->unplugged) { errno = ENOENT; return -1; }
    fill_stat(cam, st);
    return 1;
}
static int fake_fstat(int fd, void *st) {
    camera *cam = camera_of(fd);
    if (!cam) return 0;
    fill_stat(cam, st);
    return 1;
}
#define STAT_RESULT(r) ((r) < 0 ? -1 : 0)

int stat(const char *p, struct stat *st) { int r = fake_stat(p, st); return r ? STAT_RESULT(r) : REAL(stat, "stat")(p, st); }
int stat64(const char *p, struct stat64 *st) { int r = fake_stat(p, st); return r ? STAT_RESULT(r) : REAL(stat64, "stat64")(p, st); }
int lstat(const char *p, struct stat *st) { int r = fake_stat(p, st); return r ? STAT_RESULT(r) : REAL(lstat, "lstat")(p, st); }
int lstat64(const char *p, struct stat64 *st) { int r = fake_stat(p, st); return r ? STAT_RESULT(r) : REAL(lstat64, "lstat64")(p, st); }
int fstat(int fd, struct stat *st) { int r = fake_fstat(fd, st); return r ? 0 : REAL(fstat, "fstat")(fd, st); }
int fstat64(int fd, struct stat64 *st) { int r = fake_fstat(fd, st); return r ? 0 : REAL(fstat64, "fstat64")(fd, st); }
int fstatat(int d, const char *p, struct stat *st, int f) {
    int r = p[0] == '/' ? fake_stat(p, st) : 0;
    return r ? STAT_RESULT(r) : REAL(fstatat, "fstatat")(d, p, st, f);
}
int fstatat64(int d, const char *p, struct stat64 *st, int f) {
    int r = p[0] == '/' ? fake_stat(p, st) : 0;
    return r ? STAT_RESULT(r) : REAL(fstatat64, "fstatat64")(d, p, st, f);
}
int __xstat(int v, const char *p, struct stat *st) { int r = fake_stat(p, st); return r ? STAT_RESULT(r) : REAL(xstat, "__xstat")(v, p, st); }
int __xstat64(int v, const char *p, struct stat64 *st) { int r = fake_stat(p, st); return r ? STAT_RESULT(r) : REAL(xstat64, "__xstat64")(v, p, st); }
int __lxstat(int v, const char *p, struct stat *st) { int r = fake_stat(p, st); return r ? STAT_RESULT(r) : REAL(lxstat, "__lxstat")(v, p, st); }
int __lxstat64(int v, const char *p, struct stat64 *st) { int r = fake_stat(p, st); return r ? STAT_RESULT(r) : REAL(lxstat64, "__lxstat64")(v, p, st); }
int __fxstat(int v, int fd, struct stat *st) { int r = fake_fstat(fd, st); return r ? 0 : REAL(fxstat, "__fxstat")(v, fd, st); }
int __fxstat64(int v, int fd, struct stat64 *st) { int r = fake_fstat(fd, st); return r ? 0 : REAL(fxstat64, "__fxstat64")(v, fd, st); }

int access(const char *path, int how) {
    camera *cam = camera_at(path);
    if (!cam) return REAL(access, "access")(path, how);
    if (cam->unplugged) { errno = ENOENT; return -1; }
    if (how & X_OK) { errno = EACCES; return -1; }
    return 0;
}

// Directory listing of /dev: the configured nodes that do not really exist are listed after the real entries.
typedef struct {
    DIR *dir;
    int next;  // index into cameras[]
    struct dirent entry;
    struct dirent64 entry64;
} dev_listing;
static dev_listing listings[16];

DIR *opendir(const char *name) {
    DIR *dir = REAL(opendir, "opendir")(name);
    if (!dir || (strcmp(name, "/dev") && strcmp(name, "/dev/"))) return dir;
    init();
    if (!camera_count) return dir;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < 16; i++)
        if (!listings[i].dir) { memset(&listings[i], 0, sizeof listings[i]); listings[i].dir = dir; break; }
    pthread_mutex_unlock(&lock);
    return dir;
}

static dev_listing *listing_of(DIR *dir) {
    for (int i = 0; i < 16; i++) if (listings[i].dir == dir) return &listings[i];
    return NULL;
}

// The next configured node to list, or NULL.
static const camera *next_injected(dev_listing *l) {
    while (l->next < camera_count) {
        const camera *cam = &cameras[l->next++];
        struct stat st;
        if (cam->unplugged || REAL(stat, "stat")(cam->path, &st) == 0) continue;  // gone, or really there
        return cam;
    }
    return NULL;
}

struct dirent *readdir(DIR *dir) {
    int saved = errno;
    struct dirent *e = REAL(readdir, "readdir")(dir);
    if (e) return e;
    pthread_mutex_lock(&lock);
    dev_listing *l = listing_of(dir);
    const camera *cam = l ? next_injected(l) : NULL;
    if (cam) {
        memset(&l->entry, 0, sizeof l->entry);
        l->entry.d_ino = 100000 + (ino_t)cam->minor;
        l->entry.d_type = DT_CHR;
        l->entry.d_reclen = sizeof l->entry;
        snprintf(l->entry.d_name, sizeof l->entry.d_name, "%s", cam->path + 5);
        e = &l->entry;
        errno = saved;
    }
    pthread_mutex_unlock(&lock);
    return e;
}

struct dirent64 *readdir64(DIR *dir) {
    int saved = errno;
    struct dirent64 *e = REAL(readdir64, "readdir64")(dir);
    if (e) return e;
    pthread_mutex_lock(&lock);
    dev_listing *l = listing_of(dir);
    const camera *cam = l ? next_injected(l) : NULL;
    if (cam) {
        memset(&l->entry64, 0, sizeof l->entry64);
        l->entry64.d_ino = 100000 + (ino64_t)cam->minor;
        l->entry64.d_type = DT_CHR;
        l->entry64.d_reclen = sizeof l->entry64;
        snprintf(l->entry64.d_name, sizeof l->entry64.d_name, "%s", cam->path + 5);
        e = &l->entry64;
        errno = saved;
    }
    pthread_mutex_unlock(&lock);
    return e;
}

int closedir(DIR *dir) {
    pthread_mutex_lock(&lock);
    dev_listing *l = listing_of(dir);
    if (l) l->dir = NULL;
    pthread_mutex_unlock(&lock);
    return REAL(closedir, "closedir")(dir);
}

__attribute__((destructor)) static void report(void) {
    if (!stats_enabled) return;
    for (int i = 0; i < camera_count; i++)
        if (cameras[i].delivered || cameras[i].dropped)
            fprintf(stderr, "fakev4l2: %s: %llu frames delivered, %llu dropped, emulator CPU %.1f ms\n", cameras[i].path,
                    (unsigned long long)cameras[i].delivered, (unsigned long long)cameras[i].dropped, (double)cpu_ns / 1e6);
}
