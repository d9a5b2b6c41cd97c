import Foundation
import Glibc
@testable import ReelServer
import ReelTestSupport
import Testing

/// Issue 27: the gallery's thumbnails. A recording another program put in the folder gets its thumbnail when
/// first asked for (320 wide, upright), deleting the recording deletes it, and the hidden folder they live in
/// cannot be turned into a way out of the recordings folder.
@Suite(.serialized) struct ThumbnailTests {
    @Test func thumbnailsAreMadeServedAndConfined() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let recordings = "\(folder)/recordings"
        try FileManager.default.createDirectory(atPath: recordings, withIntermediateDirectories: true)
        // A movie made elsewhere (1280x720, 2 s) and a photo.
        #expect(try Processes.shell("ffmpeg -v error -f lavfi -i testsrc2=size=1280x720:rate=30 -t 2 -c:v libx264 '\(recordings)/movie-1.mov'").status == 0)
        #expect(try Processes.shell("ffmpeg -v error -f lavfi -i testsrc2=size=640x480 -frames:v 1 '\(recordings)/photo-1.jpg'").status == 0)
        let server = try CameraServer(.init(listen: "127.0.0.1:0", recordings: recordings, video: nil, audio: nil, startsCamera: false))
        let started = try server.start()
        defer { server.stop() }
        let client = HTTPTestClient(port: started.port)
        let listing = try #require(try client.request("GET", "/api/recordings").json as? [[String: Any]])
        #expect(Set(listing.compactMap { $0["thumbnail"] as? String }) == ["/thumbnails/movie-1.mov", "/thumbnails/photo-1.jpg"])
        for name in ["movie-1.mov", "photo-1.jpg"] {
            let thumbnail = try client.request("GET", "/thumbnails/\(name)")
            #expect(thumbnail.status == 200 && thumbnail.headers["content-type"] == "image/jpeg", "\(name): \(thumbnail.status)")
            try Data(thumbnail.body).write(to: URL(fileURLWithPath: "\(folder)/thumb.jpg"))
            let size = try Processes.shell("ffprobe -v error -show_entries stream=width,height -of csv=p=0 '\(folder)/thumb.jpg'").standardOutput
            #expect(size.trimmingCharacters(in: .whitespacesAndNewlines) == (name.hasSuffix(".mov") ? "320,180" : "320,240"), "\(name): \(size)")
        }
        #expect(try client.request("GET", "/thumbnails/..%2Fphoto-1.jpg").status == 400)
        #expect(try client.request("GET", "/thumbnails/missing.jpg").status == 404)
        #expect(try client.request("DELETE", "/api/recordings/photo-1.jpg").status == 200)
        #expect(!FileManager.default.fileExists(atPath: "\(recordings)/.thumbnails/photo-1.jpg.jpg"), "deleted with its recording")

        // .thumbnails replaced by a link to elsewhere: not followed (nothing served from there, nothing made there).
        let elsewhere = "\(folder)/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try "secret".write(toFile: "\(elsewhere)/movie-1.mov.jpg", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: "\(recordings)/.thumbnails")
        #expect(symlink(elsewhere, "\(recordings)/.thumbnails") == 0)
        let linked = try client.request("GET", "/thumbnails/movie-1.mov")
        #expect(linked.status == 404 && !linked.text.contains("secret"), "\(linked.status) \(linked.text)")
    }
}
