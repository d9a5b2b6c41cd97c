// The benchmark harness's "photo from a running session" measurement (benchmarks/bench.py runs it): a
// session records a paced 720p30 test source to a movie while PhotoOutput takes photos; each latency is
// from the request to the photo renamed into place on disk. Not a product: built beside `reel` for the
// harness only.
import Foundation
import Glibc
import Reel

func seconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]), count > 0 else {
    FileHandle.standardError.write(Data("usage: reel-photo-latency FOLDER COUNT\n".utf8))
    exit(2)
}
let folder = arguments[1]
do {
    let configuration = RecordingConfiguration(
        outputPath: "\(folder)/photo-session.mov", video: try DeviceSpec(parsing: "lavfi:testsrc2"),
        audio: try DeviceSpec(parsing: "lavfi:sine"), preset: try PresetLibrary.preset(named: "720p"),
        limits: RecordingLimits(maxDuration: 3600, minFreeDiskSpace: 0), overwrite: true)
    let session = CaptureSession()
    let photo = PhotoOutput()
    session.addOutput(photo)
    try session.start(configuration)
    usleep(1_000_000)
    var latencies: [Double] = []
    for index in 0..<count {
        let asked = seconds()
        _ = try photo.captureAndWait(to: StillRequest(path: "\(folder)/photo-\(index).jpg", overwrite: true))
        latencies.append(seconds() - asked)
        usleep(150_000)
    }
    session.stop()
    let result = session.waitUntilFinished()
    let list = latencies.map { String(printf: "%.4f", $0) }.joined(separator: ", ")
    print("{\"latencies\": [\(list)], \"droppedFrames\": \(result.droppedFrames), \"videoFrames\": \(result.videoFrames), \"recordedSuccessfully\": \(result.recordedSuccessfully)}")
} catch {
    FileHandle.standardError.write(Data("reel-photo-latency: \(error)\n".utf8))
    exit(1)
}
