/* libquicktime's view of a movie, for the libquicktime reader (Tests/ReelTestSupport/LibraryReaders.swift).
 * What libquicktime's own qtinfo utility prints (Debian 12 builds libquicktime2 without its utilities): the
 * tracks, each video track's frame count, time scale and media duration, each audio track's samples; and,
 * unlike qtinfo, every video frame read back compressed (quicktime_read_frame: the sample table's offsets
 * and sizes must lie inside the file). Debian's libquicktime has no H.264 or HEVC decoder (no lqt_ffmpeg
 * plugin), so nothing is decoded. Messages libquicktime logs are printed as "log LEVEL DOMAIN: TEXT".
 * usage: lqt_info MOVIE */
#include <lqt/lqt.h>
#include <lqt/quicktime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void logged(lqt_log_level_t level, const char *domain, const char *message, void *data) {
    (void)data;
    const char *name = level == LQT_LOG_ERROR ? "error" : level == LQT_LOG_WARNING ? "warning" : "info";
    /* Without a decoder plugin libquicktime stands a stub codec in for H.264 and HEVC, and says so. */
    if (strstr(message, "Could not find video Decoder") || strstr(message, "_stub called")) return;
    if (level & (LQT_LOG_ERROR | LQT_LOG_WARNING)) printf("log %s %s: %s\n", name, domain, message);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: lqt_info MOVIE\n"); return 2; }
    lqt_set_log_callback(logged, NULL);
    quicktime_t *file = quicktime_open(argv[1], 1, 0);
    if (!file) { printf("error quicktime_open failed\n"); return 3; }
    int videoTracks = quicktime_video_tracks(file), audioTracks = quicktime_audio_tracks(file);
    printf("video_tracks %d\naudio_tracks %d\n", videoTracks, audioTracks);
    for (int track = 0; track < videoTracks; track++) {
        long frames = quicktime_video_length(file, track), read = 0, largest = 0;
        for (long frame = 0; frame < frames; frame++) {
            long size = quicktime_frame_size(file, frame, track);
            if (size > largest) largest = size;
        }
        unsigned char *buffer = malloc(largest > 0 ? largest : 1);
        quicktime_set_video_position(file, 0, track);
        for (long frame = 0; frame < frames; frame++) {
            long size = quicktime_frame_size(file, frame, track);
            if (size > 0 && quicktime_read_frame(file, buffer, track) == size) read++;
        }
        free(buffer);
        printf("video %d frames %ld read %ld timescale %d duration %lld size %dx%d compressor %s\n",
               track, frames, read, lqt_video_time_scale(file, track), (long long)lqt_video_duration(file, track),
               quicktime_video_width(file, track), quicktime_video_height(file, track),
               quicktime_video_compressor(file, track));
    }
    for (int track = 0; track < audioTracks; track++)
        printf("audio %d samples %ld rate %ld channels %d compressor %s\n", track, quicktime_audio_length(file, track),
               quicktime_sample_rate(file, track), quicktime_track_channels(file, track), quicktime_audio_compressor(file, track));
    quicktime_close(file);
    return 0;
}
