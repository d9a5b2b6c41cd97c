/// How error lines quote what a user gave: a path or a value of any length is shown in full up to a few
/// hundred bytes, longer ones by their start and end, so an error stays one readable line (a 10 MB name
/// gave a 10 MB error line).
package enum ErrorText {
    package static let longestQuote = 240

    package static func path(_ text: String) -> String {
        guard text.utf8.count > longestQuote else { return text }
        let characters = Array(text)
        guard characters.count > longestQuote else { return text }
        return String(characters.prefix(160)) + "…(\(text.utf8.count) bytes)…" + String(characters.suffix(60))
    }
}
