// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Reel",
    products: [
        // The capture engine (`import Reel`), driving a running session from outside (`import ReelControl`) and
        // batch jobs (`import ReelBatch`).
        .library(name: "Reel", targets: ["Reel", "ReelControl", "ReelBatch"]),
        .executable(name: "reel", targets: ["reel"]),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            // libavdevice is not linked: it drags in X11, SDL, PulseAudio... and slows every start-up by
            // ~20 ms. It is loaded with dlopen the first time a device input is opened (see shim.h).
            pkgConfig: "libavformat libavcodec libswscale libswresample libavutil",
            providers: [.apt(["libavdevice-dev", "libavformat-dev", "libavcodec-dev", "libswscale-dev",
                              "libswresample-dev", "libavutil-dev", "pkg-config"])]
        ),
        // Below everything: clocks, the lock and the condition every thread shares, threads (no FFmpeg, no
        // engine types); its C part names and prioritizes threads.
        .target(name: "CSystemSupport"),
        .target(name: "SystemSupport", dependencies: ["CSystemSupport"]),
        // Picture loops the compiler vectorizes, for conversions swscale has no fast path for.
        .target(name: "CPictureConversion"),
        .target(name: "FFmpegCore", dependencies: ["CFFmpeg", "SystemSupport", "CPictureConversion"]),
        // The container code (boxes, sample tables, fragments, index, trailer bound): no FFmpeg, no engine types.
        .target(name: "QuickTime", dependencies: ["SystemSupport"]),
        .target(name: "CLinuxCapture"),
        .plugin(name: "EmbedPresets", capability: .buildTool()),
        .target(name: "Reel", dependencies: ["SystemSupport", "CSystemSupport", "FFmpegCore", "QuickTime", "CLinuxCapture"], plugins: ["EmbedPresets"]),
        // Running sessions driven from outside: the one SessionController (commands to the session's API), the
        // control socket, `reel ctl`'s wire format.
        .target(name: "ReelControl", dependencies: ["Reel", "FFmpegCore", "SystemSupport", "CSystemSupport"]),
        // Batch jobs: job files, the schedule, the runner (a control socket per running job).
        .target(name: "ReelBatch", dependencies: ["Reel", "ReelControl", "FFmpegCore", "SystemSupport"]),
        // libmicrohttpd, the HTTP server under `reel serve` (a shim passes its variadic start options).
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .plugin(name: "EmbedPage", capability: .buildTool()),
        // `reel serve`: the camera page and its JSON API over HTTP.
        .target(name: "ReelServer", dependencies: ["Reel", "ReelControl", "SystemSupport", "CMicroHTTPD"], plugins: ["EmbedPage"]),
        // The CLI's stop-signal handler: a C handler that only writes to a pipe (async-signal-safe).
        .target(name: "CStopSignals"),
        .target(name: "ReelCLI", dependencies: ["Reel", "ReelControl", "ReelBatch", "ReelServer", "SystemSupport", "CStopSignals"]),
        .executableTarget(name: "reel", dependencies: ["ReelCLI"]),
        // The benchmark harness's photo-latency probe (benchmarks/bench.py), not a product.
        .executableTarget(name: "reel-photo-latency", dependencies: ["Reel"], path: "benchmarks/PhotoLatency"),
        // Drives the library from a process of its own for end-to-end tests (an emulated camera is preloaded).
        .executableTarget(name: "reel-test-driver", dependencies: ["Reel"], path: "Tests/Driver"),
        // Decoding, probing and process helpers shared by the test targets (not part of any product).
        .target(name: "ReelTestSupport", dependencies: ["FFmpegCore", "SystemSupport"], path: "Tests/ReelTestSupport"),
        .testTarget(name: "FFmpegCoreTests", dependencies: ["FFmpegCore", "SystemSupport", "ReelTestSupport"]),
        .testTarget(name: "QuickTimeTests", dependencies: ["QuickTime"], exclude: ["Fixtures"]),
        .testTarget(name: "ReelTests", dependencies: ["Reel", "FFmpegCore", "SystemSupport", "ReelTestSupport"]),
        .testTarget(name: "ReelControlTests", dependencies: ["ReelControl", "Reel"]),
        .testTarget(name: "ReelBatchTests", dependencies: ["ReelBatch", "Reel", "ReelTestSupport"]),
        .testTarget(name: "ReelCLITests", dependencies: ["ReelCLI", "Reel", "ReelTestSupport"]),
        .testTarget(name: "ReelServerTests", dependencies: ["ReelServer", "Reel", "SystemSupport", "ReelTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
