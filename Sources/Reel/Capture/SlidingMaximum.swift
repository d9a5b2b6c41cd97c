/// The largest value among those added over the last `window` of some position that only grows (samples
/// produced, say), in amortized constant time: a value that a later, larger one outranks is never the
/// answer again, so it is let go as the larger one arrives (a monotonic queue). Devices can deliver blocks of
/// one sample; a scan of the window per block would be 12,000 comparisons per sample.
struct SlidingMaximum {
    let window: Int64
    /// Candidates, positions increasing and values decreasing; `head` is the first one still held.
    private var candidates: [(position: Int64, value: Int64)] = []
    private var head = 0

    init(window: Int64) { self.window = window }

    /// Adds `value` at `position` (not before the last one) and answers the largest value over the window
    /// that ends there, this one included.
    mutating func add(_ value: Int64, at position: Int64) -> Int64 {
        while candidates.count > head, candidates[candidates.count - 1].value <= value { candidates.removeLast() }
        candidates.append((position, value))
        while position - candidates[head].position > window { head += 1 }
        if head > 1024 && head * 2 > candidates.count {
            candidates.removeFirst(head)
            head = 0
        }
        return candidates[head].value
    }

    mutating func removeAll() {
        candidates.removeAll(keepingCapacity: true)
        head = 0
    }
}
