// swift-tools-version: 6.0
// An embedder's package: depends on the CineGraph library, defines a node, runs a graph from code.
import PackageDescription

let package = Package(
    name: "CustomNode",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "cinegraph", path: "../..")],
    targets: [
        .executableTarget(
            name: "timecode-demo",
            dependencies: [.product(name: "CineGraph", package: "cinegraph")],
            path: "Sources/TimecodeDemo"),
    ],
    swiftLanguageModes: [.v6]
)
