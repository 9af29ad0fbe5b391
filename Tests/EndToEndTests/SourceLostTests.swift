// A source that vanishes mid-take — a camera unplugged, a file cut short — ends the run with a
// message naming the node, the frame and what happened, and every output is finalized with what
// was captured: the files are re-opened and their frames counted.
import CineGStreamer
import CineMedia
import Foundation
import Testing

/// The frame count a sink reported in its `…-saved frames=N path=P` line, for `path`.
private func savedFrames(_ stderr: String, _ path: String) -> Int? {
    for line in stderr.split(separator: "\n") where line.hasSuffix("path=\(path)") && line.contains("-saved frames=") {
        let field = line.split(separator: " ").first { $0.hasPrefix("frames=") }
        return field.flatMap { Int($0.dropFirst("frames=".count)) }
    }
    return nil
}

@Suite(.serialized) struct SourceLostTests {
    /// A camera whose GStreamer source fails after 45 buffers, as `v4l2src` does when the device
    /// is unplugged (it posts an error, then ends the stream).
    @Test func cameraUnpluggedMidTakeFinalizesEveryOutput() throws {
        let dir = scratch("unplugged")
        let config = """
            graph: unplugged
            nodes:
              camera:
                kind: camera
                source: "videotestsrc is-live=true pattern=ball ! identity error-after=45"
                size: 640x180
                fps: 30
              disparity: { kind: disparity, stereo: camera.stereo, scale: 0.5 }
              asset: { kind: asset, video: camera.left, disparity: disparity.disparity, path: \(dir)/take.cine.mkv }
              movie: { kind: movie, video: camera.left, path: \(dir)/take.mp4 }
              faces: { kind: detector, image: camera.left }
              meta: { kind: metadata, detections: faces.detections, path: \(dir)/take.jsonl }
            """
        try config.write(toFile: "\(dir)/unplugged.conf", atomically: true, encoding: .utf8)
        // The release binary when `make test` names it: the take's queues hold up to 45 frames,
        // and every frame the camera delivered is matched after the loss — in a debug build that
        // backlog takes minutes.
        let r = try cinegraph(["run", "\(dir)/unplugged.conf"], timeout: 120, executable: releaseBinary ?? binary)
        #expect(r.status != 0, "a lost camera is not a normal end")
        #expect(r.stderr.contains("error: node 'camera' (camera) failed at frame"), "\(r.stderr)")
        #expect(r.stderr.contains("the camera stopped delivering frames after 44"), "\(r.stderr)")
        // Every output was finalized: re-opened, it holds what its sink said it saved.
        let movieFrames = try #require(savedFrames(r.stderr, "\(dir)/take.mp4"), "\(r.stderr)")
        #expect(movieFrames >= 30 && movieFrames <= 44)
        #expect(try MediaProbe.inspect(path: "\(dir)/take.mp4").frameCount == movieFrames)
        let assetFrames = try #require(savedFrames(r.stderr, "\(dir)/take.cine.mkv"), "\(r.stderr)")
        #expect(assetFrames > 0)
        #expect(try MediaProbe.inspect(path: "\(dir)/take.cine.mkv").frameCount == assetFrames)
        let records = try String(contentsOfFile: "\(dir)/take.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(!records.isEmpty && records.allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") })
    }

    /// A Matroska movie cut in half: the frames before the cut are processed, the movie made of
    /// them is complete, and the run says the file is truncated rather than ending quietly.
    @Test func truncatedFileEndsWithAMessageAndAFinalizedMovie() throws {
        let dir = scratch("truncated")
        let full = "\(dir)/full.mkv", cut = "\(dir)/cut.mkv"
        let p = try Pipeline(
            "videotestsrc num-buffers=90 pattern=ball ! video/x-raw,width=640,height=180,framerate=30/1 "
                + "! x264enc speed-preset=ultrafast key-int-max=15 ! matroskamux ! filesink location=\(full)")
        try p.play()
        _ = try p.waitForEndOfStream(timeout: 60)
        p.stop()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: full))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))

        let config = """
            graph: truncated
            nodes:
              src: { kind: file, path: \(cut), layout: side-by-side }
              movie: { kind: movie, video: src.left, path: \(dir)/out.mp4 }
            """
        try config.write(toFile: "\(dir)/truncated.conf", atomically: true, encoding: .utf8)
        let r = try cinegraph(["run", "\(dir)/truncated.conf", "--quiet"], timeout: 120)
        #expect(r.status != 0)
        let line = try #require(r.stderr.split(separator: "\n").first { $0.hasPrefix("error: node 'src' (file)") }, "\(r.stderr)")
        #expect(line.contains("\(cut) ends at") && line.contains("its header says 3.000 s") && line.contains("truncated"))
        // "the N frames before the cut were processed": the movie holds exactly those.
        let n = try #require(line.split(separator: " ").firstIndex(of: "frames").map { Int(line.split(separator: " ")[$0 - 1]) } ?? nil)
        #expect(n > 15 && n < 90)
        #expect(try MediaProbe.inspect(path: "\(dir)/out.mp4").frameCount == n)

        // The whole file still ends normally.
        try config.replacingOccurrences(of: cut, with: full).write(toFile: "\(dir)/full.conf", atomically: true, encoding: .utf8)
        let whole = try cinegraph(["run", "\(dir)/full.conf", "--quiet"], timeout: 120)
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(try MediaProbe.inspect(path: "\(dir)/out.mp4").frameCount == 90)
    }
}
