import FFmpegCore
import FoundationEssentials
import Glibc
import QuickTime
import SystemSupport

/// Owns the muxer and the limits. Packets from the encoders are interleaved here by decode time and, before
/// each is written, the writer knows the bytes written, the bytes the trailer will need and the free space
/// left: it refuses the packet that would cross a limit, so the finished file never does.
final class MovieWriter {
    enum Outcome: Equatable {
        case accepted
        case limitReached(StopReason)
    }

    private let output: OutputContext
    private let path: String
    /// The encoders' streams as the container code sees them.
    private let tracks: [TrackDescription]
    private let fragmentInterval: Double
    private let fragmentMemoryLimit: Int64
    /// Set once the header is written when fragments are on.
    private var fragmenter: MovieFragmenter?
    private var limits: RecordingLimits
    private let folder: String
    private var estimator: TrailerSizeEstimator
    private var queues: [[Packet]]
    private var spare: [Packet] = []
    private var streamEnded: [Bool]
    private var encoderTimeBases: [Rational]
    /// The movie header's time scale: the audio's sample rate when there is audio (FFmpeg's default is 1000),
    /// so edit lists (which are in it) end a track on its last sample: at 1000 a segment of 197 frames
    /// (6566.67 ms) would play 32 samples short, a click at every join.
    private let movieTimescale: Int?
    private var isVideoStream: [Bool]
    private var freeBytesAtCheck: Int64 = 0
    private var flushedAtCheck: Int64 = 0
    private var lastDiskCheck: Int64 = 0
    private(set) var stopReason: StopReason?
    /// Per stream: packets handed to the muxer and where the last of them ends (in the encoder's time base).
    private var handedPackets: [Int]
    private var handedEnd: [Int64]
    private(set) var packetsWritten = 0
    private(set) var headerBytes: Int64 = 0
    /// Bytes written when the file was finalized (trailer, or with fragments: last fragment + index + headers).
    private(set) var finalizationBytes: Int64 = 0
    /// Set when the file could not be made a regular movie and was kept as a fragmented one.
    private(set) var finalizationProblem: String?
    /// Whether the muxer's output failed (the disk filled): its buffered fragment is lost.
    private var muxerBroken = false
    /// Video packets held back until, with them, every picture earlier in display order is in the file: with
    /// B-frames a P-frame comes before the pictures shown ahead of it, and a size limit that fell between
    /// them would leave holes (see `writeVideoGroup`).
    private var videoGroup: [Packet] = []
    /// The other buffer videoGroup is swapped with when a group is written (no array allocated per group).
    private var writingGroup: [Packet] = []
    /// Display-order bookkeeping of the video written and held: the first pts, how many, the largest.
    private var videoOrder: (first: Int64, count: Int64, last: Int64)? = nil

    /// Per stream: packets in the file and where the last of them ends (in the encoder's time base).
    var writtenPackets: [Int] { fragmenter?.placedSamples ?? handedPackets }
    var writtenEnd: [Int64] { fragmenter?.placedEnd ?? handedEnd }
    var fragmentCount: Int { fragmenter?.fragmentCount ?? 0 }

    /// NAL start codes of three bytes become four-byte lengths in the file (movenc's Annex B conversion, for
    /// H.264 and HEVC alike): allow for a few per packet. x264 and x265 start a picture's first NAL unit with
    /// four bytes and the few after it (SEI, further slices) with three.
    private static let startCodeGrowthAllowance = 8
    /// Video packets held for display order at most (x264's B-frame groups are a few pictures).
    private static let longestVideoGroup = 64
    /// Above this many queued packets of one stream, the other is considered stalled and is not waited for.
    private static let maximumQueuedPackets = 512

    /// `encoders` in stream order; the first video stream may carry a rotation. `fragmentInterval` > 0 writes
    /// crash-safe fragments (see MovieFragmenter).
    convenience init(path: String, encoders: [Encoder], trackNames: [String?] = [], rotation: DisplayTurn, limits: RecordingLimits,
                     folder: String, fragmentInterval: Double = 0, fragmentMemoryLimit: Int64 = 4 << 20) throws {
        try self.init(path: path, streams: encoders.map(StreamParameters.init(of:)), trackNames: trackNames, rotation: rotation,
                      limits: limits, folder: folder, fragmentInterval: fragmentInterval, fragmentMemoryLimit: fragmentMemoryLimit)
    }

    /// `streams` describes the packets of each stream, in stream order (their encoders', copied on the
    /// encoders' thread: a replay is written beside the encoders that go on encoding). `trackNames`, where
    /// given, name the streams' tracks (their handler and udta name, which players list).
    init(path: String, streams: [StreamParameters], trackNames: [String?] = [], rotation: DisplayTurn, limits: RecordingLimits,
         folder: String, fragmentInterval: Double = 0, fragmentMemoryLimit: Int64 = 4 << 20) throws {
        output = try OutputContext(path: path, formatName: "mov")
        self.path = path
        self.fragmentInterval = fragmentInterval
        self.fragmentMemoryLimit = fragmentMemoryLimit
        self.limits = limits
        self.folder = folder
        let tracks = streams.map(TrackDescription.init)
        for (index, (stream, track)) in zip(streams, tracks).enumerated() {
            let added = try output.addStream(stream, codecTag: CodecConfigurationRecord.sampleEntryTag(forCodec: track.codec)?.description)
            if index < trackNames.count, let name = trackNames[index] {
                output.setStreamMetadata(added, "handler_name", name)
                output.setStreamMetadata(added, "title", name)
            }
        }
        if let videoIndex = streams.firstIndex(where: { $0.mediaType == .video }) {
            try output.setRotation(streamIndex: videoIndex, turn: rotation)
        }
        self.tracks = tracks
        estimator = TrailerSizeEstimator(tracks: tracks)
        queues = Array(repeating: [], count: streams.count)
        streamEnded = Array(repeating: false, count: streams.count)
        encoderTimeBases = streams.map(\.timeBase)
        isVideoStream = streams.map { $0.mediaType == .video }
        movieTimescale = streams.first { $0.mediaType == .audio }.map { Int($0.timeBase.denominator) }
        handedPackets = Array(repeating: 0, count: streams.count)
        handedEnd = Array(repeating: 0, count: streams.count)
    }

    /// Seconds of media the file holds for a stream.
    func writtenSeconds(_ index: Int) -> Double {
        Double(writtenEnd[index]) * encoderTimeBases[index].doubleValue
    }

    /// Whether encoders must put their headers in extradata for this container.
    static let needsGlobalHeader = true

    func start() throws {
        if fragmentInterval > 0 {
            try output.writeHeader(options: MovieFragmenter.muxerOptions + timescaleOption)
            // Room after the fragmented moov for what the first fragment completes it with (FragmentedHeader).
            try output.writeRaw(MovieFragmenter.headerReserve)
            fragmenter = try MovieFragmenter(output: output, path: path, tracks: tracks, interval: fragmentInterval,
                                             memoryLimit: fragmentMemoryLimit)
        } else {
            try output.writeHeader(options: timescaleOption)
        }
        headerBytes = output.bytesWritten
        refreshDiskSpace()
    }

    private var timescaleOption: [(key: String, value: String)] {
        movieTimescale.map { [("movie_timescale", String($0))] } ?? []
    }

    /// Bytes the finished file would have if the trailer were written now.
    var projectedFileSize: Int64 {
        output.bytesWritten + Int64(estimator.bound) + (fragmenter.map { $0.pendingBound(adding: 0) } ?? 0)
    }
    var bytesWritten: Int64 { output.bytesWritten }

    /// The size of a file written in place in fragments, through its descriptor (wherever it is now); nil
    /// for other files.
    var fileSizeInPlace: Int64? { fragmenter?.fileSize }

    /// Takes the packet's payload (leaving `packet` empty) and writes whatever interleaving now allows.
    func submit(_ packet: Packet) throws -> Outcome {
        if let stopReason { return .limitReached(stopReason) }
        let queued = spare.popLast() ?? Packet()
        queued.moveReference(from: packet)
        queues[queued.streamIndex].append(queued)
        return try drain(force: false)
    }

    /// No more packets will come for this stream: the other streams need not wait for it.
    func endStream(_ index: Int) throws -> Outcome {
        streamEnded[index] = true
        return try drain(force: false)
    }

    /// Writes everything still queued (at the end), then the trailer, and closes the file. `failed`: the
    /// encoders were not drained (a failure), so pictures held for display order will never be completed:
    /// they are left out rather than leave a hole before the last picture.
    func finish(failed: Bool = false) throws {
        if failed { discardHeldVideoGroup() }
        if stopReason == nil { _ = try drain(force: !failed) }
        discardQueued()
        guard let fragmenter else {
            try output.finish()
            var info = stat()
            if stat(path, &info) == 0 { finalizationBytes = Int64(info.st_size) - max(lastPacketEnd, headerBytes) }
            return
        }
        do {
            finalizationBytes = try fragmenter.finish(muxerUsable: !muxerBroken, into: &estimator)
        } catch let error as FFmpegError where error.isNoSpace && !muxerBroken {
            // The last fragment did not fit: keep the ones before it.
            stopReason = .diskFull
            muxerBroken = true
            try finishKeepingFragments(fragmenter)
        } catch {
            finalizationProblem = "\(error); \(path) was kept as a fragmented movie"
        }
    }

    private func finishKeepingFragments(_ fragmenter: MovieFragmenter) throws {
        do {
            finalizationBytes = try fragmenter.finish(muxerUsable: false, into: &estimator)
        } catch {
            finalizationProblem = "\(error); \(path) was kept as a fragmented movie"
        }
    }

    /// Closes the file without a trailer; the caller deletes it.
    func abandon() {
        discardQueued()
        output.abandon()
    }

    private func drain(force: Bool) throws -> Outcome {
        while let index = nextStreamToWrite(force: force) {
            let packet = queues[index].removeFirst()
            let reason: StopReason?
            if isVideoStream[index] && packet.size > 0 {
                reason = try holdVideo(packet)
            } else {
                defer { recycle(packet) }
                reason = try write(packet)
            }
            if let reason {
                stopReason = reason
                discardQueued()
                return .limitReached(reason)
            }
        }
        // At the end nothing more will complete display order: what is held goes out as it is.
        if force && !videoGroup.isEmpty, let reason = try writeVideoGroup() {
            stopReason = reason
            discardQueued()
            return .limitReached(reason)
        }
        return .accepted
    }

    private func recycle(_ packet: Packet) {
        packet.unref()
        spare.append(packet)
    }

    /// Holds a video packet; once the held ones complete display order (their pts and those written before
    /// are one run without gaps), they are written together, or not at all when together they would cross
    /// a limit. So a size limit always ends the track at a picture with every earlier one written.
    private func holdVideo(_ packet: Packet) throws -> StopReason? {
        videoGroup.append(packet)
        var order = videoOrder ?? (first: packet.pts, count: 0, last: packet.pts)
        order.first = min(order.first, packet.pts)
        order.last = max(order.last, packet.pts)
        order.count += 1
        videoOrder = order
        let complete = order.count == order.last &- order.first &+ 1
        // A group never runs longer than a mini-GOP; one that does (timestamps with a gap no later packet will
        // fill) is written as it is rather than held to the end.
        return complete || videoGroup.count > MovieWriter.longestVideoGroup ? try writeVideoGroup() : nil
    }

    private func writeVideoGroup() throws -> StopReason? {
        swap(&videoGroup, &writingGroup)
        defer {
            for packet in writingGroup { recycle(packet) }
            writingGroup.removeAll(keepingCapacity: true)
        }
        if let reason = groupCrossesALimit(writingGroup) { return reason }
        for packet in writingGroup {
            if let reason = try write(packet) { return reason }
        }
        return nil
    }

    /// Whether writing all of `group` would cross the size limit or the free-space floor.
    private func groupCrossesALimit(_ group: [Packet]) -> StopReason? {
        guard limits.maxFileSize != nil || limits.minFreeDiskSpace > 0 else { return nil }
        let growth = MovieWriter.startCodeGrowthAllowance
        let payload = group.reduce(0) { $0 + $1.size + growth }
        let offset = output.bytesWritten
        let projected: Int64
        if let fragmenter {
            projected = offset + fragmenter.pendingBound(adding: payload, samples: group.count) + Int64(estimator.bound)
        } else {
            var trailer = estimator
            var position = offset
            for packet in group {
                var sample = Sample(packet)
                sample.size += growth
                trailer.record(SamplePlacement(track: packet.streamIndex, offset: position, sample: sample))
                position += Int64(sample.size)
            }
            projected = position + Int64(trailer.bound)
        }
        // A margin over the per-packet checks `write` makes again (a fragment cut inside the group adds a moof
        // and index entries the group's projection counts slightly differently): the group is refused whole
        // rather than cut by a later packet's check, which would leave a hole.
        let margin: Int64 = 256  // about one moof header (24 + 88 per track + 16 per sample)
        if let maxFileSize = limits.maxFileSize, projected + margin > maxFileSize { return .maxFileSizeReached }
        if limits.minFreeDiskSpace > 0 && freeSpaceEstimate() - (projected + margin - output.bytesFlushed) < limits.minFreeDiskSpace {
            return .diskSpaceLimitReached
        }
        return nil
    }

    /// The stream whose head packet comes first in decode time, once every stream that may still deliver
    /// has a packet queued (so the file order is final, as av_interleaved_write_frame would make it).
    private func nextStreamToWrite(force: Bool) -> Int? {
        var best: Int? = nil
        for index in queues.indices {
            guard let head = queues[index].first else {
                let stalled = queues.contains { $0.count > MovieWriter.maximumQueuedPackets }
                if !force && !streamEnded[index] && !stalled { return nil }
                continue
            }
            if let current = best, let currentHead = queues[current].first {
                let candidate = Timestamp(value: head.dts, timeBase: encoderTimeBases[index])
                let leader = Timestamp(value: currentHead.dts, timeBase: encoderTimeBases[current])
                if candidate < leader { best = index }
            } else {
                best = index
            }
        }
        return best
    }

    /// Writes one packet unless it would cross a limit; returns the limit's stop reason instead.
    private func write(_ packet: Packet) throws -> StopReason? {
        let index = packet.streamIndex
        guard packet.size > 0 else { return nil }  // nothing to store (the muxer would skip it too)
        if let fragmenter, fragmenter.cutsBefore(stream: index, pts: packet.pts, size: packet.size, isKeyframe: packet.isKeyframe) {
            do {
                try fragmenter.cut(into: &estimator)
            } catch let error as FFmpegError where error.isNoSpace {
                muxerBroken = true
                return .diskFull
            }
        }
        let growth = isVideoStream[index] ? MovieWriter.startCodeGrowthAllowance : 0
        let offset = output.bytesWritten
        let end = packet.pts + packet.duration
        // The packet as encoded (the muxer empties it), and as the trailer will index it: with room for the
        // start codes the muxer lengthens.
        let sample = Sample(packet)
        var placement = SamplePlacement(track: index, offset: offset, sample: sample)
        placement.sample.size += growth
        let projected = fragmenter.map { offset + $0.pendingBound(adding: placement.sample.size) + Int64(estimator.bound) }
            ?? offset + Int64(placement.sample.size) + Int64(estimator.bound(adding: placement))
        if let maxFileSize = limits.maxFileSize, projected > maxFileSize { return .maxFileSizeReached }
        if limits.minFreeDiskSpace > 0 {
            // Bytes still to reach the disk: what sits in the I/O buffer, this packet, and the trailer.
            let pending = projected - output.bytesFlushed
            if freeSpaceEstimate() - pending < limits.minFreeDiskSpace { return .diskSpaceLimitReached }
        }
        do {
            try output.write(packet, interleaved: false)
        } catch let error as FFmpegError where error.isNoSpace {
            muxerBroken = true
            return .diskFull
        }
        if let fragmenter {
            fragmenter.noteWritten(track: index, sample)
        } else {
            placement.sample.size = Int(output.bytesWritten - offset)
            estimator.record(placement)
            lastPacketEnd = output.bytesWritten
        }
        packetsWritten += 1
        handedPackets[index] += 1
        handedEnd[index] = max(handedEnd[index], end)
        return nil
    }

    /// Where the last packet ended in the file (without fragments), to measure the trailer.
    private var lastPacketEnd: Int64 = 0

    /// A segmented movie's files share the recording's total size: what is left of it changes as segments finish.
    func setMaxFileSize(_ bytes: Int64?) { limits.maxFileSize = bytes }

    /// Bytes that may still be written before free space would fall under the min-free floor (with what is
    /// still buffered and the trailer counted), for loop recording to delete old segments in time.
    func freeSpaceHeadroom() -> Int64 {
        freeSpaceEstimate() - (projectedFileSize - output.bytesFlushed) - limits.minFreeDiskSpace
    }

    /// Free space now: re-read with statvfs every ~250 ms, in between reduced by what has been flushed since.
    private func freeSpaceEstimate() -> Int64 {
        let now = MonotonicClock.nanoseconds()
        if now - lastDiskCheck > 250_000_000 { refreshDiskSpace() }
        return freeBytesAtCheck - (output.bytesFlushed - flushedAtCheck)
    }

    /// Reads the free space again now (after files were deleted).
    func refreshDiskSpace() {
        lastDiskCheck = MonotonicClock.nanoseconds()
        flushedAtCheck = output.bytesFlushed
        freeBytesAtCheck = DiskSpace.availableBytes(atFolder: folder) ?? Int64.max / 4
    }

    private func discardHeldVideoGroup() {
        for packet in videoGroup { recycle(packet) }
        videoGroup.removeAll()
        videoOrder = nil
    }

    private func discardQueued() {
        for packet in videoGroup { recycle(packet) }
        videoGroup.removeAll()
        for index in queues.indices {
            for packet in queues[index] {
                packet.unref()
                spare.append(packet)
            }
            queues[index].removeAll()
        }
    }
}
