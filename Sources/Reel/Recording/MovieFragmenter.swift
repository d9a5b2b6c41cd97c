import CLinuxCapture
import FFmpegCore
import Dispatch
import FoundationEssentials
import Glibc
import QuickTime
import SystemSupport

/// Crash-safe writing: the mov muxer writes movie fragments (an empty moov up front, then moof + mdat pairs),
/// cut at a keyframe at least every `interval` seconds and flushed whole to the operating system, so a file
/// interrupted by a crash, a kill or a power cut plays up to its last fragment.
///
/// A clean stop turns the file into an ordinary movie in place (as hybrid MP4 does): the complete moov from
/// MovieIndexBuilder (QuickTime, built from the fragmented moov and the samples found in the fragments) is
/// appended and synced (readers take the first moov, so the file is still the same fragmented movie), then
/// one write turns the fragmented moov's header into an `mdat` box that spans everything up to the new moov:
/// the old moov, every moof and every mdat. Players then see `ftyp`, `mdat`, `moov`, whose sample table
/// points into the fragments' data inside that mdat (see retireFragments). Nothing is moved.
/// The switch is that single write of 8 bytes (16 past 4 GiB) in the file's first sector, which a disk
/// writes whole: before it the file is a valid fragmented movie, after it a valid regular one, with no
/// state in between.
final class MovieFragmenter {
    /// The mov muxer options for fragments the writer cuts itself, without the mfra index at the end.
    static let muxerOptions: [(key: String, value: String)] = [("movflags", "frag_custom+empty_moov+skip_trailer")]

    let interval: Double
    private let memoryLimit: Int64
    private let output: OutputContext
    private var index: MovieIndexBuilder
    private let scanner: MovieFragmentScanner
    /// The movie reopened for reading back and patching its fragments (the muxer has its own descriptor).
    private let file: FileDescriptor
    private var descriptor: Int32 { file.raw }
    private let leadStream: Int
    private let leadTimeBase: TimeBase
    private let trackCount: Int
    private var leadOrigin: Int64? = nil
    private var nextCut: Double
    /// The moov the muxer wrote at the start, where it is, and as the template of the final one.
    private let fragmentedMoov: MovieFragmentScanner.TopLevelBox
    private let template: MovieBoxTemplate
    private var fragmentedMoovOffset: Int64 { fragmentedMoov.offset }
    private var fragmentOffsets: [Int64] = []
    /// End of the last fragment known to be complete on disk.
    private(set) var completeEnd: Int64
    private var pendingPayload: Int64 = 0
    private var pendingSamples = 0
    /// Per stream: samples in complete fragments on disk, and where the last of them ends.
    private(set) var placedSamples: [Int]
    private(set) var placedEnd: [Int64]

    /// A `free` box written right after the muxer's moov: the space the completed header (an edit list per
    /// track, a mehd) takes from at the first cut.
    static let headerReserve: [UInt8] = {
        var box: [UInt8] = []
        BoxWriter.box("free", into: &box) { $0 += [UInt8](repeating: 0, count: 120) }
        return box
    }()
    /// Set once the first cut completed the header: where mehd's duration is in the file, and its time scale.
    private var durationField: (offset: Int64, timescale: UInt32)?
    private var headerCompleted = false
    private let encoderTimeBases: [TimeBase]
    /// Per stream: the first packet's decode time (encoder time base), whose negation is the start delay.
    private var firstDecodeTimes: [Int64?]

    /// Disk blocks kept allocated past the last complete fragment, so a disk that fills mid-fragment still
    /// leaves room for the index (on filesystems with fallocate).
    static let minimumReserve: Int64 = 256 * 1024

    /// Call after the muxer has written its header with `muxerOptions`. `tracks`: its streams, in order.
    init(output: OutputContext, path: String, tracks: [TrackDescription], interval: Double, memoryLimit: Int64) throws {
        self.interval = interval
        self.memoryLimit = memoryLimit
        self.output = output
        leadStream = tracks.firstIndex { $0.isVideo } ?? 0
        leadTimeBase = tracks[leadStream].timeBase
        trackCount = tracks.count
        encoderTimeBases = tracks.map(\.timeBase)
        firstDecodeTimes = Array(repeating: nil, count: tracks.count)
        placedSamples = Array(repeating: 0, count: tracks.count)
        placedEnd = Array(repeating: 0, count: tracks.count)
        nextCut = interval
        output.flush()
        do {
            file = try FileDescriptor.opening("open") { open(path, O_RDWR | O_CLOEXEC) }
        } catch {
            throw ReelError.runtime("cannot reopen \(path) to index its fragments: \(String(cString: strerror(error.code)))")
        }
        scanner = MovieFragmentScanner(FileBytes(descriptor: file.raw))
        completeEnd = output.bytesWritten
        // A throw from here on closes `file` with the half-made object (its deinit does not run).
        guard let moov = try scanner.topLevelBoxes(from: 0, to: completeEnd).first(where: { $0.type == "moov" }) else {
            throw ReelError.runtime("the muxer wrote no moov at the start of \(path)")
        }
        fragmentedMoov = moov
        template = try MovieBoxTemplate(scanner.bytes(of: moov))
        index = try MovieIndexBuilder(template: template, tracks: tracks)
        reserveSpace(estimatorBound: 0)
        // The header and the file's name go to the disk now: a power cut from here on leaves a movie (one with
        // no fragments yet plays nothing but opens), never a lost folder entry or a file a fragment holds
        // but no name reaches.
        fdatasync(descriptor)
        FileSystem.syncFolder(containing: output.path)
    }

    /// Fragments are pushed to the disk (fdatasync) off the encoding thread, so a slow disk cannot stall
    /// a live recording; a power cut then loses at most the fragments still being synced.
    private let syncQueue = DispatchQueue(label: "reel.fragment-sync")
    /// The first failure of a background sync (errno). Linux reports a lost write-back once per open file,
    /// so a later sync on the same descriptor would pass: it is kept here for `finish` to report.
    private let backgroundSyncFailure = Locked<Int32>(0)

    deinit {
        syncQueue.sync {}
    }

    /// Whether a fragment ends before this packet: a keyframe of the lead (video) stream at or past the
    /// next cut (the encoder forces a keyframe at every multiple of the interval, so one always comes), or
    /// any packet that would take the fragment held in memory past `memoryLimit`.
    func cutsBefore(stream: Int, pts: Int64, size: Int, isKeyframe: Bool) -> Bool {
        if pendingSamples > 0 && pendingPayload + Int64(size) > memoryLimit { return true }
        guard stream == leadStream else { return false }
        if leadOrigin == nil { leadOrigin = pts }
        guard isKeyframe, pendingSamples > 0 else { return false }
        let seconds = Double(pts - leadOrigin!) * leadTimeBase.secondsPerTick
        guard seconds >= nextCut - 1e-6 else { return false }
        nextCut = ((seconds + 1e-6) / interval).rounded(.down) * interval + interval
        return true
    }

    /// Notes a packet just handed to the muxer (times in its encoder's time base).
    func noteWritten(track: Int, _ sample: Sample) {
        if firstDecodeTimes[track] == nil { firstDecodeTimes[track] = sample.decodeTime }
        index.notePending(track: track, sample)
        pendingPayload += Int64(sample.size)
        pendingSamples += 1
    }

    /// Bytes the fragment being collected will add to the file once written and indexed, with `adding`
    /// more payload bytes in one more sample: its moof and mdat header, the payload, and what its samples
    /// add to the final moov (at most an entry in each table, an sdtp byte and the sdtp box should its first
    /// disposable sample be among them, and a chunk per track per MiB).
    func pendingBound(adding size: Int, samples added: Int = 1) -> Int64 {
        let samples = Int64(pendingSamples + added)
        let payload = pendingPayload + Int64(size)
        let moof: Int64 = 24 + Int64(trackCount) * 88 + 16 * samples
        let mdatHeader: Int64 = 16
        let chunks = Int64(trackCount) * (1 + payload >> 20)
        return moof + mdatHeader + payload + 25 * samples + 12 + 20 * chunks
    }

    /// Ends the fragment: writes it, then finds its samples on disk and indexes them.
    func cut(into estimator: inout TrailerSizeEstimator) throws {
        if !headerCompleted { completeHeader() }
        try output.writeFragmentBoundary()
        let hidden = try indexFragments(upTo: output.bytesWritten, into: &estimator)
        // A fragment becomes visible only once it is on disk: a disk does not write a sync's pages atomically,
        // and a torn moof makes FFmpeg refuse the whole file (a moof whose mdat is torn decodes with errors).
        // It is written as a `free` box, synced, then its type set back to `moof` (4 bytes, one sector) and
        // synced again. A power cut at any point leaves the fragments before it playable.
        MovieFragmenter.setType("free", of: hidden, in: descriptor)
        // The total duration (mehd) counts the fragment from when it is shown.
        let duration = totalDuration()
        let file = self.file
        let failure = backgroundSyncFailure
        syncQueue.async {
            let descriptor = file.raw
            guard fdatasync(descriptor) == 0 else {
                let code = errno
                failure.withLock { if $0 == 0 { $0 = code } }
                return
            }
            MovieFragmenter.setType("moof", of: hidden, in: descriptor)
            duration?.write(to: descriptor)
            if fdatasync(descriptor) != 0 {
                let code = errno
                failure.withLock { if $0 == 0 { $0 = code } }
            }
        }
    }

    /// Rewrites the box type of fragments' moof boxes (`free` hides one from readers, `moof` shows it).
    private static func setType(_ type: String, of fragments: [Int64], in descriptor: Int32) {
        let bytes = Array(type.utf8)
        for offset in fragments {
            _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, 4, off_t(offset + 4)) }
        }
    }

    /// The fragments' total duration for mehd (8 bytes, in the first sector), written when a fragment is shown
    /// and synced with it: after a kill it is exact, after a power cut at most a fragment off.
    private func totalDuration() -> FieldWrite? {
        guard let field = durationField else { return nil }
        // The longest track as it is presented (after its edit list): what a finalized movie would last.
        let seconds = placedEnd.indices.map { Double(placedEnd[$0]) * encoderTimeBases[$0].secondsPerTick }.max() ?? 0
        var bytes: [UInt8] = []
        BigEndian.append(UInt64(max(0, (seconds * Double(field.timescale)).rounded(.up))), to: &bytes)
        return FieldWrite(offset: field.offset, bytes: bytes)
    }

    /// Bytes to write in place at an offset (the mehd total).
    struct FieldWrite: Sendable {
        let offset: Int64
        let bytes: [UInt8]

        /// Best effort: a stale total misreports the length to some readers, it does not hide any media.
        func write(to descriptor: Int32) {
            _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, bytes.count, off_t(offset)) }
        }
    }

    /// Before the first fragment: rewrites the muxer's moov and the reserve after it as the completed header
    /// (FragmentedHeader) and what is left of the reserve. Best effort: a header that cannot be completed
    /// stays as the muxer wrote it (a valid fragmented movie, without edit lists).
    private func completeHeader() {
        headerCompleted = true
        let moovBytes = template.bytes
        var delays: [UInt32: Int64] = [:]
        for (track, first) in firstDecodeTimes.enumerated() {
            guard let first, first < 0 else { continue }
            // FFmpeg numbers tracks from 1 in stream order.
            delays[UInt32(track + 1)] = encoderTimeBases[track].convert(-first, to: index.trackTimeBases[track])
        }
        guard let completed = try? FragmentedHeader.completing(moovBytes, startDelays: delays) else { return }
        let space = Int(fragmentedMoov.size) + MovieFragmenter.headerReserve.count
        guard completed.moov.count + 8 <= space else { return }
        var region = completed.moov
        BoxWriter.box("free", into: &region) { $0 += [UInt8](repeating: 0, count: space - completed.moov.count - 8) }
        let written = region.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, region.count, off_t(fragmentedMoov.offset)) }
        guard written == region.count else {
            // A partial write would leave a torn moov: put back what the muxer wrote (and the reserve).
            let original = moovBytes + MovieFragmenter.headerReserve
            _ = original.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, original.count, off_t(fragmentedMoov.offset)) }
            return
        }
        durationField = (fragmentedMoov.offset + Int64(completed.durationOffset), completed.timescale)
    }

    /// Finishes the file. With a working muxer the last fragment is written first; after a write failure
    /// (the disk filled) the torn fragment is cut off. Then the complete index is appended and the
    /// fragment headers are retired in one write. Returns the bytes written at finalization. When the index cannot be
    /// written, the file is left as a valid fragmented movie and the error says so.
    func finish(muxerUsable: Bool, into estimator: inout TrailerSizeEstimator) throws -> Int64 {
        let before = completeEnd
        syncQueue.sync {}
        let lostWrite = backgroundSyncFailure.withLock { $0 }
        if lostWrite != 0 {
            // Fragments already written may not be on disk as they should: do not seal the file as complete.
            output.abandon()
            throw ReelError.runtime("cannot sync \(output.path): \(String(cString: strerror(lostWrite)))")
        }
        // The last fragment stays hidden until the switch (see `cut`): it reaches the disk with the index.
        var hidden: [Int64] = []
        if muxerUsable {
            try output.finish()
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw posixError("stat") }
            hidden = try indexFragments(upTo: Int64(info.st_size), into: &estimator)
            MovieFragmenter.setType("free", of: hidden, in: descriptor)
        } else {
            output.abandon()
        }
        // A failure below leaves the fragmented movie with every fragment shown.
        var shown = false
        defer {
            if !shown {
                MovieFragmenter.setType("moof", of: hidden, in: descriptor)
                totalDuration()?.write(to: descriptor)
            }
        }
        // Anything past the last complete fragment is a torn write.
        guard ftruncate(descriptor, off_t(completeEnd)) == 0 else { throw posixError("truncate") }
        let moov = index.finishIndex()
        let written = moov.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, moov.count, off_t(completeEnd)) }
        guard written == moov.count else {
            let error = posixError("write the movie index to")
            ftruncate(descriptor, off_t(completeEnd))
            throw error
        }
        guard fdatasync(descriptor) == 0 else {
            // The index may not be on disk: take it back off, leaving the valid fragmented movie.
            let error = posixError("sync")
            ftruncate(descriptor, off_t(completeEnd))
            throw error
        }
        // The switch to a regular movie: everything before the new moov becomes one mdat box, and the last
        // fragment is shown. Each write is within a sector, and either alone leaves a valid movie (a regular
        // one, or the fragmented one with its last fragment), so the sync after them may take any subset.
        MovieFragmenter.setType("moof", of: hidden, in: descriptor)
        totalDuration()?.write(to: descriptor)
        shown = true
        let switchBytes = try retireFragments(upTo: completeEnd)
        // Past the switch the file is a regular movie; a failed sync only means the switch may not be on
        // disk yet, and the file is then the (valid) fragmented movie with an unused index at its end.
        _ = fdatasync(descriptor)
        return completeEnd - before + Int64(moov.count) + Int64(switchBytes)
    }

    var fragmentCount: Int { fragmentOffsets.count }

    /// The file's size through its descriptor: found wherever the file now is (its folder may have been
    /// renamed while recording).
    var fileSize: Int64? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Indexes the fragments written since the last call; returns their moof offsets.
    @discardableResult
    private func indexFragments(upTo end: Int64, into estimator: inout TrailerSizeEstimator) throws -> [Int64] {
        let boxes = try scanner.topLevelBoxes(from: completeEnd, to: end)
        let fragments = try scanner.fragments(in: boxes)
        try index.place(fragments) { placement, noted in
            placedSamples[placement.track] += 1
            placedEnd[placement.track] = max(placedEnd[placement.track], noted.presentationTime + noted.duration)
            estimator.record(placement)
        }
        fragmentOffsets += fragments.map(\.moofOffset)
        if let last = boxes.last { completeEnd = last.offset + last.size }
        guard index.unplacedSamples == 0 else {
            throw MovieIndexBuilder.IndexError.mismatch("\(index.unplacedSamples) samples written but not found in the file")
        }
        pendingPayload = 0
        pendingSamples = 0
        reserveSpace(estimatorBound: estimator.bound)
        return fragments.map(\.moofOffset)
    }

    private func reserveSpace(estimatorBound: Int) {
        let reserve = max(MovieFragmenter.minimumReserve, 2 * Int64(estimatorBound))
        // Best effort: filesystems without fallocate (EOPNOTSUPP) get no reserve, and a disk too full for it
        // (ENOSPC) fails the next fragment's write instead, which the disk-full path handles.
        _ = reel_reserve_file_space(descriptor, completeEnd, reserve)
    }

    /// Rewrites the fragmented moov's header as an `mdat` box reaching to `end` (where the complete moov
    /// starts): the old moov, every moof and the fragments' mdats become the payload of one top-level mdat,
    /// which the complete moov's chunk offsets point into. Readers that need a top-level mdat (MPlayer's
    /// QuickTime demuxer, exiftool's writer, libquicktime) then read the file like any regular movie.
    /// Returns the bytes written.
    private func retireFragments(upTo end: Int64) throws -> Int {
        let header = BoxHeader(type: "mdat", size: end - fragmentedMoovOffset).encoded()
        guard header.withUnsafeBytes({ pwrite(descriptor, $0.baseAddress, header.count, off_t(fragmentedMoovOffset)) }) == header.count else {
            throw posixError("rewrite the movie header in")
        }
        return header.count
    }

    private func posixError(_ action: String) -> ReelError {
        ReelError.runtime("cannot \(action) \(output.path): \(String(cString: strerror(errno)))")
    }
}
