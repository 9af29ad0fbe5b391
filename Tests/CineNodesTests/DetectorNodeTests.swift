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
            let out = try h.process([\.$image: l, \.$disparity: map])
            last = try #require(out[\.$detections])
            if k == 0 {
                let s = scene.subjects(at: scene.time(ofFrame: f)).first { $0.body.x > 0.2 && $0.body.x + $0.body.width < 0.8 }!
                let point = "\(s.body.x + s.body.width / 2),\(s.body.y + s.body.height / 2)"
                let reply = try h.command(NodeCommand("track", arguments: ["point": point]))
                #expect(Int(reply) != nil, "track replied \(reply)")
            }
        }
        let salient = last.filter { $0.type == .salientObject }
        #expect(salient.count == 1)
        #expect(salient.first?.disparity.map { $0 > 0 } == true)
        // The focus node's vocabulary: `point=X,Y`, checked against the declaration.
        #expect(throws: NodeCommandError("track: has no argument 'x'; needs point=X,Y (usage: track point=X,Y)")) {
            try h.command(NodeCommand("track", arguments: ["x": "2"]))
        }
        #expect(throws: NodeCommandError("track: point=2,0.5 is not a point X,Y with both in 0...1 (usage: track point=X,Y)")) {
            try h.command(NodeCommand("track", arguments: ["point": "2,0.5"]))
        }
    }

    @Test func learnedFacesFindTheSyntheticSubjectsFaces() throws {
        // Frames half a second apart: no track coasts from one to the next (max-misses 1).
        var h = try NodeHarness(DetectorNode.self, parameters: ["every": "1", "max-misses": "1"])
        try h.start()
        let scene = SyntheticScene(SyntheticScene.Configuration(width: 1280, height: 720, fps: 30, seed: 1))
        var matched = 0, truthFaces = 0, found = 0, falseFaces = 0
        var previous: [NormalizedRect] = []
        for f in stride(from: 0, to: scene.frameCount, by: 15) {
            let l = Image(width: 1280, height: 720, format: .i420), r = Image(width: 1280, height: 720, format: .i420)
            scene.render(frame: f, left: l, right: r, groundTruth: nil)
            let out = try h.process([\.$image: l])
            let faces = try #require(out[\.$detections]).filter { $0.type == .humanFace }
            let truth = scene.subjects(at: scene.time(ofFrame: f)).filter(\.facingCamera).map(\.face)
                .filter { $0.width > 0.01 && $0.height > 0.01 }
            truthFaces += truth.count
            found += faces.count
            func overlaps(_ b: NormalizedRect, _ t: NormalizedRect) -> Bool {
                let iw = max(0, min(b.x + b.width, t.x + t.width) - max(b.x, t.x))
                let ih = max(0, min(b.y + b.height, t.y + t.height) - max(b.y, t.y))
                return iw * ih > 0.3 * t.width * t.height
            }
            for t in truth where faces.contains(where: { overlaps($0.bounds, t) }) { matched += 1 }
            // A track not seen this round coasts one round at its last place: the previous frame's face.
            falseFaces += faces.filter { d in !(truth + previous).contains { overlaps(d.bounds, $0) } }.count
            previous = truth
        }
        #expect(truthFaces > 10)
        #expect(Double(matched) >= 0.75 * Double(truthFaces), "matched \(matched) of \(truthFaces) faces")
        #expect(Double(falseFaces) <= 0.1 * Double(found), "\(falseFaces) of \(found) detections on no face")
    }

    @Test func missingFaceModelNamesTheParameterAndTheFile() throws {
        let h = try NodeHarness(DetectorNode.self, parameters: ["face-model": "/nonexistent/faces.tflite"])
        let e = #expect(throws: ParameterError.self) { try h.instance.preflight() }
        #expect(e.map { "\($0)".contains("face-model") && "\($0)".contains("/nonexistent/faces.tflite") } == true, "\(String(describing: e))")
        // Cascades need no model file.
        let haar = try NodeHarness(DetectorNode.self, parameters: ["model": "haar", "face-model": "/nonexistent/faces.tflite"])
        try haar.instance.preflight()
    }

    @Test func missingHOGCoefficientsNameTheParameterAndTheFile() throws {
        let h = try NodeHarness(DetectorNode.self, parameters: ["types": "humanBody", "hog-model": "/nonexistent/people.f32"])
        let e = #expect(throws: ParameterError.self) { try h.instance.preflight() }
        #expect(e.map { "\($0)".contains("hog-model") && "\($0)".contains("/nonexistent/people.f32") } == true, "\(String(describing: e))")
        // BlazePose alone needs no coefficients.
        let pose = try NodeHarness(DetectorNode.self, parameters: ["types": "humanBody", "body-model": "blazepose",
                                                                   "hog-model": "/nonexistent/people.f32"])
        try pose.instance.preflight()
    }

    @Test func aMissingPalmModelNamesTheParameterWhenShowcaseIsOn() throws {
        let h = try NodeHarness(DetectorNode.self, parameters: ["showcase": "true", "palm-model": "/nonexistent/palm.tflite"])
        let e = #expect(throws: ParameterError.self) { try h.instance.preflight() }
        #expect(e.map { "\($0)".contains("palm-model") && "\($0)".contains("/nonexistent/palm.tflite") } == true, "\(String(describing: e))")
        // Without showcase no palm model is loaded.
        try NodeHarness(DetectorNode.self, parameters: ["palm-model": "/nonexistent/palm.tflite"]).instance.preflight()
    }

    @Test func testFacesGraphValidates() throws {
        let text = try String(contentsOf: repoRoot.appendingPathComponent("graphs/faces.conf"), encoding: .utf8)
        let g = try Graph.parse(text, registry: .standard())
        #expect(g.node(named: "faces") != nil)
    }
}
