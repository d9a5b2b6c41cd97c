import FFmpegCore
@testable import Reel
import SystemSupport
import Testing

/// Pauses as stretches of the session's clock, and without a clock (placed at the movie's next items).
@Suite struct PauseRequestTests {
    @Test func clocklessPausesStartAndEndAtTheNextItems() {
        let pauses = PauseRequests(sessionStart: nil)
        #expect(pauses.interval(at: 0, itemTime: 5, paused: false) == nil)
        pauses.set(true)
        pauses.set(true)  // a second pause while paused does nothing
        #expect(pauses.isPaused)
        #expect(pauses.interval(at: 0, itemTime: 100, paused: false) == .init(start: 100, end: nil))
        pauses.set(false)
        #expect(!pauses.isPaused)
        // The end is the first item the movie takes while paused after the resume.
        #expect(pauses.interval(at: 0, itemTime: 250, paused: true) == .init(start: 100, end: 250))
        #expect(pauses.interval(at: 0, itemTime: 300, paused: false) == .init(start: 100, end: 250))
        // Paused and resumed before the movie took an item: nothing is left out.
        pauses.set(true)
        pauses.set(false)
        #expect(pauses.interval(at: 1, itemTime: 400, paused: false) == .init(start: 400, end: 400))
    }

    @Test func livePausesAreInstantsOfTheSessionClock() {
        let pauses = PauseRequests(sessionStart: MonotonicClock.nanoseconds() - 10_000_000_000)
        pauses.set(true)
        let stretch = pauses.interval(at: 0, itemTime: 0, paused: false)
        // About 10 s on the session's clock, whatever item is taken first.
        #expect(stretch != nil && abs(stretch!.start - 10_000_000) < 1_000_000 && stretch!.end == nil)
        pauses.set(false)
        let closed = pauses.interval(at: 0, itemTime: 0, paused: true)
        #expect(closed != nil && closed!.end! >= closed!.start)
    }
}
