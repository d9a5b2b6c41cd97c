/// One track's sample table, kept compactly as samples land in fragments (about 4 bytes per sample plus
/// run-length entries, where FFmpeg's own muxer keeps ~48), and written out as the QuickTime boxes of a
/// complete moov: stts, stss, sdtp, ctts, stsc, stsz, stco/co64 and sbgp.
///
/// Timestamps are in the track's time base (the muxer stream's), exactly as the muxer received them.
struct SampleTable {
    struct Sample {
        var pts: Int64
        var dts: Int64
        var duration: Int64
        var size: Int
        var isKeyframe: Bool
        var isDisposable: Bool = false
    }

    private(set) var count = 0
    private(set) var totalBytes: Int64 = 0
    private var firstDecodeTime: Int64? = nil
    private var sizes: [UInt32] = []
    private var timeRuns: [(count: UInt32, delta: UInt32)] = []
    private var offsetRuns: [(count: UInt32, offset: Int32)] = []
    private var syncSamples: [UInt32] = []
    /// One bit a sample: no other sample refers to it (sdtp). Empty while no sample is.
    private var disposableBits: [UInt64] = []
    private var chunks: [(firstSample: UInt32, samples: UInt32, offset: Int64)] = []
    private var lastDecodeTime: Int64? = nil
    private var lastDuration: Int64 = 0
    private var lastChunkEnd: Int64 = -1
    /// The first and the latest samples as the encoder stamped them, for the muxer that writes the rest of
    /// the moov (the latest in a ring, oldest at `trailingStart`).
    private var leading: [Sample] = []
    private var trailing: [Sample] = []
    private var trailingStart = 0
    static let keptAtEachEnd = 64

    /// Adds a sample stored at `offset` in the file (samples must come in decode order); `sample` is in the
    /// track's time base, `encoded` the same sample as the encoder stamped it.
    mutating func append(_ sample: Sample, encoded: Sample, at offset: Int64) throws {
        if let last = lastDecodeTime {
            let delta = sample.dts - last
            guard delta >= 0, delta <= Int64(UInt32.max) else {
                throw MovieIndexBuilder.IndexError.mismatch("decode times go from \(last) to \(sample.dts)")
            }
            appendTimeRun(UInt32(delta))
        }
        lastDecodeTime = sample.dts
        lastDuration = sample.duration
        if firstDecodeTime == nil { firstDecodeTime = sample.dts }
        totalBytes += Int64(sample.size)
        let presentationOffset = sample.pts - sample.dts
        guard let offset32 = Int32(exactly: presentationOffset) else {
            throw MovieIndexBuilder.IndexError.mismatch("presentation offset \(presentationOffset) out of range")
        }
        if let last = offsetRuns.last, last.offset == offset32 {
            offsetRuns[offsetRuns.count - 1].count += 1
        } else {
            offsetRuns.append((1, offset32))
        }
        count += 1
        sizes.append(UInt32(sample.size))
        if sample.isKeyframe { syncSamples.append(UInt32(count)) }
        if sample.isDisposable {
            let index = count - 1
            if disposableBits.count <= index >> 6 { disposableBits += Array(repeating: 0, count: (index >> 6) + 1 - disposableBits.count) }
            disposableBits[index >> 6] |= 1 << UInt64(index & 63)
        }
        if offset == lastChunkEnd, !chunks.isEmpty {
            chunks[chunks.count - 1].samples += 1
        } else {
            chunks.append((UInt32(count), 1, offset))
        }
        lastChunkEnd = offset + Int64(sample.size)
        if leading.count < SampleTable.keptAtEachEnd {
            leading.append(encoded)
        } else if trailing.count < SampleTable.keptAtEachEnd {
            trailing.append(encoded)
        } else {
            trailing[trailingStart] = encoded
            trailingStart = (trailingStart + 1) % SampleTable.keptAtEachEnd
        }
    }

    private mutating func appendTimeRun(_ delta: UInt32) {
        if let last = timeRuns.last, last.delta == delta {
            timeRuns[timeRuns.count - 1].count += 1
        } else {
            timeRuns.append((1, delta))
        }
    }

    /// The samples the skeleton muxer needs to compute durations and edit lists as for the whole track.
    var endSamples: [Sample] { leading + trailing[trailingStart...] + trailing[..<trailingStart] }

    /// From the first decode time to the end of the last sample, as movenc's track duration.
    var duration: Int64 { count == 0 ? 0 : lastDecodeTime! + lastDuration - firstDecodeTime! }

    var hasPresentationOffsets: Bool { offsetRuns.contains { $0.offset != 0 } }

    // MARK: boxes

    /// Appends the table boxes, in the order FFmpeg's mov muxer writes them after the sample description.
    func writeBoxes(into out: inout [UInt8]) {
        var times = timeRuns
        if count > 0 {
            // The last sample lasts its own duration (movenc: track duration - its decode time).
            let delta = UInt32(clamping: lastDuration)
            if let last = times.last, last.delta == delta { times[times.count - 1].count += 1 } else { times.append((1, delta)) }
        }
        BoxWriter.fullBox("stts", into: &out) { body in
            BoxWriter.u32(UInt32(times.count), &body)
            for run in times { BoxWriter.u32(run.count, &body); BoxWriter.u32(run.delta, &body) }
        }
        if !syncSamples.isEmpty && syncSamples.count < count {
            BoxWriter.fullBox("stss", into: &out) { body in
                BoxWriter.u32(UInt32(syncSamples.count), &body)
                for sample in syncSamples { BoxWriter.u32(sample, &body) }
            }
        }
        if !disposableBits.isEmpty {
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
        if hasPresentationOffsets {
            BoxWriter.fullBox("ctts", into: &out) { body in
                BoxWriter.u32(UInt32(offsetRuns.count), &body)
                for run in offsetRuns { BoxWriter.u32(run.count, &body); BoxWriter.u32(UInt32(bitPattern: run.offset), &body) }
            }
        }
        BoxWriter.fullBox("stsc", into: &out) { body in
            var entries: [(first: UInt32, samples: UInt32)] = []
            for (index, chunk) in chunks.enumerated() where entries.last?.samples != chunk.samples {
                entries.append((UInt32(index + 1), chunk.samples))
            }
            BoxWriter.u32(UInt32(entries.count), &body)
            for entry in entries { BoxWriter.u32(entry.first, &body); BoxWriter.u32(entry.samples, &body); BoxWriter.u32(1, &body) }
        }
        BoxWriter.fullBox("stsz", into: &out) { body in
            let uniform = sizes.allSatisfy { $0 == sizes.first }
            BoxWriter.u32(uniform ? sizes.first ?? 0 : 0, &body)
            BoxWriter.u32(UInt32(count), &body)
            if !uniform { for size in sizes { BoxWriter.u32(size, &body) } }
        }
        let wide = chunks.contains { $0.offset > Int64(UInt32.max) }
        BoxWriter.fullBox(wide ? "co64" : "stco", into: &out) { body in
            BoxWriter.u32(UInt32(chunks.count), &body)
            for chunk in chunks {
                if wide { BoxWriter.u64(UInt64(chunk.offset), &body) } else { BoxWriter.u32(UInt32(chunk.offset), &body) }
            }
        }
    }

    /// Appends a sample-to-group box putting every sample in one group (the AAC roll group movenc describes
    /// in sgpd).
    func writeRollGroupBox(index: UInt32, into out: inout [UInt8]) {
        BoxWriter.fullBox("sbgp", into: &out) { body in
            body += Array("roll".utf8)
            BoxWriter.u32(1, &body)
            BoxWriter.u32(UInt32(count), &body)
            BoxWriter.u32(index, &body)
        }
    }
}

/// Big-endian box writing for the few QuickTime boxes Reel writes itself.
enum BoxWriter {
    static func u32(_ value: UInt32, _ out: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// Overwrites the four bytes at `at` with `value`, big-endian.
    static func set(_ value: UInt32, at: Int, in out: inout [UInt8]) {
        for byte in 0 ..< 4 { out[at + byte] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(byte))) }
    }

    static func u64(_ value: UInt64, _ out: inout [UInt8]) {
        u32(UInt32(value >> 32), &out)
        u32(UInt32(value & 0xFFFF_FFFF), &out)
    }

    /// A box with version 0 and no flags around what `body` appends.
    static func fullBox(_ type: String, into out: inout [UInt8], _ body: (inout [UInt8]) throws -> Void) rethrows {
        try box(type, into: &out) { content in
            content += [0, 0, 0, 0]
            try body(&content)
        }
    }

    /// The header of a `skip` box of `size` bytes (header included): 8 bytes, or 16 with a 64-bit size
    /// when it does not fit 32 bits. The finalization switch (see MovieFragmenter).
    static func skipHeader(spanning size: Int64) -> [UInt8] {
        var header: [UInt8] = []
        if size <= Int64(UInt32.max) {
            u32(UInt32(size), &header)
            header.append(contentsOf: "skip".utf8)
        } else {
            u32(1, &header)
            header.append(contentsOf: "skip".utf8)
            u64(UInt64(size), &header)
        }
        return header
    }

    /// A box around what `body` appends to the same buffer (its size is filled in afterwards: no copies).
    static func box(_ type: String, into out: inout [UInt8], _ body: (inout [UInt8]) throws -> Void) rethrows {
        let start = out.count
        out += [0, 0, 0, 0]
        out.append(contentsOf: type.utf8)
        try body(&out)
        set(UInt32(out.count - start), at: start, in: &out)
    }
}
