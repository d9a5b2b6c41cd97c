// swift-tools-version:6.0
import PackageDescription

// libFuzzer harness for Reel's parsers and media readers, kept out of the main package because it is built
// with -sanitize=fuzzer (which supplies main). Run it with `make fuzz` or `make fuzz-quick`.
let package = Package(
    name: "ReelFuzz",
    dependencies: [.package(name: "Reel", path: "..")],
    targets: [
        .executableTarget(name: "ReelFuzz", dependencies: [.product(name: "Reel", package: "Reel")],
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    ],
    swiftLanguageModes: [.v6]
)
