@testable import ReelServer
import Testing

/// The blocking playlist reload's rules (RFC 8216bis 6.2.5.2) on fixed playlists: what a request asks for,
/// when the playlist answers it, which requests are refused, and the playlist as served.
@Suite struct BlockingReloadTests {
    static let playlist = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:1
        #EXT-X-MEDIA-SEQUENCE:3
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-SERVER-CONTROL:PART-HOLD-BACK=0.750000
        #EXT-X-PART-INF:PART-TARGET=0.250000
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:1.000000,
        segment3.m4s
        #EXT-X-PART:DURATION=0.250000,URI="part4.0.m4s",INDEPENDENT=YES
        #EXT-X-PART:DURATION=0.250000,URI="part4.1.m4s"
        #EXTINF:1.000000,
        segment4.m4s
        #EXT-X-PART:DURATION=0.250000,URI="part5.0.m4s",INDEPENDENT=YES
        #EXT-X-PRELOAD-HINT:TYPE=PART,URI="part5.1.m4s"

        """

    @Test func requests() throws {
        #expect(try BlockingReload.Request.parse(msn: nil, part: nil) == nil)
        #expect(try BlockingReload.Request.parse(msn: "5", part: nil) == .init(segment: 5))
        #expect(try BlockingReload.Request.parse(msn: "5", part: "1") == .init(segment: 5, part: 1))
        #expect(throws: BlockingReload.BadRequest("_HLS_part needs _HLS_msn")) { try BlockingReload.Request.parse(msn: nil, part: "1") }
        #expect(throws: BlockingReload.BadRequest.self) { try BlockingReload.Request.parse(msn: "x", part: nil) }
        #expect(throws: BlockingReload.BadRequest.self) { try BlockingReload.Request.parse(msn: "5", part: "-1") }
    }

    @Test func whenThePlaylistAnswers() throws {
        let position = try #require(BlockingReload.Position(playlist: BlockingReloadTests.playlist))
        #expect(position == .init(nextSegment: 5, openParts: 1, ended: false, targetDuration: 1, listedSeconds: 2))
        // Two seconds listed: not yet the three target durations a player without parts starts behind.
        #expect(!position.isPlayable)
        #expect(BlockingReload.Position(nextSegment: 5, openParts: 0, ended: false, targetDuration: 1, listedSeconds: 3).isPlayable)
        #expect(position.answers(.init(segment: 4)) && position.answers(.init(segment: 5, part: 0)))
        #expect(!position.answers(.init(segment: 5)) && !position.answers(.init(segment: 5, part: 1)))
        #expect(!position.answers(.init(segment: 6, part: 0)))
        #expect(!position.isTooFarAhead(.init(segment: 6)) && position.isTooFarAhead(.init(segment: 7)))
        #expect(position.longestWait == 3)
        // The hinted part and the next are coming; older or far ones are not (a 404, not a wait).
        #expect(position.isComing(part: "part5.1.m4s") && position.isComing(part: "part5.2.m4s") && position.isComing(part: "part6.0.m4s"))
        #expect(!position.isComing(part: "part5.0.m4s") && !position.isComing(part: "part9.0.m4s") && !position.isComing(part: "segment5.m4s"))
        var ended = position
        ended.ended = true
        #expect(ended.answers(.init(segment: 6)) && !ended.isComing(part: "part5.1.m4s"))
    }

    @Test func servedPlaylistSaysItBlocks() {
        let served = BlockingReload.served(BlockingReloadTests.playlist)
        #expect(served.contains("\n#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=0.750000\n"))
        #expect(BlockingReload.served(served) == served)
        let plain = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6.0,\nsegment0.m4s\n"
        #expect(BlockingReload.served(plain) == "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES\n#EXTINF:6.0,\nsegment0.m4s\n")
    }
}
