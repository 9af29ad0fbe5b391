// ToolsBench: the tools as a user runs them — `cinegraph disparity` on a real stereo pair and
// `cinegraph detect` on one real photo, whole processes (start-up, image decoding, model
// loading, writing the result), each beside the OpenCV script that does the same job.
import Foundation

/// `CineBench tools`: whole-process medians of the two tools and their OpenCV peers, and the
/// tools' fixed cost (whole process minus the work itself).
func runToolsBench() throws {
    print("\ntools — whole processes as a user runs them, beside OpenCV scripts doing the same job")
    let runs = Int(ProcessInfo.processInfo.environment["BENCH_TOOLS_RUNS"] ?? "") ?? 9
    let bin = ".build/release/cinegraph"
    let python = try benchPython()
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cinebench-tools").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    // Real media from scikit-image: the Middlebury motorcycle pair (741×500) and the astronaut
    // photo framed to 640×480 as a JPEG.
    _ = try capture("""
        \(python) -c "import cv2; from skimage import data; l, r, _ = data.stereo_motorcycle(); \
        cv2.imwrite('\(dir)/left.png', cv2.cvtColor(l, cv2.COLOR_RGB2GRAY)); \
        cv2.imwrite('\(dir)/right.png', cv2.cvtColor(r, cv2.COLOR_RGB2GRAY)); \
        a = cv2.resize(data.astronaut()[:, :, ::-1], (640, 640), interpolation=cv2.INTER_AREA); \
        cv2.imwrite('\(dir)/photo.jpg', a[40:520], [cv2.IMWRITE_JPEG_QUALITY, 92])"
        """)

    // Each command spawned directly and timed from spawn to exit, as a user's shell runs it.
    func wall(_ command: String) throws -> (seconds: Double, output: String) {
        let seconds = try spawnWall(command.split(separator: " ").map(String.init), output: "\(dir)/out.txt")
        return (seconds, (try? String(contentsOfFile: "\(dir)/out.txt", encoding: .utf8)) ?? "")
    }
    // Each pair of runs back to back (ours, then the peer), so a busy machine slows both alike.
    func pairs(_ ours: String, _ peer: String) throws -> (ours: [Double], peer: [Double], oursText: [String]) {
        var a: [Double] = [], b: [Double] = [], text: [String] = []
        _ = try wall(ours); _ = try wall(peer)  // warm the page cache
        for _ in 0..<runs {
            let run = try wall(ours)
            a.append(run.seconds)
            text.append(run.output)
            b.append(try wall(peer).seconds)
        }
        return (a, b, text)
    }

    let threads = ProcessInfo.processInfo.activeProcessorCount
    let disparity = try pairs(
        "\(bin) disparity \(dir)/left.png \(dir)/right.png -o \(dir)/ours.pfm --max-disparity 128",
        "\(python) Benchmarks/peers/sgbm_tool.py \(dir)/left.png \(dir)/right.png \(dir)/peer.pfm 128 \(threads)")
    // The tool prints its matching time: "disparity: 741x500, 59 ms".
    let matching = disparity.oursText.compactMap { text -> Double? in
        guard let r = text.range(of: #", [0-9.]+ ms"#, options: .regularExpression) else { return nil }
        return Double(text[r].dropFirst(2).dropLast(3))
    }
    let (whole, peerWhole, match) = (median(disparity.ours) * 1000, median(disparity.peer) * 1000, median(matching))
    report("disparity 741x500 whole process: cinegraph | OpenCV SGBM_3WAY",
           String(format: "%.0f | %.0f ms  (OpenCV/cinegraph %.2fx)", whole, peerWhole, peerWhole / whole))
    report("  cinegraph disparity: matching | fixed cost (aim ≤ 30 ms)",
           String(format: "%.0f | %.0f ms", match, whole - match))

    let detect = try pairs("\(bin) detect \(dir)/photo.jpg", "\(python) Benchmarks/peers/cascade_tool.py \(dir)/photo.jpg")
    let (ours, peer) = (median(detect.ours) * 1000, median(detect.peer) * 1000)
    report("detect 640x480 photo whole process: cinegraph | OpenCV Haar (aim ≤ 120 ms)",
           String(format: "%.0f | %.0f ms  (OpenCV/cinegraph %.2fx)", ours, peer, peer / ours))
    let start = median(try (0..<runs).map { _ in try wall("\(bin) --version").seconds }) * 1000
    report("  cinegraph start-up alone (--version)", String(format: "%.0f ms", start))
}
