/* An ALSA device's smallest period, as real hardware has one: libavdevice's ALSA input reads one period per
 * packet and asks for the device's smallest; the test device (an ALSA `file` PCM over the `null` PCM) allows
 * a period of one frame, so it would deliver 48,000 packets a second of 4 bytes each, a load no sound card
 * puts on a reader (a USB microphone's smallest is 1 ms; the tests' device gets REEL_ALSA_PERIOD frames, 1024
 * unless set). Built by PreloadLibrary and loaded with LD_PRELOAD by FedALSADevice (Tests/ReelCLITests/MicrophoneCaptureTests.swift);
 * everything else in the capture path runs as it would on a real card. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

typedef struct snd_pcm_hw_params snd_pcm_hw_params_t;
typedef unsigned long snd_pcm_uframes_t;

int snd_pcm_hw_params_get_period_size_min(const snd_pcm_hw_params_t *params, snd_pcm_uframes_t *value, int *dir) {
    static int (*real)(const snd_pcm_hw_params_t *, snd_pcm_uframes_t *, int *) = NULL;
    if (!real) real = (int (*)(const snd_pcm_hw_params_t *, snd_pcm_uframes_t *, int *))dlsym(RTLD_NEXT, "snd_pcm_hw_params_get_period_size_min");
    if (!real) return -1;
    int result = real(params, value, dir);
    const char *setting = getenv("REEL_ALSA_PERIOD");
    snd_pcm_uframes_t smallest = setting ? strtoul(setting, NULL, 10) : 1024;
    if (result == 0 && value && *value < smallest) *value = smallest;
    return result;
}
