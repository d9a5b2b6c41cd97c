import Foundation
@testable import Reel
import ReelTestSupport
import SystemSupport
import Testing

/// Issue 15, the library side of segments: a session configured with a Segmentation reports each segment as
/// it starts and finishes, in order, before `.finished`, whose result lists them (2.5 s at 15 fps: 37 frames).
@Suite struct SegmentEventTests {
    @Test func eachSegmentIsAnnouncedAndReported() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = RecordingConfiguration(
            outputPath: "\(folder)/events-{time}.mov", video: try DeviceSpec(parsing: "lavfi:testsrc2=size=160x120?realtime=0"),
            audio: try DeviceSpec(parsing: "lavfi:sine?realtime=0"), preset: try PresetLibrary.preset(named: "low"),
            limits: RecordingLimits(maxDuration: 2.5))
        configuration.segmentation = Segmentation(duration: 1)
        let log = Locked<[String]>([])
        let result = try await CaptureSession().record(configuration) { event in
            switch event {
            case .segmentStarted(let output, let index): log.withLock { $0.append("started \(index) \(URL(fileURLWithPath: output).lastPathComponent)") }
            case .segmentFinished(let segment): log.withLock { $0.append("finished \(segment.index) \(segment.videoFrames)") }
            case .finished: log.withLock { $0.append("end") }
            default: break
            }
        }
        let events = log.withLock { $0 }
        #expect(events.filter { $0.hasPrefix("finished") || $0 == "end" } == ["finished 1 15", "finished 2 15", "finished 3 7", "end"])
        let started = events.filter { $0.hasPrefix("started") }
        #expect(started.count == 3)
        // {time} is the local time each segment starts; the index goes before the extension.
        #expect(started.allSatisfy { $0.range(of: #"started \d events-\d\d-\d\d-\d\d-00\d\.mov"#, options: .regularExpression) != nil }, "\(started)")
        #expect(events.firstIndex(of: "started 2" + started[1].dropFirst("started 2".count)) ?? 99 < events.firstIndex(of: "finished 2 15") ?? 0)
        #expect(result.segments?.map(\.videoFrames) == [15, 15, 7] && result.videoFrames == 37)
        #expect(result.segments?.map(\.start) == [0, 1, 2])
    }
}
