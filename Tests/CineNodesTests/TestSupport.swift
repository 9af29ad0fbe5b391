// What the node suites share: the repository root, scratch folders, raw pixel bytes.
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import CineVision
import Foundation
import Testing

/// The repository root (for graphs/ and docs/).
let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

func temporaryFolder(_ name: String) -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-tests-\(name)-\(getpid())")
    try? FileManager.default.removeItem(at: url)
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Bytes of every plane, row by row (ignores padding).
func pixelBytes(_ image: Image) -> [UInt8] {
    var out: [UInt8] = []
    for p in 0..<image.format.planeCount {
        let plane = image.plane(p)
        for y in 0..<plane.height {
            out += UnsafeBufferPointer(start: plane.row(y, as: UInt8.self), count: plane.width * plane.bytesPerSample)
        }
    }
    return out
}
