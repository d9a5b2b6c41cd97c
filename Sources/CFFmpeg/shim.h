#ifndef REEL_CFFMPEG_SHIM_H
#define REEL_CFFMPEG_SHIM_H

#include <libavdevice/avdevice.h>
#include <libavformat/avformat.h>
// Types only: libavfilter is not linked but loaded on first use (see FilterLibrary.swift).
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/parseutils.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <errno.h>
#include <dlfcn.h>

// Swift cannot import function-like or expression macros; these wrap the ones Reel needs.
static inline int reel_averror(int posixErrorCode) { return AVERROR(posixErrorCode); }
static inline int reel_averror_eof(void) { return AVERROR_EOF; }
static inline int reel_averror_exit(void) { return AVERROR_EXIT; }
static inline int reel_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int64_t reel_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline AVRational reel_time_base_q(void) { return AV_TIME_BASE_Q; }
static inline int reel_error_to_posix(int averror) { return AVUNERROR(averror); }

/// Loads libavdevice (by the soname this build's headers belong to) and registers its inputs (v4l2, alsa,
/// pulse, x11grab, lavfi). Loaded on first use rather than linked, so commands that only read files start as
/// fast as they can. Returns 0, or -1 when the library cannot be loaded.
#define REEL_STRINGIFY_(x) #x
#define REEL_STRINGIFY(x) REEL_STRINGIFY_(x)
static inline int reel_load_and_register_devices(void) {
    void *library = dlopen("libavdevice.so." REEL_STRINGIFY(LIBAVDEVICE_VERSION_MAJOR), RTLD_LAZY | RTLD_GLOBAL);
    if (!library) return -1;
    void (*register_all)(void) = (void (*)(void))dlsym(library, "avdevice_register_all");
    if (!register_all) return -1;
    register_all();
    return 0;
}

/// The soname of the libavfilter this build's headers belong to, for dlopen.
static inline const char *reel_avfilter_soname(void) {
    return "libavfilter.so." REEL_STRINGIFY(LIBAVFILTER_VERSION_MAJOR);
}

#endif
