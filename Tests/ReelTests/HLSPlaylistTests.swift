@testable import Reel
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
}
