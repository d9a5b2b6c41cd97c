/// One track's sample table, kept compactly as samples are placed (4 bytes a sample for its size, plus
/// run-length entries, where FFmpeg's own muxer keeps ~48 bytes a sample), and written as the table boxes
/// FFmpeg 5.1's mov muxer writes for the same samples at the same offsets: stts, stss, sdtp, ctts, stsc,
/// stsz, stco or co64 (and for AAC the sgpd/sbgp roll group).
///
/// Times are in the track's timescale, as the muxer received them.
public struct SampleTable: Sendable {
    /// A sample the tables cannot hold after the ones before it.
    public enum AppendError: Error, Equatable, CustomStringConvertible {
        /// Decode times must not go back, and a step must fit the 32 bits of an stts entry.
        case decodeTimeStep(from: Int64, to: Int64)
        /// A presentation offset must fit the 32 bits of a ctts entry.
        case presentationOffset(Int64)

        public var description: String {
            switch self {
            case .decodeTimeStep(let from, let to): "decode times go from \(from) to \(to)"
            case .presentationOffset(let offset): "presentation offset \(offset) out of range"
            }
        }
    }

    /// The muxer starts a new chunk when a sample would take the current one to 1 MiB (movenc's build_chunks).
    public static let maximumChunkBytes: Int64 = 1 << 20

    public private(set) var count = 0
    public private(set) var totalBytes: Int64 = 0
    /// The first sample in decode order (its decode time and offset start the edit list).
    public private(set) var first: Sample? = nil
    /// The latest presentation end (presentation time + duration) of any sample.
    public private(set) var presentationEnd: Int64 = 0
    private var sizes: [UInt32] = []
    private var timeRuns: [(count: UInt32, delta: UInt32)] = []
    private var offsetRuns: [(count: UInt32, offset: Int32)] = []
    private var syncSamples: [UInt32] = []
    /// One bit a sample: no other sample refers to it (sdtp). Empty while no sample is.
    private var disposableBits: [UInt64] = []
    private var chunks: [(firstSample: UInt32, samples: UInt32, offset: Int64)] = []
    private var chunkBytes: Int64 = 0
    private var lastDecodeTime: Int64 = 0
    private var lastDuration: Int64 = 0
    private var lastSampleEnd: Int64 = -1
    private var lastSampleOffset: Int64 = -1

    public init() {}

    /// Adds the next sample in decode order, stored at `offset` in the file.
    public mutating func append(_ sample: Sample, at offset: Int64) throws(AppendError) {
        if first != nil {
            let delta = sample.decodeTime - lastDecodeTime
            guard delta >= 0, delta <= Int64(Int32.max) else {
                throw .decodeTimeStep(from: lastDecodeTime, to: sample.decodeTime)
            }
            appendTimeRun(UInt32(delta))
        }
        guard let offset32 = Int32(exactly: sample.presentationOffset) else { throw .presentationOffset(sample.presentationOffset) }
        if first == nil {
            first = sample
            presentationEnd = sample.presentationTime + sample.duration
        } else {
            presentationEnd = max(presentationEnd, sample.presentationTime + sample.duration)
        }
        lastDecodeTime = sample.decodeTime
        lastDuration = sample.duration
        totalBytes += Int64(sample.size)
        if let last = offsetRuns.last, last.offset == offset32 {
            offsetRuns[offsetRuns.count - 1].count += 1
        } else {
            offsetRuns.append((1, offset32))
        }
        count += 1
        sizes.append(UInt32(truncatingIfNeeded: sample.size))
        if sample.isKeyframe { syncSamples.append(UInt32(count)) }
        if sample.isDisposable {
            let index = count - 1
            if disposableBits.count <= index >> 6 {
                disposableBits += Array(repeating: 0, count: (index >> 6) + 1 - disposableBits.count)
            }
            disposableBits[index >> 6] |= 1 << UInt64(index & 63)
        }
        let size = Int64(sample.size)
        if offset == lastSampleEnd, !chunks.isEmpty, chunkBytes + size < SampleTable.maximumChunkBytes {
            chunks[chunks.count - 1].samples += 1
            chunkBytes += size
        } else {
            chunks.append((UInt32(count), 1, offset))
            chunkBytes = size
        }
        lastSampleEnd = offset + size
        lastSampleOffset = offset
    }

    private mutating func appendTimeRun(_ delta: UInt32) {
        if let last = timeRuns.last, last.delta == delta {
            timeRuns[timeRuns.count - 1].count += 1
        } else {
            timeRuns.append((1, delta))
        }
    }

    /// From the first decode time to the end of the last sample (movenc's track_duration): the unit of the
    /// average bit rate.
    public var decodeDuration: Int64 { first.map { lastDecodeTime + lastDuration - $0.decodeTime } ?? 0 }

    /// From the first presentation time to the latest presentation end (the media header's duration).
    public var presentedSpan: Int64 { first.map { presentationEnd - $0.presentationTime } ?? 0 }

    public var hasPresentationOffsets: Bool { offsetRuns.contains { $0.offset != 0 } }

    public var chunkCount: Int { chunks.count }

    // MARK: boxes

    /// Appends the table boxes in the order and under the conditions of FFmpeg's mov muxer: a sync sample
    /// table, dependency flags and composition offsets are written for video only.
    public func writeBoxes(isVideo: Bool, into out: inout [UInt8]) {
        var times = timeRuns
        if count > 0 {
            // The last sample lasts its own duration (movenc: track duration - its decode time).
            let delta = UInt32(truncatingIfNeeded: lastDuration)
            if let last = times.last, last.delta == delta { times[times.count - 1].count += 1 } else { times.append((1, delta)) }
        }
        BoxWriter.fullBox("stts", into: &out) { body in
            BigEndian.append(UInt32(times.count), to: &body)
            for run in times {
                BigEndian.append(run.count, to: &body)
                BigEndian.append(run.delta, to: &body)
            }
        }
        if isVideo && !syncSamples.isEmpty && syncSamples.count < count {
            BoxWriter.fullBox("stss", into: &out) { body in
                BigEndian.append(UInt32(syncSamples.count), to: &body)
                for sample in syncSamples { BigEndian.append(sample, to: &body) }
            }
        }
        if isVideo && !disposableBits.isEmpty {
            // As movenc: a sample depends on others unless it is a sync sample, and no other sample depends on
            // a disposable one (ISO 14496-12 sample_depends_on, sample_is_depended_on: 1 yes, 2 no).
            BoxWriter.fullBox("sdtp", into: &out) { body in
                var syncs = syncSamples.makeIterator()
                var nextSync = syncs.next()
                for index in 0 ..< count {
                    var flags: UInt8 = 1 << 4
                    if nextSync == UInt32(index + 1) {
                        flags = 2 << 4
                        nextSync = syncs.next()
                    }
                    if index >> 6 < disposableBits.count, disposableBits[index >> 6] & (1 << UInt64(index & 63)) != 0 {
                        flags |= 2 << 2
                    }
                    body.append(flags)
                }
            }
        }
        if isVideo && hasPresentationOffsets {
            BoxWriter.fullBox("ctts", into: &out) { body in
                BigEndian.append(UInt32(offsetRuns.count), to: &body)
                for run in offsetRuns {
                    BigEndian.append(run.count, to: &body)
                    BigEndian.append(UInt32(bitPattern: run.offset), to: &body)
                }
            }
        }
        BoxWriter.fullBox("stsc", into: &out) { body in
            var entries: [(first: UInt32, samples: UInt32)] = []
            for (index, chunk) in chunks.enumerated() where entries.last?.samples != chunk.samples {
                entries.append((UInt32(index + 1), chunk.samples))
            }
            BigEndian.append(UInt32(entries.count), to: &body)
            for entry in entries {
                BigEndian.append(entry.first, to: &body)
                BigEndian.append(entry.samples, to: &body)
                BigEndian.append(UInt32(1), to: &body)  // sample description index
            }
        }
        BoxWriter.fullBox("stsz", into: &out) { body in
            let uniform = count > 0 && sizes.allSatisfy { $0 == sizes[0] }
            BigEndian.append(uniform ? sizes[0] : 0, to: &body)
            BigEndian.append(UInt32(count), to: &body)
            if !uniform { for size in sizes { BigEndian.append(size, to: &body) } }
        }
        // 64-bit offsets once the last sample starts past 4 GiB (movenc's co64_required).
        let wide = lastSampleOffset > Int64(UInt32.max)
        BoxWriter.fullBox(wide ? "co64" : "stco", into: &out) { body in
            BigEndian.append(UInt32(chunks.count), to: &body)
            for chunk in chunks {
                if wide { BigEndian.append(UInt64(chunk.offset), to: &body) } else { BigEndian.append(UInt32(truncatingIfNeeded: chunk.offset), to: &body) }
            }
        }
    }

    /// Appends the sample group movenc gives an AAC track: one `roll` group of distance -1 (a sample needs
    /// the one before it to decode, the AAC overlap), every sample in it.
    public func writeRollGroupBoxes(into out: inout [UInt8]) {
        guard count > 0 else { return }
        BoxWriter.fullBox("sgpd", version: 1, into: &out) { body in
            BigEndian.append(FourCC("roll").rawValue, to: &body)
            BigEndian.append(UInt32(2), to: &body)            // default length
            BigEndian.append(UInt32(1), to: &body)            // entries
            BigEndian.append(UInt16(bitPattern: -1), to: &body)  // roll distance
        }
        BoxWriter.fullBox("sbgp", into: &out) { body in
            BigEndian.append(FourCC("roll").rawValue, to: &body)
            BigEndian.append(UInt32(1), to: &body)
            BigEndian.append(UInt32(count), to: &body)
            BigEndian.append(UInt32(1), to: &body)
        }
    }
}
