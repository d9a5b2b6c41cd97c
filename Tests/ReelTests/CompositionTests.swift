import Foundation
import Glibc
@testable import Reel
import ReelTestSupport
import Testing

/// Several unpaced video inputs composed into one picture, recorded and decoded back: each input carries its
/// own frame numbers (`TestInputs.numberedPictures`, 64x64), read in the rectangle the layout gave it.
@Suite struct CompositionTests {
    /// A numbered input at `rate` whose numbers start at `offset`, optionally ending after `frames` pictures.
    static func numbered(rate: String, offset: Int = 0, frames: Int? = nil) throws -> DeviceSpec {
        try DeviceSpec(parsing: "lavfi:" + TestInputs.numberedPictures(rate: rate, offset: offset)
                       + (frames.map { ",trim=end_frame=\($0)" } ?? "") + "?realtime=0")
    }

    /// 256x128 at 30 fps: side by side, each input gets a 128x128 square.
    static func configuration(_ output: String, video: [DeviceSpec], layout: VideoLayout?, seconds: Double) throws -> RecordingConfiguration {
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height, preset.video.sizePolicy) = (256, 128, .exact)
        var configuration = RecordingConfiguration(outputPath: output, video: video[0], audio: nil, preset: preset,
                                                   limits: RecordingLimits(maxDuration: seconds))
        configuration.additionalVideo = Array(video.dropFirst())
        configuration.layout = layout
        return configuration
    }

    @Test func eachInputKeepsItsOwnRateInItsRectangle() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/sides.mov"
        let result = try await CaptureSession().record(Self.configuration(
            output, video: [Self.numbered(rate: "30"), Self.numbered(rate: "15", offset: 100)],
            layout: try VideoLayout.builtIn("side-by-side", inputs: 2), seconds: 2))
        #expect(result.recordedSuccessfully && result.videoFrames == 60, "\(result)")
        let pictures = try ComposedPictures(output)
        #expect(pictures.width == 256 && pictures.height == 128 && pictures.frames.count == 60)
        let left = pictures.frames.indices.map { pictures.number($0, x: 0, y: 0, side: 128) }
        let right = pictures.frames.indices.map { pictures.number($0, x: 128, y: 0, side: 128) }
        // The 30 fps input: every picture once; the 15 fps one: every picture twice, none lost.
        #expect(left == Array(0..<60), "\(left)")
        #expect(right == (0..<60).map { 100 + $0 / 2 }, "\(right)")
    }

    /// An input that ends keeps its last picture while the others go on; the composition ends with the last.
    @Test func anEndedInputKeepsItsLastPictureUntilTheLastEnds() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/ended.mov"
        let result = try await CaptureSession().record(Self.configuration(
            output, video: [Self.numbered(rate: "30", frames: 45), Self.numbered(rate: "30", offset: 100, frames: 15)],
            layout: try VideoLayout.builtIn("side-by-side", inputs: 2), seconds: 10))
        #expect(result.stopReason == .inputEnded && result.videoFrames == 45, "\(result)")
        let pictures = try ComposedPictures(output)
        let left = pictures.frames.indices.map { pictures.number($0, x: 0, y: 0, side: 128) }
        let right = pictures.frames.indices.map { pictures.number($0, x: 128, y: 0, side: 128) }
        #expect(left == Array(0..<45), "\(left)")
        #expect(right == (0..<45).map { 100 + min($0, 14) }, "\(right)")
    }

    /// The layout changes between two pictures: each picture is wholly one layout, the change happens once,
    /// and the first input's pictures run on without a hole or a repeat across it.
    /// Synchronous, so that the polling holds its thread: the session runs as fast as it can, and a task
    /// waiting for its turn on a busy cooperative pool would see it finish before it changed anything.
    @Test func aLayoutChangeLandsBetweenTwoPictures() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/switch.mov"
        let session = CaptureSession()
        // Inputs that never end: the session runs until stopped.
        try session.start(Self.configuration(output, video: [Self.numbered(rate: "30"), Self.numbered(rate: "30", offset: 100)],
                                             layout: nil, seconds: 60))
        #expect(session.layout?.name == "pip" && session.videoInputs.count == 2)
        /// Waits (at most a minute) until the session has captured `count` pictures; false if it ended first.
        func waitForPictures(_ count: Int) -> Bool {
            let deadline = Date(timeIntervalSinceNow: 60)
            while Date() < deadline {
                let status = session.status
                if status.state == .finished { return false }
                if (status.capturedPictures ?? 0) >= count { return true }
                usleep(1_000)
            }
            return false
        }
        let reachedTwenty = waitForPictures(20)
        #expect(reachedTwenty, "\(session.status)")
        try session.setLayout(named: "side-by-side")
        #expect(session.status.layout == "side-by-side")
        #expect(throws: ReelError.self) { try session.setLayout(named: "only:3") }
        let switched = session.status.capturedPictures ?? 0
        let reachedMore = waitForPictures(switched + 30)
        #expect(reachedMore, "\(session.status)")
        session.stop()
        let result = session.waitUntilFinished()
        #expect(result.recordedSuccessfully, "\(result)")
        let pictures = try ComposedPictures(output)
        // pip: the first input fits the 256x128 picture as a 128x128 square in the middle, black on both sides;
        // side by side: it fills the left half.
        let sideBySide = pictures.frames.indices.map { pictures.meanLuma($0, x: 0, y: 0, width: 48, height: 128) > 20 }
        let change = try #require(sideBySide.firstIndex(of: true))
        #expect(change > 10 && sideBySide[change...].allSatisfy { $0 } && sideBySide[..<change].allSatisfy { !$0 }, "\(sideBySide)")
        let first = pictures.frames.indices.map { index in
            pictures.number(index, x: sideBySide[index] ? 0 : 64, y: 0, side: 128)
        }
        #expect(first == (0..<pictures.frames.count).map { $0 % 256 }, "\(first)")
        // The second input: a window in the corner, then the right half (its own numbers, not the first's).
        let second = pictures.number(pictures.frames.count - 1, x: 128, y: 0, side: 128)
        #expect(second == (100 + pictures.frames.count - 1) % 256, "\(second)")
    }

    /// A layout file's crop, fill and border land where it says, in its colours.
    @Test func aLayoutFilesCropFillAndBorderAreDrawn() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/file.mov"
        // Input 2: white left half, black right half; its crop keeps the white half, filled into the right half
        // of the picture with a 4-pixel red border.
        let halves = try DeviceSpec(parsing: "lavfi:color=white:size=64x64:rate=30,drawbox=x=32:y=0:w=32:h=64:color=black:t=fill?realtime=0")
        let layoutText = """
            {"inputs": [{"rect": {"x": 0, "y": 0, "width": 0.5, "height": 1}},
                        {"rect": {"x": 0.5, "y": 0, "width": 0.5, "height": 1}, "scaling": "fill",
                         "crop": {"x": 0, "y": 0, "width": 0.5, "height": 1}, "border": {"width": 4, "colour": "red"}}]}
            """
        try layoutText.write(toFile: "\(folder)/halves.json", atomically: true, encoding: .utf8)
        let layout = try VideoLayout.named("\(folder)/halves.json", inputs: 2)
        #expect(layout.name == "halves")
        let result = try await CaptureSession().record(Self.configuration(output, video: [Self.numbered(rate: "30"), halves],
                                                                          layout: layout, seconds: 1))
        #expect(result.videoFrames == 30, "\(result)")
        let pictures = try ComposedPictures(output)
        let last = pictures.frames.count - 1
        // Inside the border: white (the cropped half, scaled to cover 128x128), no black.
        #expect(pictures.meanLuma(last, x: 140, y: 12, width: 104, height: 104) > 225)
        // The border: red's luma under BT.601 (SD picture): 81.
        let border = pictures.meanLuma(last, x: 128, y: 0, width: 128, height: 4)
        #expect(abs(border - 81) < 8, "\(border)")
        #expect(pictures.number(last, x: 0, y: 0, side: 128) == 29)
    }
}
