import Foundation
import Glibc
@testable import ReelServer
import ReelTestSupport
import Testing

/// The pure parts of `reel serve`: Range headers, the access policy, recording names and confinement.
@Suite struct ServerLogicTests {
    @Test func byteRanges() {
        #expect(ByteRange.parse(nil, size: 100) == .whole)
        #expect(ByteRange.parse("bytes=0-9", size: 100) == .range(ByteRange(start: 0, end: 9)))
        #expect(ByteRange.parse("bytes=90-", size: 100) == .range(ByteRange(start: 90, end: 99)))
        #expect(ByteRange.parse("bytes=-10", size: 100) == .range(ByteRange(start: 90, end: 99)))
        #expect(ByteRange.parse("bytes=-500", size: 100) == .range(ByteRange(start: 0, end: 99)))
        #expect(ByteRange.parse("bytes=50-5000", size: 100) == .range(ByteRange(start: 50, end: 99)))
        #expect(ByteRange.parse("bytes=100-", size: 100) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=0-1,5-6", size: 100) == .whole)
        #expect(ByteRange.parse("bytes=9-1", size: 100) == .whole)
        #expect(ByteRange.parse("items=0-1", size: 100) == .whole)
        #expect(ByteRange.parse("bytes=abc", size: 100) == .whole)
    }

    @Test func accessPolicy() throws {
        let loopback = AccessPolicy(token: nil, address: try ListenAddress(parsing: "127.0.0.1:0"), port: 8080)
        func check(_ policy: AccessPolicy, _ method: String, _ headers: [String: String], cookie: String? = nil) -> AccessPolicy.Verdict {
            policy.check(method: method, header: { headers[$0] }, cookie: { _ in cookie })
        }
        #expect(check(loopback, "GET", ["Host": "127.0.0.1:8080"]) == .allowed)
        #expect(check(loopback, "GET", ["Host": "localhost:8080"]) == .allowed)
        // DNS rebinding: another name that resolves to this machine.
        if case .forbidden = check(loopback, "GET", ["Host": "evil.example:8080"]) {} else { Issue.record("a foreign Host passed") }
        if case .forbidden = check(loopback, "GET", [:]) {} else { Issue.record("no Host passed") }
        // State changes from another page are refused; curl (no Origin) and the page itself pass.
        #expect(check(loopback, "POST", ["Host": "127.0.0.1:8080"]) == .allowed)
        #expect(check(loopback, "POST", ["Host": "127.0.0.1:8080", "Origin": "http://127.0.0.1:8080"]) == .allowed)
        if case .forbidden = check(loopback, "POST", ["Host": "127.0.0.1:8080", "Origin": "http://evil.example"]) {} else { Issue.record("a foreign Origin passed") }
        if case .forbidden = check(loopback, "DELETE", ["Host": "127.0.0.1:8080", "Sec-Fetch-Site": "cross-site"]) {} else { Issue.record("cross-site passed") }
        #expect(check(loopback, "GET", ["Host": "127.0.0.1:8080", "Origin": "http://evil.example"]) == .allowed, "reads are not state changes")

        let token = "0123456789abcdef0123"
        let open = AccessPolicy(token: token, address: try ListenAddress(parsing: "0.0.0.0:0"), port: 9000)
        if case .unauthorized = check(open, "GET", ["Host": "0.0.0.0:9000"]) {} else { Issue.record("no token passed") }
        if case .unauthorized = check(open, "GET", ["Host": "0.0.0.0:9000", "Authorization": "Bearer wrong"]) {} else { Issue.record("a wrong token passed") }
        #expect(check(open, "GET", ["Host": "0.0.0.0:9000", "Authorization": "Bearer \(token)"]) == .allowed)
        #expect(check(open, "GET", ["Host": "0.0.0.0:9000"], cookie: token) == .allowed)
        #expect(AccessPolicy.constantTimeEqual("abc", "abc") && !AccessPolicy.constantTimeEqual("abc", "abd")
                && !AccessPolicy.constantTimeEqual("abc", "abcd") && !AccessPolicy.constantTimeEqual("", "a"))
    }

    @Test func recordingNames() {
        for good in ["photo-20261130-142501-123.jpg", "movie-1.mov", "a_b.c.mov"] { #expect(RecordingsFolder.isValidName(good), "\(good)") }
        for bad in ["../x.mov", "a/b.mov", ".hidden.mov", "x..mov", "x.txt", "x.mov/", "", "%2e%2e.mov", "a b.mov",
                    "x\u{0}.mov", String(repeating: "a", count: 200) + ".mov", "..", "/etc/passwd"] {
            #expect(!RecordingsFolder.isValidName(bad), "\(bad)")
        }
    }

    /// A symbolic link in the folder, even with a valid name, is not followed out of it.
    @Test func folderConfinement() throws {
        let base = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        try Data("secret".utf8).write(to: URL(fileURLWithPath: "\(base)/secret.mov"))
        let folder = try RecordingsFolder(path: "\(base)/recordings")
        symlink("\(base)/secret.mov", "\(base)/recordings/link.mov")
        try Data("movie".utf8).write(to: URL(fileURLWithPath: "\(base)/recordings/real.mov"))
        #expect(folder.list().map(\.name) == ["real.mov"])
        #expect(throws: RecordingsFolder.AccessError.notFound) { _ = try folder.open("link.mov") }
        #expect(throws: RecordingsFolder.AccessError.invalidName) { _ = try folder.open("../secret.mov") }
        #expect(throws: RecordingsFolder.AccessError.notFound) { try folder.delete("link.mov") }
        #expect(FileManager.default.fileExists(atPath: "\(base)/secret.mov"))
        let opened = try folder.open("real.mov")
        var bytes = [UInt8](repeating: 0, count: 8)
        #expect(read(opened.descriptor.raw, &bytes, 8) == 5 && opened.size == 5)
        try folder.delete("real.mov")
        #expect(folder.list().isEmpty)
        #expect(folder.newPath("photo", extension: "jpg").hasPrefix(folder.path + "/photo-"))
    }
}
