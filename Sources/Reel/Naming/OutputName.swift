import FoundationEssentials
import Glibc

/// One name a command will write under: a single file, or a segmented movie's name pattern standing for
/// every file it may name (`lecture-{index}.mov`: lecture-001.mov, lecture-002.mov ...). Its folder is
/// resolved (symbolic links, `..`), so two spellings of one place compare equal. What it is for is said in
/// `role` ("output", "tier 352x288", "first-frame still"), for error lines.
package struct OutputName: Sendable, CustomStringConvertible {
    /// The resolved path, or the resolved template of a pattern.
    package let path: String
    package let isPattern: Bool
    package let role: String
    /// Written under a hidden temporary name until finalized (CaptureSession.partialPath), which must be free too.
    let writesHidden: Bool
    /// It may replace a file already there (a still's own overwrite flag), whatever the command's is.
    package let replaces: Bool

    /// The longest a segment field makes a name: {date} 10 bytes, {time} 8, {index} 3 up to 999 (and a
    /// recording of more than 999 segments takes a fourth digit the check allows for).
    static let longestIndexDigits = 4

    init(file path: String, role: String, writesHidden: Bool, replaces: Bool = false) {
        self.path = OutputName.resolved(path)
        isPattern = false
        self.role = role
        self.writesHidden = writesHidden
        self.replaces = replaces
    }

    init(segments naming: SegmentNaming, role: String, writesHidden: Bool) {
        path = OutputName.resolved(naming.template)
        isPattern = true
        self.role = role
        self.writesHidden = writesHidden
        replaces = false
    }

    package var description: String { path }

    var pattern: NamePattern { isPattern ? NamePattern(template: path) : NamePattern(literal: path) }

    var folder: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
    var fileName: String { path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path }

    /// The hidden name's pattern (`.NAME.partial` beside it), when it has one.
    var hiddenPattern: NamePattern? {
        guard writesHidden else { return nil }
        let hidden = PartialName.path(for: path)
        return isPattern ? NamePattern(template: hidden) : NamePattern(literal: hidden)
    }

    /// The patterns of every name this output writes: its own, and its hidden one.
    var patterns: [NamePattern] { [pattern] + (hiddenPattern.map { [$0] } ?? []) }

    /// The longest file name (bytes) this output gives a file.
    var longestFileName: Int {
        guard isPattern else { return fileName.utf8.count }
        let name = fileName
        let fields = [(SegmentNaming.indexField, OutputName.longestIndexDigits), (SegmentNaming.dateField, 10),
                      (SegmentNaming.timeField, 8)]
        return fields.reduce(name.utf8.count) { length, field in
            length + name.components(separatedBy: field.0).dropFirst().count * (field.1 - field.0.utf8.count)
        }
    }

    /// The files that already exist under names this output would write (final names only; hidden ones are
    /// the command's own and are replaced). A pattern's {date} and {time} are those of now: yesterday's
    /// recordings are no collision (a later segment's new time is seen when it opens, see MovieRecorder).
    /// A pattern whose folder holds fields names no existing file.
    func existingFiles(at date: Date = Date()) -> [String] {
        guard isPattern else { return access(path, F_OK) == 0 ? [path] : [] }
        guard !SegmentNaming.hasFields(folder), let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            return []
        }
        let pattern = NamePattern(template: path.replacing(SegmentNaming.dateField, with: LocalTime.format("%Y-%m-%d", date))
            .replacing(SegmentNaming.timeField, with: LocalTime.format("%H-%M-%S", date)))
        let base = folder == "/" ? "" : folder
        let filled = path.replacing(SegmentNaming.dateField, with: LocalTime.format("%Y-%m-%d", date))
            .replacing(SegmentNaming.timeField, with: LocalTime.format("%H-%M-%S", date))
        return entries.sorted().map { "\(base)/\($0)" }.filter { pattern.matches($0) && OutputName.isMade($0, by: filled) }
    }

    /// Whether a name the pattern matches is one SegmentNaming makes: with one {index}, its number is 001 to
    /// 999 or from 1000 on without leading zeros (loop-000.mov is none of this recording's). Other patterns
    /// keep the pattern's wider answer.
    static func isMade(_ name: String, by template: String) -> Bool {
        let parts = template.components(separatedBy: SegmentNaming.indexField)
        guard parts.count == 2, name.hasPrefix(parts[0]), name.hasSuffix(parts[1]),
              name.utf8.count >= parts[0].utf8.count + parts[1].utf8.count else { return true }
        let digits = String(name.dropFirst(parts[0].count).dropLast(parts[1].count))
        guard let number = Int(digits), number >= 1 else { return false }
        let plain = String(number)
        return digits == String(repeating: "0", count: max(0, 3 - plain.count)) + plain
    }

    /// Absolute, with no empty, `.` or `..` component and no trailing slash (a byte scan: String's
    /// `contains` of a string is slow for a batch's 10,000 names).
    static func isPlainAbsolute(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/"), bytes.count > 1, bytes.last != UInt8(ascii: "/") else { return false }
        var componentStart = 1
        for index in 1...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
            let component = bytes[componentStart..<index]
            if component.isEmpty || component.elementsEqual([UInt8(ascii: ".")]) || component.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                return false
            }
            componentStart = index + 1
        }
        return true
    }

    /// An input path as the plan compares it: resolved the same way.
    static func resolved(_ path: String) -> String {
        // Most paths are plain already (a batch's 10,000): URL's standardizing only where it changes something.
        let plain = OutputName.isPlainAbsolute(path)
        let standard = plain ? path : URL(fileURLWithPath: path).standardized.path
        guard let slash = standard.lastIndex(of: "/") else { return standard }
        let folder = slash == standard.startIndex ? "/" : String(standard[..<slash])
        let name = String(standard[standard.index(after: slash)...])
        guard !SegmentNaming.hasFields(folder), let real = realpath(folder, nil) else { return standard }
        defer { free(real) }
        let resolvedFolder = String(cString: real)
        return (resolvedFolder == "/" ? "" : resolvedFolder) + "/" + name
    }
}
