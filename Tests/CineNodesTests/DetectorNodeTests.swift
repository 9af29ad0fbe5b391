// DetectorNode tests: parameters checked before the first frame (unknown types, missing
// cascade files), detections with stable IDs over frames of the synthetic camera, the
// salient-object command, and the graph in graphs/faces.conf.
import CineGraph
import CineMedia
import CineNodes
import CineVision
import Foundation
import Testing

@Suite(.serialized) struct DetectorNodeTests {
    static var haveOpenCVData: Bool { FileManager.default.fileExists(atPath: "/usr/share/opencv4/haarcascades") }

    @Test func testUnknownTypeFailsAtLoad() {
        #expect(throws: ParameterError.self) { try NodeHarness(DetectorNode.self, parameters: ["types": "dragonFace"]) }
    }

    @Test func testMissingCascadeFailsBeforeTheFirstFrame() throws {
        let h = try NodeHarness(DetectorNode.self, parameters: ["cascades": "/nonexistent/mine.xml"])
        let e = #expect(throws: ParameterError.self) { try h.instance.preflight() }
        #expect(e.map { "\($0)".contains("/nonexistent/mine.xml") } == true)
    }

    @Test(.enabled(if: haveOpenCVData))
    func testTracksSyntheticSubjectsAndASalientObject() throws {
        var h = try NodeHarness(DetectorNode.self, parameters: ["types": "humanFace", "detect-width": "160", "every": "2",
                                                                "min-size": "20", "profiles": "false"])
        try h.start()
        let scene = SyntheticScene(SyntheticScene.Configuration(width: 320, height: 180, fps: 15, seed: 1))
        let f = try #require((0..<scene.frameCount).first { f in
            scene.subjects(at: scene.time(ofFrame: f)).contains { $0.body.x > 0.2 && $0.body.x + $0.body.width < 0.8 }
        })
        var last: Detections = []
        for k in 0..<3 {
            let l = Image(width: 320, height: 180, format: .i420), r = Image(width: 320, height: 180, format: .i420)
            let truth = Image(width: 320, height: 180, format: .float32)
            scene.render(frame: f + k, left: l, right: r, groundTruth: truth)
            let map = DisparityMap(values: truth, referenceWidth: 320, referenceHeight: 180)
            let out = try h.process(["image": l, "disparity": map])
            last = try #require(out["detections"] as? Detections)
            if k == 0 {
                let s = scene.subjects(at: scene.time(ofFrame: f)).first { $0.body.x > 0.2 && $0.body.x + $0.body.width < 0.8 }!
                let reply = try h.command(NodeCommand("track", arguments: ["x": "\(s.body.x + s.body.width / 2)",
                                                                           "y": "\(s.body.y + s.body.height / 2)"]))
                #expect(Int(reply) != nil, "track replied \(reply)")
            }
        }
        let salient = last.filter { $0.type == .salientObject }
        #expect(salient.count == 1)
        #expect(salient.first?.disparity.map { $0 > 0 } == true)
        #expect(throws: NodeCommandError.self) { try h.command(NodeCommand("track", arguments: ["x": "2"])) }
    }

    @Test func testFacesGraphValidates() throws {
        let text = try String(contentsOf: repoRoot.appendingPathComponent("graphs/faces.conf"), encoding: .utf8)
        let g = try Graph.parse(text, registry: .standard())
        #expect(g.node(named: "faces") != nil)
    }
}
