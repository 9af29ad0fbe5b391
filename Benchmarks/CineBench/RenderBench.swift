// Render bench: a 5 s 1080p30 cinematic asset (synthetic camera, ground-truth subjects, automatic
// focus, audio) re-rendered by `cinegraph render` — fps and real-time factor — beside the floor any
// re-render pays: GStreamer alone decoding the same H.264 track and encoding it with the same x264
// settings (no disparity, no bokeh).
import CineGStreamer
import Foundation

func runRenderBench() throws {
    print("\nrender — `cinegraph render` of a 5 s 1080p30 asset (automatic focus, audio) to H.264 MP4")
    let bin = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("cinegraph").path
    guard FileManager.default.isExecutableFile(atPath: bin) else {
        throw BenchError("build cinegraph first (make bench does): \(bin) is missing")
    }
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-bench-render-\(getpid())").path
    try? FileManager.default.removeItem(atPath: dir)
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let asset = dir + "/take.cine.mkv", conf = dir + "/record.conf"
    // Recorded live (paced at 30 fps) so that the microphone's tone has the take's length.
    try """
        nodes:
          camera: { kind: synthetic, size: 1920x1080, fps: 30, duration: 5s, live: true, seed: 3 }
          disparity: { kind: disparity, stereo: camera.stereo }
          focus: { kind: focus, detections: camera.detections, disparity: disparity.disparity }
          asset: { kind: asset, video: camera.left, disparity: disparity.disparity, detections: focus.detections,
                   focus: focus.focus, path: "\(asset)", audio: test }
        """.write(toFile: conf, atomically: true, encoding: .utf8)
    _ = try shell("\(bin) run \(conf) --quiet")
    let frames = Double(try MediaProbe.inspect(path: asset, timeout: 60).frameCount)
    let seconds = frames / 30
    report("asset recorded live at 1080p30 (disparity, focus, audio)", String(format: "%.0f of 150 frames kept", frames))
    for quality in ["standard", "high"] {
        let out = dir + "/rendered-\(quality).mp4"
        let t = try shell("\(bin) render \(asset) -o \(out) --quality \(quality) --quiet")
        report("render 1080p, bokeh \(quality): fps / real-time factor",
               String(format: "%.1f fps, %.2f× real time", frames / t, seconds / t))
    }
    let peer = try shell("gst-launch-1.0 -q filesrc location=\(asset) ! matroskademux name=d d.video_0 ! queue ! h264parse ! "
        + "avdec_h264 ! videoconvert ! video/x-raw,format=I420 ! x264enc speed-preset=veryfast tune=zerolatency key-int-max=60 "
        + "pass=qual quantizer=21 ! h264parse ! "
        + "mp4mux fragment-duration=1000 ! filesink location=\(dir)/peer.mp4")
    report("peer: gst-launch decode + x264 (the movie node's settings), no bokeh", String(format: "%.1f fps, %.2f× real time", frames / peer, seconds / peer))
}
