import Foundation
@testable import Reel
import ReelTestSupport
import SystemSupport
import Testing

/// Issue 27: a session meters its sound as captured. A 1 kHz tone of 0.125 full scale on the left and a tone
/// driven past full scale on the right (lavfi's aevalsrc, paced like a microphone): the left reads peak −18.1
/// and RMS −21.1 dBFS (±0.5 dB), the right counts clipped samples, ten updates a second on the session clock,
/// through `audioLevels()`, the session's events and its status.
@Suite(.serialized) struct AudioLevelsTests {
    static let tone = "lavfi:aevalsrc=0.125*sin(2*PI*1000*t)|1.5*sin(2*PI*500*t):s=48000"

    @Test func aToneIsMeteredPerChannel() async throws {
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (64, 64)
        let inputs = CaptureInputs(video: try DeviceSpec(parsing: "lavfi:testsrc2=size=64x64"), audio: try DeviceSpec(parsing: AudioLevelsTests.tone),
                                   preset: preset)
        let session = CaptureSession()
        let fromEvents = Locked<[AudioLevels]>([])
        try session.start(inputs) { event in
            if case .levels(let levels) = event { fromEvents.withLock { $0.append(levels) } }
        }
        var updates: [AudioLevels] = []
        for await levels in session.audioLevels() {
            updates.append(levels)
            if updates.count == 12 { break }
        }
        let status = session.status.levels
        session.stop()
        _ = await session.finished()
        #expect(status != nil, "the status carries the latest levels")
        #expect(session.currentLevels == nil, "none once the session ended")
        for await _ in session.audioLevels() { Issue.record("a stream asked for after the end ends at once") }

        let steps = zip(updates.dropFirst(), updates).map { $0.time - $1.time }
        // 100 ms apart in sound time; a reader slower than that is handed the newest (whole steps skipped).
        #expect(steps.allSatisfy { $0 > 0.05 && abs($0 / 0.1 - ($0 / 0.1).rounded()) < 0.01 }, "\(steps)")
        let settled = Array(updates.dropFirst(2))
        for levels in settled {
            #expect(levels.channels.count == 2)
            let (left, right) = (levels.channels[0], levels.channels[1])
            #expect(abs(left.peak - -18.06) <= 0.5 && abs(left.rms - -21.07) <= 0.5, "left \(left)")
            #expect(left.clippedSamples == 0)
            #expect(right.peak >= -0.1 && right.clippedSamples > 0, "right \(right)")
        }
        let clipped = settled.map { $0.channels[1].clippedSamples }
        #expect(clipped == clipped.sorted() && clipped.last! > clipped.first!, "counted since the start: \(clipped)")
        let events = fromEvents.withLock { $0 }
        #expect(events.count >= updates.count && events.prefix(updates.count).map(\.time).contains(updates[0].time),
                "the same updates reach the event callback")
    }

    @Test func aSessionWithoutSoundHasNoLevels() throws {
        var preset = try PresetLibrary.preset(named: "352x288")
        (preset.video.width, preset.video.height) = (64, 64)
        let session = CaptureSession()
        try session.start(CaptureInputs(video: try DeviceSpec(parsing: "lavfi:testsrc2=size=64x64"), audio: nil, preset: preset))
        Thread.sleep(forTimeInterval: 0.5)
        #expect(session.currentLevels == nil && session.status.levels == nil)
        session.stop()
        _ = session.waitUntilFinished()
    }
}
