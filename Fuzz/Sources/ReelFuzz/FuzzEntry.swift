import Foundation
@_spi(ReelTools) import Reel
import ReelBatch

/// libFuzzer's entry point. REEL_FUZZ_TARGET picks what the bytes are fed to; every target must turn any input
/// into a value or a thrown error: a crash, a sanitizer report or a hang (libFuzzer's -timeout) is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let data = Data(bytes: bytes, count: count)
    switch FuzzTarget.selected {
    case .preset: _ = try? Preset(json: data, source: "fuzz.json")
    case .jobs: _ = try? JobFile.parse(data, source: "jobs.json", baseFolder: FuzzTarget.scratch)
    case .spec: FuzzTarget.strings(data) { _ = try? DeviceSpec(parsing: $0) }
    case .values:
        FuzzTarget.strings(data) {
            _ = ByteCount.parse($0)
            _ = Preset.parseSize($0)
            FuzzTarget.limits($0)
        }
    case .media: FuzzTarget.media(data)
    }
    return 0
}

enum FuzzTarget: String, CaseIterable {
    case preset, jobs, spec, values, media

    static let selected: FuzzTarget = {
        FFmpegMemoryGuard.limitBlockSize()  // as the reel command line does
        let name = ProcessInfo.processInfo.environment["REEL_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            FileHandle.standardError.write(Data("set REEL_FUZZ_TARGET to one of \(allCases.map(\.rawValue))\n".utf8))
            exit(2)
        }
        return target
    }()

    static let scratch: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reel-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()

    /// Text inputs: the bytes as UTF-8 (lossily), one string per input.
    static func strings(_ data: Data, _ body: (String) -> Void) {
        body(String(decoding: data, as: UTF8.self))
    }

    /// A number as every limit and time a user can give: at the edges of Double and Int64 (1e400, 9.3e12,
    /// -0, NaN's spellings) each must be accepted or refused with an error, never overflow.
    static func limits(_ text: String) {
        guard let value = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return }
        let limits = RecordingLimits(maxDuration: value, maxFileSize: Int64(exactly: value.rounded()) ?? nil,
                                     minFreeDiskSpace: 0)
        _ = try? limits.validate(freeBytes: nil, outputFolder: scratch.path, pictureSize: (1920, 1080))
        // A grab at that time of a real (tiny) movie: range check, seek arithmetic and the backward search.
        let still = StillRequest(path: scratch.appendingPathComponent("time.jpg").path, overwrite: true)
        try? FrameGrabber.grab(inputPath: timeFixture, at: value, to: still)
    }

    /// A one-second movie for the time checks, from the corpus (next to this package in the repository).
    static let timeFixture: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Tests/FuzzCorpus/media/tiny.mov").standardizedFileURL.path

    /// A media file: probe it, then grab a frame at the start and one further in (a seek, and the search
    /// back from where a coarse index lands), as `reel probe` and `reel grab` would.
    static func media(_ data: Data) {
        let input = scratch.appendingPathComponent("input").path
        let still = scratch.appendingPathComponent("still.jpg").path
        guard FileManager.default.createFile(atPath: input, contents: data) else { return }
        _ = try? MediaProbe.describe(path: input)
        for time in [0, 0.7] {
            try? FrameGrabber.grab(inputPath: input, at: time, to: StillRequest(path: still, overwrite: true))
        }
    }
}

/// SwiftPM links an executable target's entry point as `<Target>_main`; hand control to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Int32

@_cdecl("ReelFuzz_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { fuzzOneInput($0, $1) }
}
