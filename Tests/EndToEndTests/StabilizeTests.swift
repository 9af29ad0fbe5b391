// `cinegraph stabilize`: a shaky movie written by GStreamer is stabilized by the binary, and the
// result re-opened: every frame, the same size, and the shake measured on the decoded frames reduced.
import CineGStreamer
import CineMedia
import Foundation
import Testing

/// A textured picture larger than the frame: smooth gratings plus 4×4 blocks of noise (corners).
private func texture(width: Int, height: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: width * height)
    var seed: UInt64 = 0x1234_5678
    var blocks = [Double](repeating: 0, count: (width / 4 + 1) * (height / 4 + 1))
    for i in blocks.indices {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        blocks[i] = Double(seed >> 40) / Double(1 << 24) * 70 - 35
    }
    for y in 0..<height {
        for x in 0..<width {
            let fx = Double(x), fy = Double(y)
            let v =
                128 + 40 * sin(fx * 0.21 + 1.3 * sin(fy * 0.07)) + 30 * cos(fy * 0.17 + 0.9 * sin(fx * 0.05))
                + blocks[(y / 4) * (width / 4 + 1) + x / 4]
            out[y * width + x] = UInt8(max(16, min(235, v)))
        }
    }
    return out
}

/// The window offset of frame `t`: a pan of 1 px per frame plus 2–5 Hz shake, whole pixels.
private func offset(_ t: Int) -> (x: Int, y: Int) {
    let s = Double(t) / 30
    let jx = 4 * sin(2 * .pi * 2.3 * s + 0.4) + 3 * sin(2 * .pi * 4.1 * s + 1.1)
    let jy = 3.5 * sin(2 * .pi * 3.1 * s + 2.0) + 2.5 * sin(2 * .pi * 4.7 * s + 0.3)
    return (t + 20 + Int(jx.rounded()), 20 + Int(jy.rounded()))
}

/// Shift of the content from `a` to `b` (luma), by SAD block matching of the central half,
/// ±12 px, refined to sub-pixel with a parabola.
private func shift(_ a: Image, _ b: Image) -> (x: Double, y: Double) {
    let pa = a.plane(0), pb = b.plane(0)
    let x0 = pa.width / 4, y0 = pa.height / 4, w = pa.width / 2, h = pa.height / 2, r = 12
    var cost = [[Double]](repeating: [Double](repeating: 0, count: 2 * r + 1), count: 2 * r + 1)
    for dy in -r...r {
        for dx in -r...r {
            var sum = 0
            for y in stride(from: y0, to: y0 + h, by: 2) {
                let ra = pa.row(y, as: UInt8.self), rb = pb.row(y + dy, as: UInt8.self)
                for x in stride(from: x0, to: x0 + w, by: 2) { sum += abs(Int(ra[x]) - Int(rb[x + dx])) }
            }
            cost[dy + r][dx + r] = Double(sum)
        }
    }
    var best = (x: 0, y: 0)
    for dy in -r...r { for dx in -r...r where cost[dy + r][dx + r] < cost[best.y + r][best.x + r] { best = (dx, dy) } }
    func refine(_ l: Double, _ c: Double, _ h: Double) -> Double {
        let d = l - 2 * c + h
        return d > 0 ? 0.5 * (l - h) / d : 0
    }
    let cx = best.x + r, cy = best.y + r
    let sx = cx > 0 && cx < 2 * r ? refine(cost[cy][cx - 1], cost[cy][cx], cost[cy][cx + 1]) : 0
    let sy = cy > 0 && cy < 2 * r ? refine(cost[cy - 1][cx], cost[cy][cx], cost[cy + 1][cx]) : 0
    return (Double(best.x) + sx, Double(best.y) + sy)
}

/// RMS change of the frame-to-frame shift (a steady pan has none; shake has much).
private func shake(of path: String) throws -> (frames: Int, shake: Double) {
    let p = try Pipeline(
        "filesrc location=\"\(path)\" ! decodebin ! videoconvert ! video/x-raw,format=I420 ! appsink name=sink sync=false"
    )
    let reader = try AppSinkReader(pipeline: p, name: "sink")
    try p.play()
    defer { p.stop() }
    var previous: Image?
    var velocities: [(x: Double, y: Double)] = []
    var frames = 0
    while case .frame(let image, _) = try reader.next(timeout: 10) {
        frames += 1
        let copy = image.copy()
        if let previous { velocities.append(shift(previous, copy)) }
        previous = copy
    }
    var sum = 0.0
    for i in 1..<velocities.count {
        let ax = velocities[i].x - velocities[i - 1].x, ay = velocities[i].y - velocities[i - 1].y
        sum += ax * ax + ay * ay
    }
    return (frames, (sum / Double(velocities.count - 1)).squareRoot())
}

@Suite(.serialized) struct StabilizeTests {
    @Test func stabilizeSmoothsAShakyMovieAndKeepsEveryFrame() throws {
        let dir = scratch("stabilize")
        let shaky = dir + "/shaky.mkv", steady = dir + "/steady.mp4"
        // 90 frames of 320×180 cut from a larger picture along a shaky path, recorded with x264.
        let tw = 480, th = 240
        let tex = texture(width: tw, height: th)
        var options = MovieRecorder.Options()
        options.bitrateKbps = 4000
        let recorder = try MovieRecorder(path: shaky, width: 320, height: 180, fps: 30, format: .i420, options: options)
        for t in 0..<90 {
            let frame = Image(width: 320, height: 180, format: .i420)
            let o = offset(t)
            for y in 0..<180 {
                tex.withUnsafeBufferPointer { src in
                    frame.plane(0).row(y).copyMemory(from: src.baseAddress! + (y + o.y) * tw + o.x, byteCount: 320)
                }
            }
            frame.plane(1).fill(byte: 128)
            frame.plane(2).fill(byte: 128)
            try recorder.append(frame, at: Timestamp(frame: t, fps: 30))
        }
        try recorder.finish(timeout: 30)

        let r = try cinegraph(["stabilize", shaky, "-o", steady, "--mode", "cinematic"], timeout: 180)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("stabilized 90 frames of 320x180"), "\(r.stderr)")
        let info = try MediaProbe.inspect(path: steady)
        #expect(info.frameCount == 90 && info.width == 320 && info.height == 180)
        #expect(abs((info.framesPerSecond ?? 0) - 30) < 0.01)
        let before = try shake(of: shaky), after = try shake(of: steady)
        #expect(before.frames == 90 && after.frames == 90)
        #expect(after.shake < 0.4 * before.shake, "shake \(before.shake) → \(after.shake) px/frame²")
    }

    @Test func unreadableInputIsAClearError() throws {
        let dir = scratch("stabilize-bad")
        let missing = try cinegraph(["stabilize", dir + "/none.mp4", "-o", dir + "/out.mp4"])
        #expect(missing.status == 1 && missing.stderr.contains("no such file"), "\(missing.stderr)")
        let text = dir + "/notes.mp4"
        try "not a movie".write(toFile: text, atomically: true, encoding: .utf8)
        let bad = try cinegraph(["stabilize", text, "-o", dir + "/out.mp4"])
        #expect(bad.status == 1 && bad.stderr.contains("GStreamer cannot read"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.mp4"))
        let mode = try cinegraph(["stabilize", text, "-o", dir + "/out.mp4", "--mode", "wobbly"])
        // The option's enum names the choices (argument-parser's words), before any file is opened.
        #expect(mode.status != 0 && mode.stderr.contains("'wobbly' is invalid for '--mode <mode>'")
                    && mode.stderr.contains("'cinematic-extended-enhanced'"), "\(mode.stderr)")
    }
}
