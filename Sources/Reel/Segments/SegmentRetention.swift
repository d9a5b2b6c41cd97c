import FoundationEssentials
import Glibc

/// Loop recording: the finished segments this recording wrote, oldest first, and their deletion when more
/// than `keep` are finished or when free space runs short. It knows only the files it was given, so it never
/// deletes one this recording did not write, nor the segment being written (it is not finished).
struct SegmentRetention {
    let keep: Int?
    /// Indexes (into the movie's segment results) and paths of the finished segments still on disk.
    private(set) var kept: [(result: Int, path: String)] = []

    init(keep: Int?) { self.keep = keep }

    /// A segment is finished: returns the result indexes of the segments deleted to stay within `keep`.
    mutating func finished(result: Int, path: String) -> [Int] {
        kept.append((result, path))
        var deleted: [Int] = []
        while let keep, kept.count > keep, let oldest = deleteOldest() { deleted.append(oldest) }
        return deleted
    }

    /// Deletes the oldest finished segment; returns its result index, or nil when none is left.
    mutating func deleteOldest() -> Int? {
        guard !kept.isEmpty else { return nil }
        let oldest = kept.removeFirst()
        unlink(oldest.path)
        return oldest.result
    }

    var isEmpty: Bool { kept.isEmpty }
}
