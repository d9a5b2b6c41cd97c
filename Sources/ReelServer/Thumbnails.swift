import Reel
import SystemSupport

/// The recordings' thumbnails for the page's gallery: a JPEG 320 pixels wide of a photo, or of a movie's first
/// picture, upright (FrameGrabber), kept in the folder's hidden `.thumbnails/NAME.jpg`. Each is made when its
/// recording is finished (`prepare`, on a thread of its own, so the answer that finished it does not wait)
/// or, for a recording made before (another program's, an older server's), when it is first asked for.
final class Thumbnails: Sendable {
    static let width = 320
    static let quality = 80

    let folder: RecordingsFolder
    private let work = WorkPool(name: "reel.serve.thumbs", threads: 1, queueLimit: 64)

    init(folder: RecordingsFolder) {
        self.folder = folder
    }

    /// Makes `name`'s thumbnail soon (a full queue leaves it to the first request).
    func prepare(_ name: String) {
        _ = work.submit { [self] in _ = make(name) }
    }

    /// The thumbnail of `name`: made now if it is not yet (an unreadable recording has none: 404).
    @available(*, noasync)
    func response(for name: String) -> HTTPResponse {
        guard RecordingsFolder.isValidName(name) else { return .error(400, "'\(name)' is not a recording's name") }
        if (try? folder.openThumbnail(name)) == nil, !make(name) { return .error(404, "no thumbnail of '\(name)'") }
        guard let opened = try? folder.openThumbnail(name) else { return .error(404, "no thumbnail of '\(name)'") }
        return HTTPResponse(status: 200, headers: [("Content-Type", "image/jpeg")],
                            body: .file(opened.descriptor, offset: 0, length: opened.size))
    }

    /// Writes the thumbnail; false when the recording cannot be read (still being written, damaged, gone).
    private func make(_ name: String) -> Bool {
        guard (try? folder.open(name)) != nil, (try? folder.openThumbnails(creating: true)) != nil else { return false }
        let request = StillRequest(path: "\(folder.path)/\(RecordingsFolder.thumbnailFolder)/\(name).jpg", quality: Thumbnails.quality,
                                   overwrite: true, width: Thumbnails.width)
        do {
            try FrameGrabber.grab(inputPath: "\(folder.path)/\(name)", at: 0, to: request)
            return true
        } catch {
            return false
        }
    }

    /// Makes what is queued and ends the thread (the server is stopping).
    func close() { work.close() }
}
