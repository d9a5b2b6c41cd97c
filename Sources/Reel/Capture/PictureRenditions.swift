import FFmpegCore
import Synchronization
import SystemSupport

/// One size (and colour) that captured pictures are scaled to: outputs of the same size share it, so a
/// picture is scaled once per size however many outputs take it.
struct PictureRendition: Sendable, Equatable {
    let width: Int
    let height: Int
    /// How the source's colour reaches this size (the standard an untagged or RGB source gets depends on
    /// the size, see ColourPlan).
    let colour: ColourPlan
}

/// The renditions a session's video reader scales each picture to, in the order they were asked for (an
/// output keeps its rendition's index for good). Outputs added while the session runs may add one; the
/// reader picks it up at its next picture.
final class PictureRenditions: Sendable {
    private let renditions = Locked<[PictureRendition]>([])
    /// How many there are, read by the reader for every picture without taking the lock.
    private let counted = Atomic<Int>(0)

    /// The index of the rendition at this size, added if no output asked for it before.
    func index(width: Int, height: Int, colour: ColourPlan) -> Int {
        renditions.withLock { list in
            if let existing = list.firstIndex(where: { $0.width == width && $0.height == height }) { return existing }
            list.append(PictureRendition(width: width, height: height, colour: colour))
            counted.store(list.count, ordering: .releasing)
            return list.count - 1
        }
    }

    var all: [PictureRendition] { renditions.withLock { $0 } }
    var count: Int { counted.load(ordering: .acquiring) }
}
