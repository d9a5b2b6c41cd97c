import FoundationEssentials

/// The file names of a segmented recording, from the output path as given: `{index}` becomes 001, 002 ...
/// (more digits past 999), `{date}` and `{time}` the local date (2026-11-30) and time (14-05-09) the segment
/// starts. Without `{index}`, `-001`, `-002` ... go before the extension. Pure, unit-tested.
struct SegmentNaming: Sendable, Equatable {
    static let indexField = "{index}"
    static let dateField = "{date}"
    static let timeField = "{time}"

    let template: String

    init(template: String) {
        if template.contains(SegmentNaming.indexField) {
            self.template = template
        } else {
            // Before the extension of the file name (not a dot in a folder's name).
            let slash = template.lastIndex(of: "/").map { template.index(after: $0) } ?? template.startIndex
            let name = template[slash...]
            if let dot = name.lastIndex(of: "."), dot != name.startIndex {
                self.template = String(template[..<dot]) + "-" + SegmentNaming.indexField + String(template[dot...])
            } else {
                self.template = template + "-" + SegmentNaming.indexField
            }
        }
    }

    /// Whether a path names fields only a segmented recording fills in.
    static func hasFields(_ path: String) -> Bool {
        // Most paths have no brace at all (a batch checks 10,000): only then is each field looked for.
        guard path.utf8.contains(UInt8(ascii: "{")) else { return false }
        return [indexField, dateField, timeField].contains { path.contains($0) }
    }

    /// The name of segment `index` (1-based) starting at `date`.
    func path(index: Int, date: Date) -> String {
        path(index: index, localDate: LocalTime.format("%Y-%m-%d", date), localTime: LocalTime.format("%H-%M-%S", date))
    }

    func path(index: Int, localDate: String, localTime: String) -> String {
        let number = String(index)
        let padded = String(repeating: "0", count: max(0, 3 - number.count)) + number
        return template.replacing(SegmentNaming.indexField, with: padded)
            .replacing(SegmentNaming.dateField, with: localDate)
            .replacing(SegmentNaming.timeField, with: localTime)
    }

    /// `path` when `isFree` says so, else the first of "NAME (2).mov", "NAME (3).mov" ... that is.
    static func freeName(for path: String, isFree: (String) -> Bool) -> String {
        guard !isFree(path) else { return path }
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let dot = path[slash...].lastIndex(of: ".").flatMap { $0 == slash ? nil : $0 } ?? path.endIndex
        var number = 2
        while true {
            let candidate = String(path[..<dot]) + " (\(number))" + String(path[dot...])
            if isFree(candidate) { return candidate }
            number += 1
        }
    }
}
