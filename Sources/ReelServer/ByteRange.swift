/// An HTTP `Range: bytes=...` request over a file of known size (RFC 9110): one range, which is what
/// browsers' media elements send; several ranges are answered with the whole file.
struct ByteRange: Equatable, Sendable {
    let start: Int64
    /// Inclusive.
    let end: Int64

    var length: Int64 { end - start + 1 }

    enum Parsed: Equatable, Sendable {
        /// No range, or one that is ignored (several, another unit): the whole file, 200.
        case whole
        case range(ByteRange)
        /// 416: the range lies beyond the file.
        case unsatisfiable
    }

    static func parse(_ header: String?, size: Int64) -> Parsed {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let spec = String(header.dropFirst(6).filter { $0 != " " })
        guard let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            // The last N bytes.
            guard let suffix = Int64(last), suffix > 0 else { return .whole }
            guard size > 0 else { return .unsatisfiable }
            return .range(ByteRange(start: max(0, size - suffix), end: size - 1))
        }
        guard let start = Int64(first), start >= 0 else { return .whole }
        guard start < size else { return .unsatisfiable }
        if last.isEmpty { return .range(ByteRange(start: start, end: size - 1)) }
        guard let end = Int64(last), end >= start else { return .whole }
        return .range(ByteRange(start: start, end: min(end, size - 1)))
    }
}
