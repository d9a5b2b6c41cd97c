import FoundationEssentials
import Glibc

/// Where a file is written until it is complete and renamed into place: a hidden file beside it,
/// `.NAME.partial`. A name too long for that (a legal 250-byte name would need 259) keeps as much of its
/// start as fits, followed by a hash of the whole name (FNV-1a), so every legal output name has a hidden one.
enum PartialName {
    static func path(for outputPath: String) -> String {
        let absolute = outputPath.hasPrefix("/") ? outputPath : URL(fileURLWithPath: outputPath).path
        let slash = absolute.lastIndex(of: "/")!
        let name = String(absolute[absolute.index(after: slash)...])
        let folder = String(absolute[...slash])
        let longest = Int(NAME_MAX)
        guard name.utf8.count + 9 > longest else { return folder + ".\(name).partial" }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let suffix = "~" + String(hash, radix: 16) + ".partial"
        var start = ""
        for character in name {
            guard 1 + start.utf8.count + character.utf8.count + suffix.utf8.count <= longest else { break }
            start.append(character)
        }
        return folder + ".\(start)\(suffix)"
    }
}
