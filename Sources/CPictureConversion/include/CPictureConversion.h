#ifndef REEL_CPICTURECONVERSION_H
#define REEL_CPICTURECONVERSION_H

#include <stddef.h>
#include <stdint.h>

/// One 8-bit plane of Y'CbCr code values: `height` rows of `width` samples, `stride` bytes apart.
/// Plain loops that the compiler vectorizes; the conversions are exact (rounded to the nearest level), which
/// FFmpegCore's PlanarYUVConversionTests check against the formulas for every input value.

/// Luma rows: full range to limited (16 + Y·219/255) when `full_to_limited`, else copied.
void reel_convert_luma_plane(const uint8_t *source, ptrdiff_t source_stride, uint8_t *destination,
                             ptrdiff_t destination_stride, int width, int height, int full_to_limited);

/// A chroma plane to 4:2:0: `height` rows out. From 4:2:2 (`rows_per_row` 2) each output row is the mean of
/// two source rows (the last of an odd source height is its own pair: `source_height` bounds the reads);
/// from 4:2:0 (1) rows are taken as they are. Then full range to limited (128 + (C-128)·224/255) when
/// `full_to_limited`.
void reel_convert_chroma_plane(const uint8_t *source, ptrdiff_t source_stride, int source_height, uint8_t *destination,
                               ptrdiff_t destination_stride, int width, int height, int rows_per_row,
                               int full_to_limited);

#endif
