// swift-tools-version: 6.0
// cinegraph — cinematic-mode video for Linux cameras.
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "cinegraph",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CineGraph", targets: ["CineMedia", "CineInference", "CineVision", "CineGraph", "CineGStreamer", "CineNodes"]),
        .library(name: "CineViewfinder", targets: ["CineViewfinder"]),
        .library(name: "CineEditor", targets: ["CineEditor"]),
        .executable(name: "cinegraph", targets: ["cinegraph"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CGStreamer", pkgConfig: "gstreamer-video-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),
        // libpng and libjpeg-turbo: the tools read PNG and JPEG files directly (no pipeline per image).
        .systemLibrary(
            name: "CImageCodecs", providers: [.apt(["libpng-dev", "libturbojpeg0-dev"])]),
        .target(name: "CineMedia", swiftSettings: strict),
        // Learned models through LiteRT's C API, loaded at run time (no link-time dependency).
        .target(name: "CineInference", swiftSettings: strict),
        .target(name: "CineVision", dependencies: ["CineMedia", "CineInference"], swiftSettings: strict),
        // What only tests and benches use: references, test clips and pairs with their truth, quality meters.
        .target(name: "CineTestSupport", dependencies: ["CineVision", "CineMedia"], swiftSettings: strict),
        .target(
            name: "CineGraph",
            dependencies: ["CineMedia", "Yams", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        // OpenCV's calib3d behind a small C face (the field's standard solver; Debian's
        // libopencv-calib3d-dev): chessboard corners, stereo calibration, rectification.
        .target(
            name: "COpenCVCalib",
            cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4"])],
            linkerSettings: [
                .linkedLibrary("opencv_calib3d"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core"),
            ]),
        // `cinegraph calibrate`: boards found, a pair calibrated and judged, files written, and a
        // simulated rig whose every number is known.
        .target(
            name: "CineCalibrate", dependencies: ["COpenCVCalib", "CineVision", "CineMedia", "CineGraph", "CineGStreamer"], swiftSettings: strict),
        .target(name: "CineGStreamer", dependencies: ["CGStreamer", "CImageCodecs", "CineMedia"], swiftSettings: strict),
        .target(
            name: "CineNodes",
            dependencies: ["CineMedia", "CineInference", "CineVision", "CineGraph", "CineGStreamer"],
            swiftSettings: strict),
        // The web viewfinder (Hummingbird): kind `viewfinder` and its server; only what links it
        // pays for it, and registers the kind with `registry.registerViewfinder()`.
        .target(
            name: "CineViewfinder",
            dependencies: [
                "CineGraph", "CineMedia",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The page's files, compiled in: an installed binary needs no resource bundle beside it.
            resources: [
                .embedInCode("Pages/viewfinder.html"), .embedInCode("Pages/viewfinder.css"),
                .embedInCode("Pages/viewfinder.js"),
            ],
            swiftSettings: strict),
        // The editor (`cinegraph edit`): a take's focus and aperture changed in the browser, on the
        // viewfinder's server stack.
        .target(
            name: "CineEditor",
            dependencies: [
                "CineViewfinder", "CineNodes", "CineGraph", "CineGStreamer", "CineVision", "CineMedia",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.embedInCode("Pages/editor.html"), .embedInCode("Pages/editor.css"), .embedInCode("Pages/editor.js")],
            swiftSettings: strict),
        // The command-line tool; its folder is Sources/CLI, so that no two folders differ only by
        // case (Sources/CineGraph is the runtime).
        .executableTarget(
            name: "cinegraph",
            dependencies: [
                "CineNodes", "CineGraph", "CineGStreamer", "CineViewfinder", "CineEditor", "CineCalibrate",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/CLI",
            swiftSettings: strict,
            // The Swift runtime and Foundation are linked in (-static-stdlib): every tool starts
            // in a few milliseconds instead of ~30 spent binding symbols across twenty shared
            // libraries. Plugins resolve their references — cinegraph's modules and the runtime
            // alike — against this executable (--export-dynamic), so there is one runtime.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic"])]),
        .executableTarget(
            name: "CineBench", dependencies: ["CineCalibrate", "CineTestSupport", "CineNodes", "CineGraph", "CineGStreamer", "CineInference", "CineVision", "CineViewfinder", "CineEditor"],
            path: "Benchmarks/CineBench", swiftSettings: strict),
        .testTarget(name: "CineMediaTests", dependencies: ["CineMedia"], swiftSettings: strict),
        .testTarget(name: "CineInferenceTests", dependencies: ["CineInference"], swiftSettings: strict),
        .testTarget(name: "CineVisionTests", dependencies: ["CineTestSupport", "CineVision", "CineMedia", "CineInference"], swiftSettings: strict),
        .testTarget(name: "CineGraphTests", dependencies: ["CineGraph", "CineMedia"], swiftSettings: strict),
        .testTarget(
            name: "CineGStreamerTests", dependencies: ["CineGStreamer", "CineMedia"], swiftSettings: strict),
        .testTarget(
            name: "CineNodesTests", dependencies: ["CineCalibrate", "CineTestSupport", "CineNodes", "CineViewfinder", "CineGraph", "CineVision", "CineGStreamer"],
            swiftSettings: strict),
        .testTarget(
            name: "CineViewfinderTests",
            dependencies: [
                "CineTestSupport", "CineViewfinder", "CineEditor", "CineNodes", "CineGraph", "CineMedia", "CineGStreamer",
                "CineVision",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CineEditorTests",
            dependencies: [
                "CineTestSupport", "CineEditor", "CineViewfinder", "CineNodes", "CineGraph", "CineGStreamer", "CineMedia",
                "CineVision",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CineCalibrateTests",
            dependencies: ["CineCalibrate", "CineTestSupport", "CineVision", "CineMedia", "CineGStreamer", "CineNodes", "CineGraph"],
            swiftSettings: strict),
        .testTarget(
            name: "EndToEndTests", dependencies: ["CineGStreamer", "CineMedia", "CineCalibrate", "CineVision", "CineTestSupport"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
