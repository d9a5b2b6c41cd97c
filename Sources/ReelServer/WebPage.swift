/// The page `reel serve` serves at `/`, embedded from web/ at build time (see the EmbedPage plugin): the
/// live preview, the shutter (tap = photo, hold = movie), pickers, limits, the recordings.
enum WebPage {
    struct File: Sendable {
        let bytes: [UInt8]
        let contentType: String
    }

    /// Scripts and styles from this server only; pictures and movies from it too (the preview, recordings).
    static let contentSecurityPolicy = "default-src 'self'; img-src 'self' blob:; media-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'"

    private static let files: [String: File] = {
        var files: [String: File] = [:]
        for (name, text) in embeddedPageFiles {
            let type: String
            switch name.split(separator: ".").last {
            case "html": type = "text/html; charset=utf-8"
            case "js": type = "text/javascript; charset=utf-8"
            case "css": type = "text/css; charset=utf-8"
            default: type = "image/svg+xml"
            }
            files["/" + name] = File(bytes: Array(text.utf8), contentType: type)
        }
        files["/"] = files["/index.html"]
        return files
    }()

    static func file(at path: String) -> File? { files[path] }
}
