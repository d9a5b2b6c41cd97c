/// The edit list FFmpeg 5.1's mov muxer gives every track of a regular movie (movenc.c, mov_write_edts_tag),
/// so a track is presented from its first presentation time on the movie's timeline from 0: a track that
/// starts later gets an empty edit first; one whose first samples decode before 0 (B-frame reordering, AAC
/// priming) starts its media where presentation begins.
struct EditList: Equatable {
    struct Entry: Equatable {
        /// In the movie's timescale.
        var duration: Int64
        /// In the track's timescale; -1 for an empty edit.
        var mediaTime: Int64
    }

    var entries: [Entry]
    var version: UInt8

    /// The edit list for a track's samples (`table`, times in `trackTimeBase`).
    init(_ table: SampleTable, trackTimeBase: TimeBase, movieTimeBase: TimeBase) {
        let first = table.first ?? Sample(decodeTime: 0, duration: 0, size: 0, isKeyframe: false)
        var duration = trackTimeBase.convert(table.presentedSpan, to: movieTimeBase, rounding: .up)
        var version: UInt8 = duration < Int64(Int32.max) ? 0 : 1
        let delay = trackTimeBase.convert(first.presentationTime, to: movieTimeBase, rounding: .down)
        if delay >= Int64(Int32.max) { version = 1 }
        if delay > 0 {
            // The delay includes the first presentation offset, which the media edit skips again, so the
            // last sample's full duration stays inside the edit.
            entries = [Entry(duration: delay, mediaTime: -1), Entry(duration: duration, mediaTime: first.presentationOffset)]
        } else {
            // The media edit starts at decode time 0 (past what decodes before it: B-frame reordering, AAC
            // priming), and what would be presented before 0 is taken off its duration.
            duration += delay
            entries = [Entry(duration: duration, mediaTime: -min(first.decodeTime, 0))]
        }
        self.version = version
    }

    func write(into out: inout [UInt8]) {
        BoxWriter.box("edts", into: &out) { edts in
            BoxWriter.fullBox("elst", version: version, into: &edts) { elst in
                BigEndian.append(UInt32(entries.count), to: &elst)
                for entry in entries {
                    if version == 1 {
                        BigEndian.append(UInt64(bitPattern: entry.duration), to: &elst)
                        BigEndian.append(UInt64(bitPattern: entry.mediaTime), to: &elst)
                    } else {
                        BigEndian.append(UInt32(truncatingIfNeeded: entry.duration), to: &elst)
                        BigEndian.append(UInt32(truncatingIfNeeded: entry.mediaTime), to: &elst)
                    }
                    BigEndian.append(UInt32(0x0001_0000), to: &elst)  // rate 1.0
                }
            }
        }
    }
}
