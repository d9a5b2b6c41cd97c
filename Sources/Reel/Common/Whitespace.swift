extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and line breaks (Foundation's
    /// trimmingCharacters(in: .whitespacesAndNewlines), which FoundationEssentials leaves out).
    public var trimmingWhitespace: String {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return String(self[start..<Swift.max(start, end)])
    }
}
