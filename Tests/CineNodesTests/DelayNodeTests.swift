// The delay node: frames come out `duration` later, and a graph with focus lookahead joins
// delayed frames with their focus at the bokeh node without stalling.
import CineGraph
import CineMedia
import CineNodes
import Foundation
import Testing

@Suite(.serialized) struct DelayNodeTests {
    @Test func framesComeOutDurationLater() throws {
        var h = try NodeHarness(DelayNode.self, parameters: ["duration": "0.3s"])
        var released: [(at: Int, luma: UInt8)] = []
        for i in 0..<10 {
            let out = try h.process([\.$video: grayFrame(16, 16, luma: UInt8(10 * i))], at: Timestamp(frame: i, fps: 10))
            if let v = out[\.$delayedVideo] { released.append((i, v.plane(0).row(0, as: UInt8.self)[0])) }
        }
        #expect(released.map(\.at) == Array(3..<10))
        #expect(released.map(\.luma) == (0..<7).map { UInt8(10 * $0) })
    }

    @Test func lookaheadGraphJoinsDelayedFramesWithTheirFocus() throws {
        let path = temporaryFolder("delay").appendingPathComponent("m.jsonl").path
        let graph = try Graph.parse("""
            nodes:
              camera: { kind: synthetic, size: 160x96, live: false, duration: 3s, fps: 10 }
              focus: { kind: focus, detections: camera.detections, disparity: camera.disparity, lookahead: 0.5s }
              hold: { kind: delay, video: camera.left, disparity: camera.disparity, duration: 0.5s }
              bokeh: { kind: bokeh, image: hold.delayed-video, disparity: hold.delayed-disparity, focus: focus.focus, quality: draft }
              meta: { kind: metadata, focus: bokeh.state, path: "\(path)" }
            """, registry: .standard())
        let summary = try GraphRunner(graph: graph).run()
        #expect(summary.failures.isEmpty)
        // 30 frames in, 30 rendered: what is still held at the end (the last 0.5 s) is flushed
        // by both nodes at the same instants, so the take keeps its last seconds.
        #expect(summary.nodes.first { $0.name == "bokeh" }?.processed == 30)
        #expect(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count == 30)
    }
}
