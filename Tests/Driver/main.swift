// Drives the library the way an app would, for end-to-end tests that need a process of their own (an
// emulated camera is LD_PRELOADed into a process at its start, so the test suite cannot host it).
// Not a product: built for the tests only.
import Foundation
import Reel

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("reel-test-driver: \(message)\n".utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.first == "camera-controls-while-recording", arguments.count >= 3 else {
    fail("usage: reel-test-driver camera-controls-while-recording OUTPUT.mov NAME=VALUE... [--restore]")
}
let restore = arguments.contains("--restore")
let settings = arguments.dropFirst(2).filter { $0 != "--restore" }.map { text -> CameraControlSetting in
    guard let setting = CameraControlSetting(parsing: text) else { fail("'\(text)' is not NAME=VALUE") }
    return setting
}
do {
    var preset = try PresetLibrary.preset(named: "640x480")
    preset.video.fps = 30
    var configuration = RecordingConfiguration(
        outputPath: arguments[1], video: try DeviceSpec(parsing: "v4l2:/dev/video0"), audio: nil, preset: preset,
        limits: RecordingLimits(minFreeDiskSpace: 0))
    configuration.restoresCameraControls = restore
    let session = CaptureSession()
    try session.start(configuration)
    Thread.sleep(forTimeInterval: 1)
    try session.setCameraControls(settings)
    // What the camera holds now, as the emulator wrote it after the change.
    let during = ProcessInfo.processInfo.environment["FAKE_V4L2_STATE"].flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? "null"
    var refusal = ""
    do {
        try session.setCameraControls([CameraControlSetting(name: "no_such_control", value: "1")])
    } catch let error as ReelError {
        refusal = "\(error.kind == .invalidInput ? "invalidInput" : "other"): \(error.message)"
    }
    Thread.sleep(forTimeInterval: 1)
    session.stop()
    let result = session.waitUntilFinished()
    let report: [String: Any] = ["during": (try? JSONSerialization.jsonObject(with: Data(during.utf8))) ?? NSNull(),
                                 "refusal": refusal, "recordedSuccessfully": result.recordedSuccessfully,
                                 "videoFrames": result.videoFrames, "droppedFrames": result.droppedFrames]
    print(String(decoding: try JSONSerialization.data(withJSONObject: report), as: UTF8.self))
} catch {
    fail("\(error)")
}
