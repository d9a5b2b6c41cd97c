import Glibc

extension String {
    /// C printf formatting of numbers ("%.3f", "%g", "%5.1f"), as Foundation's String(format:) does;
    /// Reel links FoundationEssentials only, which has no String(format:).
    public init(printf format: String, _ arguments: CVarArg...) {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = Int(withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) })
        if length >= buffer.count {
            buffer = [CChar](repeating: 0, count: length + 1)
            length = Int(withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) })
        }
        self = String(decoding: buffer[..<Swift.max(0, length)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
