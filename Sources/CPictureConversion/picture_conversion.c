#include "CPictureConversion.h"
#include <string.h>

// x / 255 for 0 <= x <= 65534, in 16-bit arithmetic the compiler vectorizes (a division does not).
static inline uint16_t divide_by_255(uint16_t x) { return (uint16_t)((x + 1 + (x >> 8)) >> 8); }

void reel_convert_luma_plane(const uint8_t *source, ptrdiff_t source_stride, uint8_t *destination,
                             ptrdiff_t destination_stride, int width, int height, int full_to_limited) {
    for (int row = 0; row < height; row++) {
        const uint8_t *in = source + row * source_stride;
        uint8_t *out = destination + row * destination_stride;
        if (!full_to_limited) {
            memcpy(out, in, (size_t)width);
            continue;
        }
        // round(Y·219/255) + 16 = floor((219·Y + 127) / 255) + 16; 219·255 + 127 < 65535.
        for (int x = 0; x < width; x++) out[x] = (uint8_t)(divide_by_255((uint16_t)(219 * in[x] + 127)) + 16);
    }
}

void reel_convert_chroma_plane(const uint8_t *source, ptrdiff_t source_stride, int source_height, uint8_t *destination,
                               ptrdiff_t destination_stride, int width, int height, int rows_per_row,
                               int full_to_limited) {
    for (int row = 0; row < height; row++) {
        int first = row * rows_per_row;
        int second = rows_per_row == 2 && first + 1 < source_height ? first + 1 : first;
        const uint8_t *a = source + first * source_stride, *b = source + second * source_stride;
        uint8_t *out = destination + row * destination_stride;
        if (full_to_limited) {
            // With s = a + b (a sample counted twice from 4:2:0): round(128 + (s/2 - 128)·224/255)
            // = floor((112·s + 4095) / 255); 112·510 + 4095 < 65535.
            for (int x = 0; x < width; x++)
                out[x] = (uint8_t)divide_by_255((uint16_t)(112 * (a[x] + b[x]) + 4095));
        } else if (a != b) {
            for (int x = 0; x < width; x++) out[x] = (uint8_t)((a[x] + b[x] + 1) >> 1);
        } else {
            memcpy(out, a, (size_t)width);
        }
    }
}
