import Foundation
@testable import Reel
@testable import ReelControl
import Testing

/// Issue 16: the control socket's commands and JSON lines, apart from any socket.
@Suite struct ControlProtocolTests {
    @Test func commandsParse() throws {
        #expect(try ControlCommand(parsing: ["status"]) == .status)
        #expect(try ControlCommand(parsing: ["photo", "a.jpg"]) == .photo(path: "a.jpg"))
        #expect(try ControlCommand(parsing: ["switch-video", "lavfi:smptebars"]) == .switchVideo(try DeviceSpec(parsing: "lavfi:smptebars")))
        #expect(try ControlCommand(parsing: ["switch-audio", "none"]) == .switchAudio(nil))
        #expect(try ControlCommand(parsing: ["camera-control", "torch=on", "zoom=2"])
                == .cameraControl([CameraControlSetting(parsing: "torch=on")!, CameraControlSetting(parsing: "zoom=2")!]))
        #expect(try ControlCommand(parsing: ["live-push", "srt://127.0.0.1:9000"]) == .livePush(try LivePush(url: "srt://127.0.0.1:9000")))
        #expect(try ControlCommand(parsing: ["live", "srt://127.0.0.1:9000"]) == .livePush(try LivePush(url: "srt://127.0.0.1:9000")))
        #expect(try ControlCommand(parsing: ["live", "hls/lecture"]) == .liveFolder("hls/lecture"))
        #expect(throws: ReelError.self) { try ControlCommand(parsing: ["live-push", "hls/lecture"]) }
        #expect(throws: ReelError.self) { try ControlCommand(parsing: ["live", "http://example.org/x"]) }
        let bad: [([String], String)] = [
            (["live-push"], "takes one argument"), (["live-push", "hls"], "give a server"), (["live-push", "srt://h"], "needs a port"),
            ([], "empty command"), (["dance"], "unknown command 'dance'"), (["status", "now"], "takes no arguments"),
            (["photo"], "takes one argument"), (["photo", "a.gif"], ".jpg"), (["switch-video"], "takes one argument"),
            (["switch-video", "nokind"], "has no kind"), (["camera-control"], "NAME=VALUE"), (["camera-control", "torch"], "not NAME=VALUE"),
        ]
        for (words, message) in bad {
            do {
                _ = try ControlCommand(parsing: words)
                Issue.record("\(words) parsed")
            } catch let error as ReelError {
                #expect(error.kind == .invalidInput && error.message.contains(message), "\(words): \(error.message)")
            }
        }
    }

    @Test func requestsAndReplies() throws {
        let request = try ControlMessages.request(Array(#"{"command": ["switch-video", "x11grab::0"], "request_id": 7}"#.utf8))
        #expect(request.command == ["switch-video", "x11grab::0"] && request.requestID == "7")
        #expect(try ControlMessages.request(Array(#"{"command":["status"],"request_id":"a\"b"}"#.utf8)).requestID == #""a\"b""#)
        #expect(try ControlMessages.request(Array(#"{"command":["status"]}"#.utf8)).requestID == nil)
        for line in ["", "status", "{\"command\": \"status\"}", "{\"command\": [1]}", "[\"status\"]", "{\"request_id\": 1}"] {
            #expect(throws: ReelError.self, "\(line)") { try ControlMessages.request(Array(line.utf8)) }
        }
        #expect(ControlMessages.reply(requestID: "7", error: nil, data: "{\"a\":1}") == #"{"request_id":7,"error":"success","data":{"a":1}}"# + "\n")
        #expect(ControlMessages.reply(requestID: nil, error: "no \"such\" device", data: nil) == #"{"error":"no \"such\" device"}"# + "\n")
        let event = ControlMessages.event("segmentFinished", SegmentResult(output: "/a-001.mov", index: 1, start: 0, duration: 2,
                                                                          bytes: 10, videoFrames: 60, audioSamples: 96000, recordedSuccessfully: true))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(event.utf8)) as? [String: Any])
        #expect(object["event"] as? String == "segmentFinished" && object["videoFrames"] as? Int == 60 && event.hasSuffix("}\n"))
    }

    /// Issue 24, item 17: a repeated key is refused, not read as its last value.
    @Test func aRequestWithARepeatedCommandIsRefused() {
        #expect(throws: ReelError.self) {
            try ControlMessages.request(Array(#"{"command": ["status"], "command": ["stop"]}"#.utf8))
        }
        #expect((try? ControlMessages.request(Array(#"{"command": ["status"], "request_id": 1}"#.utf8))) != nil)
    }
}
