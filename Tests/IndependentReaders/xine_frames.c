/* xine's view of a movie, for the xine reader (Tests/ReelTestSupport/LibraryReaders.swift): libxine opens it
 * (its own QuickTime demuxer, "MOV/MPEG-4"; the pictures go to its ffmpeg decoder plugin) and plays it to the
 * end into the "raw" video driver, which hands every picture shown to a callback that counts them, with the
 * "none" audio driver: nothing needs a display or a sound card. It prints the demuxer, the codecs, the
 * length xine reports, the pictures shown, and any message xine sends the front end, each line starting
 * "xine_frames "; xine's own log (debug verbosity) comes with them: demux_qt's tracks and their frame counts
 * ("start 0pts, 60 frames."), and video_out's "throwing away image ... because it's too old" for a picture
 * decoded too late for the clock. Playback is paced by xine's clock, at SPEED millionths of normal speed
 * (default 1000000): faster, a loaded machine makes xine throw pictures away and its decoder skip others
 * unsaid (at 2x under load, 1 of 60 shown, 36 thrown away); its skipped/discarded statistics stay 0 for
 * short movies (updated every 200 frames).
 * A movie modified in the last few seconds is taken for one still being written and loses pictures: the
 * caller passes a copy dated back. Gives up after 60 s of playback.
 * usage: xine_frames MOVIE [SPEED] */
#include <xine.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int shown = 0, finished = 0;

static void frame(void *data, int format, int width, int height, double aspect, void *y, void *u, void *v) {
    (void)data; (void)format; (void)width; (void)height; (void)aspect; (void)y; (void)u; (void)v;
    shown++;
}

static void overlay(void *data, int count, raw_overlay_t *overlays) { (void)data; (void)count; (void)overlays; }

static void event(void *data, const xine_event_t *event) {
    (void)data;
    if (event->type == XINE_EVENT_UI_PLAYBACK_FINISHED) finished = 1;
    if (event->type == XINE_EVENT_UI_MESSAGE) {
        const xine_ui_message_data_t *message = event->data;
        printf("xine_frames message %d %s\n", message->type, message->messages);
    }
}

static const char *text(const char *value) { return value ? value : "none"; }

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: xine_frames MOVIE [SPEED]\n"); return 2; }
    int speed = argc > 2 ? atoi(argv[2]) : XINE_FINE_SPEED_NORMAL;
    setvbuf(stdout, NULL, _IOLBF, 0);
    xine_t *xine = xine_new();
    xine_init(xine);
    xine_engine_set_param(xine, XINE_ENGINE_PARAM_VERBOSITY, XINE_VERBOSITY_DEBUG);
    raw_visual_t visual = {.user_data = NULL, .supported_formats = XINE_VORAW_YV12, .raw_output_cb = frame,
                           .raw_overlay_cb = overlay};
    xine_video_port_t *video = xine_open_video_driver(xine, "raw", XINE_VISUAL_TYPE_RAW, &visual);
    xine_audio_port_t *audio = xine_open_audio_driver(xine, "none", NULL);
    if (!video || !audio) { printf("xine_frames error no raw video or none audio driver\n"); return 3; }
    xine_stream_t *stream = xine_stream_new(xine, audio, video);
    xine_event_queue_t *queue = xine_event_new_queue(stream);
    xine_event_create_listener_thread(queue, event, NULL);
    if (!xine_open(stream, argv[1])) { printf("xine_frames error xine_open %d\n", xine_get_error(stream)); return 4; }
    printf("xine_frames demuxer %s\n", text(xine_get_meta_info(stream, XINE_META_INFO_SYSTEMLAYER)));
    printf("xine_frames has_video %d\nxine_frames video_handled %d\nxine_frames has_audio %d\nxine_frames audio_handled %d\n",
           xine_get_stream_info(stream, XINE_STREAM_INFO_HAS_VIDEO), xine_get_stream_info(stream, XINE_STREAM_INFO_VIDEO_HANDLED),
           xine_get_stream_info(stream, XINE_STREAM_INFO_HAS_AUDIO), xine_get_stream_info(stream, XINE_STREAM_INFO_AUDIO_HANDLED));
    int position = 0, time = 0, length = 0;
    xine_get_pos_length(stream, &position, &time, &length);
    printf("xine_frames length_ms %d\n", length);
    if (!xine_play(stream, 0, 0)) { printf("xine_frames error xine_play %d\n", xine_get_error(stream)); return 5; }
    xine_set_param(stream, XINE_PARAM_FINE_SPEED, speed);
    for (int waited = 0; waited < 60000 && !finished; waited += 5) usleep(5000);
    printf("xine_frames video_codec %s\nxine_frames audio_codec %s\n", text(xine_get_meta_info(stream, XINE_META_INFO_VIDEOCODEC)),
           text(xine_get_meta_info(stream, XINE_META_INFO_AUDIOCODEC)));
    printf("xine_frames finished %d\nxine_frames shown %d\n", finished, shown);
    xine_close(stream);
    xine_event_dispose_queue(queue);
    xine_dispose(stream);
    xine_close_audio_driver(xine, audio);
    xine_close_video_driver(xine, video);
    xine_exit(xine);
    return finished ? 0 : 6;
}
