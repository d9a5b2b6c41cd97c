// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Reel",
    products: [
        .library(name: "Reel", targets: ["Reel"]),
        .executable(name: "reel", targets: ["reel"]),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavdevice libavformat libavcodec libswscale libswresample libavutil",
            providers: [.apt(["libavdevice-dev", "libavformat-dev", "libavcodec-dev", "libswscale-dev",
                              "libswresample-dev", "libavutil-dev", "pkg-config"])]
        ),
        .target(name: "FFmpegCore", dependencies: ["CFFmpeg"]),
        .target(name: "CVideo4Linux"),
        .plugin(name: "EmbedPresets", capability: .buildTool()),
        .target(name: "Reel", dependencies: ["FFmpegCore", "CVideo4Linux"], plugins: ["EmbedPresets"]),
        .target(name: "ReelCLI", dependencies: ["Reel"]),
        .executableTarget(name: "reel", dependencies: ["ReelCLI"]),
        .testTarget(name: "FFmpegCoreTests", dependencies: ["FFmpegCore"]),
        .testTarget(name: "ReelTests", dependencies: ["Reel", "FFmpegCore"]),
        .testTarget(name: "ReelCLITests", dependencies: ["ReelCLI", "Reel", "FFmpegCore"]),
    ],
    swiftLanguageModes: [.v6]
)
