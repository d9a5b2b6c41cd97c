// smoke.sh: Reel's own enumeration (Sources/CLinuxCapture/video4linux.c) plus a readdir of /dev, as
// DeviceDiscovery.cameras() does through FileManager, run against the emulated camera.
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include "CLinuxCapture.h"
int main(void) {
    DIR *d = opendir("/dev"); struct dirent *e; int found = 0;
    while ((e = readdir(d))) if (!strncmp(e->d_name, "video", 5)) { printf("listed /dev/%s\n", e->d_name); found++; }
    closedir(d);
    char card[64]; int r = reel_v4l2_query_capture("/dev/video0", card, sizeof card);
    printf("query_capture=%d card=%s\n", r, card);
    reel_v4l2_mode modes[64]; int n = reel_v4l2_list_modes("/dev/video0", modes, 64);
    for (int i = 0; i < n; i++) printf("mode %s %ux%u %u/%u compressed=%d\n", modes[i].fourcc, modes[i].width, modes[i].height, modes[i].interval_numerator, modes[i].interval_denominator, modes[i].compressed);
    return !(found && r == 1 && n > 0);
}
