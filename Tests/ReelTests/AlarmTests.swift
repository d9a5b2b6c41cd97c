import Foundation
@testable import Reel
import ReelTestSupport
import SystemSupport
import Testing

/// Issue 27: alarms from sources that go silent, clip, freeze and go black at known times (lavfi, paced like
/// devices): each alarm starts at its condition's start and ends at its end, within 0.2 s; the events come in
/// order; the result lists them. The rules' timing is unit-tested in AlarmMonitorTests.
@Suite(.serialized) struct AlarmTests {
    /// Gray with noise (a camera's picture changes everywhere), still 1–2.5 s, black 3–3.8 s.
    static let video = "lavfi:color=gray:size=64x64:rate=30,noise=alls=30:allf=t:enable='not(between(t,1,2.5))',"
        + "drawbox=x=0:y=0:w=iw:h=ih:color=black:t=fill:enable='between(t,3,3.8)'"
    /// A 440 Hz tone at 0.1, silent 1–2.5 s, driven past full scale 3.5–3.8 s.
    static let audio = "lavfi:aevalsrc=if(between(t\\,1\\,2.5)\\,0\\,if(between(t\\,3.5\\,3.8)\\,1.2\\,0.1)*sin(2*PI*440*t)):s=48000"

    @Test func alarmsStartAndEndWhenTheirConditionsDo() async throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = try FastRecording.configuration("\(folder)/alarms.mov", limits: RecordingLimits(maxDuration: 5),
                                                            video: try DeviceSpec(parsing: AlarmTests.video),
                                                            audio: try DeviceSpec(parsing: AlarmTests.audio))
        (configuration.preset.video.width, configuration.preset.video.height) = (64, 64)
        configuration.alarms = [AlarmRule(kind: .silence, seconds: 1), AlarmRule(kind: .clipping),
                                AlarmRule(kind: .frozen, seconds: 1), AlarmRule(kind: .black, seconds: 0.5)]
        let events = Locked<[String]>([])
        let result = try await CaptureSession().record(configuration) { event in
            switch event {
            case .alarmStarted(let alarm): events.withLock { $0.append("+\(alarm.kind.rawValue)") }
            case .alarmEnded(let alarm): events.withLock { $0.append("-\(alarm.kind.rawValue)") }
            default: break
            }
        }
        #expect(result.recordedSuccessfully, "\(result.error ?? "")")
        let alarms = try #require(result.alarms)
        func one(_ kind: AlarmKind) -> Alarm? { alarms.first { $0.kind == kind } }
        let expected: [(AlarmKind, Double, Double)] = [(.silence, 1, 2.5), (.frozen, 1, 2.5), (.black, 3, 3.8), (.clipping, 3.5, 3.8)]
        for (kind, start, end) in expected {
            let alarm = one(kind)
            #expect(alarm != nil, "a \(kind) alarm: \(alarms)")
            guard let alarm else { continue }
            #expect(abs(alarm.start - start) <= 0.2 && abs((alarm.end ?? 99) - end) <= 0.2,
                    "\(kind): \(alarm.start)–\(alarm.end ?? -1), expected \(start)–\(end)")
        }
        #expect(alarms.count == 4, "one of each: \(alarms)")
        #expect((one(.clipping)?.clippedSamples ?? 0) > 1000, "clipped samples counted: \(String(describing: one(.clipping)))")
        let seen = events.withLock { $0 }
        #expect(Set(seen) == Set(["+silence", "+frozen", "-silence", "-frozen", "+clipping", "+black", "-black", "-clipping"]) && seen.count == 8,
                "each alarm started and ended once: \(seen)")
        for kind in AlarmKind.allCases {
            let started = seen.firstIndex(of: "+\(kind.rawValue)"), ended = seen.firstIndex(of: "-\(kind.rawValue)")
            #expect(started != nil && ended != nil && started! < ended!, "\(kind) starts before it ends: \(seen)")
        }
    }

    @Test func rulesAreParsedOrRefused() throws {
        #expect(try AlarmRule(parsing: "silence") == AlarmRule(kind: .silence, threshold: -60, seconds: 10))
        #expect(try AlarmRule(parsing: "silence:-50:5") == AlarmRule(kind: .silence, threshold: -50, seconds: 5))
        #expect(try AlarmRule(parsing: "black:0.05") == AlarmRule(kind: .black, threshold: 0.05, seconds: 2))
        #expect(try AlarmRule(parsing: "clipping:2") == AlarmRule(kind: .clipping, seconds: 2))
        for bad in ["loud", "silence:x", "silence:5", "black:2", "frozen:0.1:0", "clipping:1:2", "silence:-50:5:1", "silence:0x10"] {
            #expect(throws: ReelError.self, "\(bad)") { _ = try AlarmRule(parsing: bad) }
        }
    }
}
