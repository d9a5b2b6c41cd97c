import Foundation
@testable import Reel
import ReelTestSupport
import SystemSupport
import Testing

/// The playlist's text, its window, and the checker of Apple's rules on good and broken playlists.
@Suite struct HLSPlaylistTests {
    static func segment(_ number: Int, _ duration: Double, gap: Bool = false) -> HLSPlaylist.Segment {
        HLSPlaylist.Segment(number: number, uri: "segment\(number).m4s", duration: duration,
                            programDateTime: 1_796_182_800_000 + Int64(number) * 6000, followsGap: gap)
    }

    @Test func textOfAnEvent() {
        var playlist = HLSPlaylist(mapURI: "init.mp4", targetDuration: 6, window: nil)
        playlist.append(HLSPlaylistTests.segment(0, 6))
        playlist.append(HLSPlaylistTests.segment(1, 6.006006))
        playlist.ended = true
        #expect(playlist.text == """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-PLAYLIST-TYPE:EVENT
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MAP:URI="init.mp4"
            #EXT-X-PROGRAM-DATE-TIME:2026-12-02T03:40:00.000Z
            #EXTINF:6.000000,
            segment0.m4s
            #EXT-X-PROGRAM-DATE-TIME:2026-12-02T03:40:06.000Z
            #EXTINF:6.006006,
            segment1.m4s
            #EXT-X-ENDLIST

            """)
        let check = HLSPlaylistCheck(playlist.text)
        #expect(check.problems.isEmpty, "\(check.problems)")
        #expect(check.entries.count == 2 && check.isEnded && check.isEvent && check.mapURI == "init.mp4")
        #expect(abs(check.totalDuration - 12.006006) < 1e-9)
    }

    /// A sliding window lists the newest segments; the media and discontinuity sequences count those gone.
    @Test func slidingWindow() {
        var playlist = HLSPlaylist(mapURI: "init.mp4", targetDuration: 2, window: 6)
        var left: [Int] = []
        for number in 0..<10 { left += playlist.append(HLSPlaylistTests.segment(number, 2, gap: number == 2)).map(\.number) }
        #expect(left == [0, 1, 2, 3])
        #expect(playlist.segments.map(\.number) == Array(4..<10))
        let check = HLSPlaylistCheck(playlist.text)
        #expect(check.mediaSequence == 4 && check.entries.count == 6 && !check.isEnded && !check.isEvent)
        #expect(playlist.text.contains("#EXT-X-DISCONTINUITY-SEQUENCE:1\n"))
        #expect(check.problems.isEmpty)
    }

    /// Low-Latency HLS: the server control and part target, parts for the last three target durations, the
    /// open segment's parts and the next part as a preload hint (the segment's first when one has just ended).
    @Test func lowLatencyText() {
        var playlist = HLSPlaylist(mapURI: "init.mp4", targetDuration: 2, window: 6, lowLatency: HLSPlaylist.LowLatency(partTarget: 0.5))
        let parts = { (number: Int) in (0..<4).map { HLSPlaylist.Part(uri: "part\(number).\($0).m4s", duration: 0.5, isIndependent: $0 == 0) } }
        for number in 0..<5 {
            var segment = HLSPlaylistTests.segment(number, 2)
            segment.parts = parts(number)
            playlist.append(segment)
        }
        playlist.appendPart(parts(5)[0], segmentProgramDateTime: 1_796_182_830_000, followsGap: false)
        playlist.appendPart(parts(5)[1], segmentProgramDateTime: 1_796_182_830_000, followsGap: false)
        playlist.preloadHint = "part5.2.m4s"
        let text = playlist.text
        #expect(text.contains("""
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-SERVER-CONTROL:PART-HOLD-BACK=1.500000
            #EXT-X-PART-INF:PART-TARGET=0.500000
            #EXT-X-MAP:URI="init.mp4"
            """))
        // Three target durations (6 s) back from the end: the open second and the last three segments.
        #expect(!text.contains("part1.") && text.contains("part2.3.m4s"))
        #expect(text.hasSuffix("""
            #EXT-X-PROGRAM-DATE-TIME:2026-12-02T03:40:24.000Z
            #EXT-X-PART:DURATION=0.500000,URI="part4.0.m4s",INDEPENDENT=YES
            #EXT-X-PART:DURATION=0.500000,URI="part4.1.m4s"
            #EXT-X-PART:DURATION=0.500000,URI="part4.2.m4s"
            #EXT-X-PART:DURATION=0.500000,URI="part4.3.m4s"
            #EXTINF:2.000000,
            segment4.m4s
            #EXT-X-PROGRAM-DATE-TIME:2026-12-02T03:40:30.000Z
            #EXT-X-PART:DURATION=0.500000,URI="part5.0.m4s",INDEPENDENT=YES
            #EXT-X-PART:DURATION=0.500000,URI="part5.1.m4s"
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="part5.2.m4s"

            """))
        let check = HLSPlaylistCheck(text)
        #expect(check.problems.isEmpty, "\(check.problems)")
        #expect(check.partTarget == 0.5 && check.partHoldBack == 1.5 && !check.canBlockReload && check.preloadHint == "part5.2.m4s")
        #expect(check.openParts.count == 2 && check.entries.last?.parts.count == 4)
        playlist.lowLatency?.canBlockReload = true
        #expect(HLSPlaylistCheck(playlist.text).canBlockReload)
        playlist.ended = true
        #expect(!playlist.text.contains("PRELOAD-HINT") && playlist.text.hasSuffix("#EXT-X-ENDLIST\n"))
    }

    @Test func secondsAndDates() {
        #expect(HLSPlaylist.seconds(2) == "2.000000")
        #expect(HLSPlaylist.seconds(6.0060059999) == "6.006006")
        #expect(HLSPlaylist.seconds(0.0333333) == "0.033333")
        #expect(HLSPlaylist.dateTime(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(HLSPlaylist.dateTime(milliseconds: 1_796_182_800_007) == "2026-12-02T03:40:00.007Z")
        #expect(HLSPlaylistCheck.isDateTime("2026-12-02T09:00:00.007Z"))
        #expect(HLSPlaylistCheck.isDateTime("2026-12-02T09:00:00+01:00"))
        #expect(!HLSPlaylistCheck.isDateTime("2026-12-02 09:00:00Z"))
        #expect(HLSWriter.targetDuration(segmentDuration: 6, frameDuration: 1001.0 / 30000) == 6)
        #expect(HLSWriter.targetDuration(segmentDuration: 2.5, frameDuration: 1.0 / 30) == 3)
    }

    /// Each broken rule is named.
    @Test(arguments: [
        ("#EXT-X-VERSION:7\n", "line 1 is not #EXTM3U"),
        ("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-MAP:URI=\"i.mp4\"\n#EXTINF:6,\na.m4s\n", "there is no EXT-X-TARGETDURATION"),
        ("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-MAP:URI=\"i.mp4\"\n#EXTINF:6.6,\na.m4s\n", "rounds above the target duration"),
        ("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXTINF:6,\na.m4s\n", "comes before any EXT-X-MAP"),
        ("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:6\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-MAP:URI=\"i.mp4\"\n#EXTINF:6,\na.m4s\n", "below 6"),
        ("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-MAP:URI=\"i.mp4\"\n#EXTINF:6,\na.m4s\n", "no EXT-X-INDEPENDENT-SEGMENTS"),
        ("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-MAP:URI=\"i.mp4\"\n#EXT-X-PROGRAM-DATE-TIME:yesterday\n#EXTINF:6,\na.m4s\n", "not an ISO 8601 date-time"),
        ("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-MAP:URI=\"i.mp4\"\n#EXT-X-ENDLIST\n#EXTINF:6,\na.m4s\n", "follows #EXT-X-ENDLIST"),
        ("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-MAP:URI=\"i.mp4\"\na.m4s\n", "has no EXTINF before it"),
    ])
    func brokenPlaylists(text: String, problem: String) {
        let check = HLSPlaylistCheck(text)
        #expect(check.problems.contains { $0.contains(problem) }, "\(check.problems)")
    }

    /// Each broken rule of parts is named.
    @Test(arguments: [
        ("#EXT-X-PART:DURATION=0.5,URI=\"p.m4s\",INDEPENDENT=YES\n", "before any EXT-X-PART-INF"),
        ("#EXT-X-PART-INF:PART-TARGET=0.5\n#EXT-X-PART:DURATION=0.5,URI=\"p.m4s\",INDEPENDENT=YES\n", "no EXT-X-SERVER-CONTROL with PART-HOLD-BACK"),
        ("#EXT-X-SERVER-CONTROL:PART-HOLD-BACK=1.0\n#EXT-X-PART-INF:PART-TARGET=0.5\n", "less than three part targets"),
        ("#EXT-X-SERVER-CONTROL:PART-HOLD-BACK=1.5\n#EXT-X-PART-INF:PART-TARGET=0.5\n#EXT-X-PART:DURATION=0.6,URI=\"p.m4s\",INDEPENDENT=YES\n", "longer than the part target"),
        ("#EXT-X-SERVER-CONTROL:PART-HOLD-BACK=1.5\n#EXT-X-PART-INF:PART-TARGET=0.5\n#EXT-X-PART:DURATION=0.5,URI=\"a.m4s\",INDEPENDENT=YES\n#EXT-X-PART:DURATION=0.3,URI=\"b.m4s\"\n#EXT-X-PART:DURATION=0.5,URI=\"c.m4s\"\n", "less than 85 %"),
        ("#EXT-X-SERVER-CONTROL:PART-HOLD-BACK=1.5\n#EXT-X-PART-INF:PART-TARGET=0.5\n#EXT-X-PART:DURATION=0.5,URI=\"a.m4s\"\n", "is not INDEPENDENT=YES"),
        ("#EXT-X-SERVER-CONTROL:PART-HOLD-BACK=1.5\n#EXT-X-PART-INF:PART-TARGET=0.5\n#EXT-X-PART:DURATION=0.5,URI=\"a.m4s\",INDEPENDENT=YES\n#EXTINF:2,\nsegment0.m4s\n", "add up to 0.5 s, not its 2.0"),
        ("#EXT-X-SERVER-CONTROL:PART-HOLD-BACK=1.5\n#EXT-X-PART-INF:PART-TARGET=0.5\n#EXT-X-PART:DURATION=0.5,URI=\"a.m4s\",INDEPENDENT=YES\n", "no EXT-X-PRELOAD-HINT"),
    ])
    func brokenLowLatencyPlaylists(tags: String, problem: String) {
        let text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-MAP:URI=\"i.mp4\"\n" + tags
        let check = HLSPlaylistCheck(text)
        #expect(check.problems.contains { $0.contains(problem) }, "\(check.problems)")
    }

    @Test func streamFileNames() {
        #expect(LiveFolder.isStreamFile("index.m3u8") && LiveFolder.isStreamFile("init.mp4") && LiveFolder.isStreamFile("segment12.m4s"))
        #expect(!LiveFolder.isStreamFile("segment.m4s") && !LiveFolder.isStreamFile("segmentA.m4s") && !LiveFolder.isStreamFile("movie.mov"))
    }

    @Test func multivariantPlaylist() {
        let playlist = HLSMultivariantPlaylist(variants: [
            .init(uri: "low/index.m3u8", bandwidth: 288_000, averageBandwidth: 120_000, codecs: ["avc1.42C00C", "mp4a.40.2"],
                  resolution: (192, 144), frameRate: 15),
            .init(uri: "720p/index.m3u8", bandwidth: 5_200_000, averageBandwidth: nil, codecs: ["avc1.64001F", "mp4a.40.2"],
                  resolution: (1280, 720), frameRate: 30000.0 / 1001),
        ])
        #expect(playlist.text == """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-STREAM-INF:BANDWIDTH=5200000,CODECS="avc1.64001F,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=29.970
            720p/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=288000,AVERAGE-BANDWIDTH=120000,CODECS="avc1.42C00C,mp4a.40.2",RESOLUTION=192x144,FRAME-RATE=15.000
            low/index.m3u8

            """)
        #expect(LiveVariants.folderNames(presets: ["720p", "720p", "my preset", ".hidden", "720p"]) == ["720p", "720p-2", "my_preset", "variant.hidden", "720p-3"])
    }

    /// The variants report from their own threads at once (a recording with tiers): every write of the
    /// multivariant playlist lands (they once shared a hidden name outside the lock, and one's rename found
    /// the other's file gone: "cannot put the live stream's index.m3u8 in place"), and the last is complete.
    @Test func variantsReportingAtOnceWriteThePlaylistInTurn() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let group = LiveVariants(folder: folder, count: 2)
        let threads = (0..<2).map { index in
            WorkerThread(name: "variant\(index)") {
                for round in 0..<3000 {
                    group.report(index, HLSMultivariantPlaylist.Variant(
                        uri: "v\(index)/index.m3u8", bandwidth: 1_000_000 + round, averageBandwidth: nil,
                        codecs: ["avc1.64001F", "mp4a.40.2"], resolution: (640, 360), frameRate: 30))
                }
            }
        }
        for thread in threads { thread.join() }
        #expect(group.failure == nil, "\(group.failure ?? "")")
        let text = try String(contentsOfFile: folder + "/index.m3u8", encoding: .utf8)
        #expect(text.contains("v0/index.m3u8") && text.contains("v1/index.m3u8") && text.contains("BANDWIDTH=1002999"), "\(text)")
    }
}
