/// The boxes of one media segment of a fragmented MP4 stream (CMAF, as HLS and DASH serve it; ISO 14496-12
/// 8.8): `styp`, one `moof` with a `traf` per track (`tfhd` with default-base-is-moof, a version-1 `tfdt`, a
/// version-1 `trun` with each sample's duration, size, flags and signed presentation offset), and the header
/// of the `mdat` whose payload follows: each track's samples in order, tracks in the order given.
///
/// The init segment (ftyp + moov with mvex) says the tracks' IDs and timescales; the times here are ticks of
/// those timescales. Pure: `MediaFragmentTests` read the bytes back with `MovieFragmentScanner`.
public enum MediaFragment {
    public struct Track: Equatable, Sendable {
        public var trackID: Int
        /// The samples in decode order; each `decodeTime` is absolute (the first becomes the `tfdt`).
        public var samples: [Sample]
        /// Audio: every sample is a sync sample. Video: the keyframe flag says.
        public var isVideo: Bool

        public init(trackID: Int, samples: [Sample], isVideo: Bool) {
            self.trackID = trackID
            self.samples = samples
            self.isVideo = isVideo
        }

        var payloadBytes: Int { samples.reduce(0) { $0 + $1.size } }
    }

    public enum FragmentError: Error, Equatable, CustomStringConvertible {
        /// A track without samples, or decode times that go backwards.
        case invalidTrack(trackID: Int, reason: String)
        /// More payload than a 32-bit mdat holds (a media segment is seconds long; this is a caller's error).
        case tooLarge(bytes: Int)

        public var description: String {
            switch self {
            case .invalidTrack(let trackID, let reason): return "track \(trackID) cannot be fragmented: \(reason)"
            case .tooLarge(let bytes): return "a media segment of \(bytes) bytes is larger than one mdat box holds"
            }
        }
    }

    /// Sample flags (ISO 14496-12 8.8.3.1): a sync sample depends on no other; any other depends on others
    /// and is not a sync sample.
    static let syncSampleFlags: UInt32 = 0x0200_0000
    static let otherSampleFlags: UInt32 = 0x0101_0000
    /// tfhd: data offsets count from the moof's first byte.
    static let defaultBaseIsMoof: UInt32 = 0x02_0000
    /// trun: data offset, then per sample duration, size, flags and presentation offset.
    static let trunFlags: UInt32 = 0x000001 | 0x000100 | 0x000200 | 0x000400 | 0x000800

    /// Bytes `header` takes for tracks of these sample counts (it depends on nothing else): a writer can put
    /// the payloads after room for it and fill the header in once their sizes are known.
    public static func headerSize(sampleCounts: [Int]) -> Int {
        // styp 24, moof header 8, mfhd 16, mdat header 8; per traf: its header 8, tfhd 16, tfdt 20, trun 20
        // and 16 a sample.
        56 + sampleCounts.reduce(0) { $0 + 64 + 16 * $1 }
    }

    /// styp + moof + the mdat header for fragment number `sequence` (from 1); the tracks' payloads follow it.
    public static func header(sequence: UInt32, tracks: [Track]) throws(FragmentError) -> [UInt8] {
        for track in tracks {
            guard !track.samples.isEmpty else { throw .invalidTrack(trackID: track.trackID, reason: "it has no sample") }
            for (earlier, later) in zip(track.samples, track.samples.dropFirst()) where later.decodeTime < earlier.decodeTime {
                throw .invalidTrack(trackID: track.trackID, reason: "decode time \(later.decodeTime) follows \(earlier.decodeTime)")
            }
            guard track.samples[0].decodeTime >= 0 else {
                throw .invalidTrack(trackID: track.trackID, reason: "its first decode time \(track.samples[0].decodeTime) is negative")
            }
        }
        let payload = tracks.reduce(0) { $0 + $1.payloadBytes }
        guard payload + 8 <= Int(UInt32.max) else { throw .tooLarge(bytes: payload) }

        var out: [UInt8] = []
        out.reserveCapacity(256 + tracks.reduce(0) { $0 + 16 * $1.samples.count })
        BoxWriter.box("styp", into: &out) { body in
            BigEndian.append(FourCC("msdh").rawValue, to: &body)
            BigEndian.append(UInt32(0), to: &body)
            BigEndian.append(FourCC("msdh").rawValue, to: &body)
            BigEndian.append(FourCC("msix").rawValue, to: &body)
        }
        let moofStart = out.count
        var dataOffsetFields: [Int] = []
        BoxWriter.box("moof", into: &out) { moof in
            BoxWriter.fullBox("mfhd", into: &moof) { BigEndian.append(sequence, to: &$0) }
            for track in tracks {
                BoxWriter.box("traf", into: &moof) { traf in
                    BoxWriter.fullBox("tfhd", flags: defaultBaseIsMoof, into: &traf) {
                        BigEndian.append(UInt32(track.trackID), to: &$0)
                    }
                    BoxWriter.fullBox("tfdt", version: 1, into: &traf) {
                        BigEndian.append(UInt64(track.samples[0].decodeTime), to: &$0)
                    }
                    BoxWriter.fullBox("trun", version: 1, flags: trunFlags, into: &traf) { trun in
                        BigEndian.append(UInt32(track.samples.count), to: &trun)
                        dataOffsetFields.append(trun.count)
                        BigEndian.append(UInt32(0), to: &trun)  // the data offset, set below
                        for sample in track.samples {
                            BigEndian.append(UInt32(truncatingIfNeeded: sample.duration), to: &trun)
                            BigEndian.append(UInt32(sample.size), to: &trun)
                            let sync = !track.isVideo || sample.isKeyframe
                            BigEndian.append(sync ? syncSampleFlags : otherSampleFlags, to: &trun)
                            BigEndian.append(UInt32(bitPattern: Int32(truncatingIfNeeded: sample.presentationOffset)), to: &trun)
                        }
                    }
                }
            }
        }
        let moofSize = out.count - moofStart
        var offset = moofSize + 8
        for (field, track) in zip(dataOffsetFields, tracks) {
            BigEndian.set(UInt32(offset), at: field, in: &out)
            offset += track.payloadBytes
        }
        BigEndian.append(UInt32(payload + 8), to: &out)
        BigEndian.append(FourCC("mdat").rawValue, to: &out)
        return out
    }
}
