import Glibc
@testable import Reel
import Testing

/// Issue 26: the addresses `--live` pushes to, how they are shown, and when a lost server is tried again.
@Suite struct LivePushTests {
    @Test func destinationsAreFoldersOrServers() throws {
        #expect(try LiveStream.destination("hls") == .folder("hls"))
        #expect(try LiveStream.destination("a b/odd:name") == .folder("a b/odd:name"))
        guard case .server(let srt) = try LiveStream.destination("SRT://127.0.0.1:9000?latency=200") else {
            Issue.record("srt:// is a server")
            return
        }
        #expect(srt.transport == .srt && srt.transport.formatName == "mpegts")
        guard case .server(let rtmp) = try LiveStream.destination("rtmp://[::1]:1935/live/key") else {
            Issue.record("rtmp:// is a server")
            return
        }
        #expect(rtmp.transport == .rtmp && rtmp.transport.formatName == "flv")
        #expect(try LivePush(url: "rtmp://example.org/app/key").transport == .rtmp, "RTMP's port defaults to 1935")
    }

    @Test func badAddressesSayWhatIsMissing() {
        func message(_ text: String) -> String? {
            do {
                _ = try LiveStream.destination(text)
                return nil
            } catch let error as ReelError {
                return error.message
            } catch {
                return "\(error)"
            }
        }
        #expect(message("")?.contains("needs a folder") == true)
        #expect(message("srt://127.0.0.1")?.contains("needs a port") == true)
        #expect(message("srt://127.0.0.1:")?.contains("is not a number") == true)
        #expect(message("srt://127.0.0.1:70000")?.contains("from 1 to 65535") == true)
        #expect(message("srt://:9000")?.contains("no server host") == true)
        #expect(message("srt://127.0.0.1:9000?mode=listener")?.contains("mode=caller") == true)
        #expect(message("rtmp://127.0.0.1/live")?.contains("application and a stream key") == true)
        #expect(message("rtmp://127.0.0.1")?.contains("application and a stream key") == true)
        #expect(message("http://127.0.0.1/x")?.contains("srt:// and rtmp://") == true)
        #expect(message("rtmps://host/app/secret")?.contains("secret") == false, "a key is not printed, even of an unsupported scheme")
        #expect(message("rtmp://user:s3cret@host/app/key")?.contains("s3cret") == false, "nor a password")
    }

    @Test func secretsAreHiddenWhereverTheAddressIsShown() throws {
        #expect(try LivePush(url: "rtmp://host:1935/live/abc123").displayURL == "rtmp://host:1935/live/***")
        #expect(try LivePush(url: "rtmp://host/app/inst/abc123?x=1").displayURL == "rtmp://host/app/inst/***?x=1")
        #expect(try LivePush(url: "srt://host:9000?latency=200&passphrase=hunter22xyz&streamid=publish:cam").displayURL
                == "srt://host:9000?latency=200&passphrase=***&streamid=***")
        #expect(try LivePush(url: "srt://host:9000").displayURL == "srt://host:9000")
        #expect(try LivePush(url: "rtmp://host/live/abc123/").displayURL == "rtmp://host/live/***/", "a trailing slash hides nothing")
        #expect(LivePush.hidingSecrets("rtmp://user:secret@host/live/abc123") == "rtmp://***@host/live/***")
        #expect(LivePush.hidingSecrets("srt://host:9000?token=t0k&latency=200") == "srt://host:9000?token=***&latency=200")
        let error = #expect(throws: ReelError.self) { try LivePush.check([try LivePush(url: "rtmp://h/a/k1")], videoCodec: .hevc) }
        #expect(error?.message.contains("H.264 only") == true && error?.message.contains("k1") == false)
        let twice = #expect(throws: ReelError.self) {
            try LivePush.check([try LivePush(url: "srt://h:1?passphrase=0123456789"), try LivePush(url: "srt://h:1?passphrase=0123456789")],
                               videoCodec: .h264)
        }
        #expect(twice?.message.contains("given twice") == true && twice?.message.contains("0123456789") == false)
        try LivePush.check([try LivePush(url: "srt://h:1")], videoCodec: .hevc)
    }

    @Test func backoffDoublesToItsCapAndStartsOverAfterAConnection() {
        var backoff = LiveBackoff()
        #expect((1...8).map { _ in backoff.failed().delay } == [1, 2, 4, 8, 16, 30, 30, 30])
        #expect(backoff.failures == 8)
        backoff.connected()
        let next = backoff.failed()
        #expect(next.attempt == 1 && next.delay == 1)
    }

    @Test func onlyARefusalBeforeTheFirstConnectionEndsAStream() {
        // A server that is not there yet is waited for, over either transport.
        for transport in [LivePush.Transport.srt, .rtmp] {
            for code in [ECONNREFUSED, ETIMEDOUT, EHOSTUNREACH, ECONNRESET] {
                #expect(!LiveBackoff.isPermanent(posixCode: code, transport: transport, everConnected: false))
            }
            #expect(LiveBackoff.isPermanent(posixCode: EINVAL, transport: transport, everConnected: true), "a bad option never works")
        }
        // RTMP: the server took the connection and then hung up or answered with an error: the key was refused.
        #expect(LiveBackoff.isPermanent(posixCode: EIO, transport: .rtmp, everConnected: false))
        #expect(LiveBackoff.isPermanent(posixCode: EPERM, transport: .rtmp, everConnected: false))
        // Once connected, every loss is a restart to wait for.
        #expect(!LiveBackoff.isPermanent(posixCode: EIO, transport: .rtmp, everConnected: true))
        #expect(!LiveBackoff.isPermanent(posixCode: EPIPE, transport: .rtmp, everConnected: true))
        #expect(!LiveBackoff.isPermanent(posixCode: nil, transport: .rtmp, everConnected: true))
        // SRT's errors do not tell a refusal from a lost handshake: it is retried, visibly.
        #expect(!LiveBackoff.isPermanent(posixCode: EIO, transport: .srt, everConnected: false))
        #expect(!LiveBackoff.isPermanent(posixCode: nil, transport: .srt, everConnected: false))
        #expect(LiveBackoff.isPermanent(posixCode: nil, transport: .rtmp, everConnected: false))
    }

    @Test func connectionEventsAreNamedAndWorded() {
        let lost = LiveConnection(url: "rtmp://h/a/***", state: .disconnected, reason: "broken pipe")
        #expect(lost.eventName == "liveDisconnected" && lost.text == "live stream rtmp://h/a/*** disconnected: broken pipe")
        let next = LiveConnection(url: "srt://h:1", state: .reconnecting, reason: "connection refused", attempt: 3, retryIn: 4)
        #expect(next.eventName == "liveReconnecting" && next.text == "live stream srt://h:1: attempt 3 in 4 s (connection refused)")
        #expect(LiveConnection(url: "srt://h:1", state: .connected).eventName == "liveConnected")
    }
}
