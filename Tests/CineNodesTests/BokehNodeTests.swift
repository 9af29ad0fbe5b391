// The `bokeh` node through the harness: frames in, blurred frames and the focus used out;
// the focus input overrides the parameters; bad frames fail naming node and frame.
import CineGraph
import CineMedia
import CineNodes
import CineGStreamer
import CineVision
import Foundation
import Testing

@Suite struct BokehNodeTests {
    /// A 160×90 synthetic frame with subjects in view, and its exact disparity.
    func frame() -> (Image, DisparityMap, Double) {
        let scene = SyntheticScene(SyntheticScene.Configuration(width: 160, height: 90, fps: 30, seed: 1))
        var index = 0
        while scene.subjects(at: scene.time(ofFrame: index)).isEmpty && index < scene.frameCount - 1 { index += 15 }
        let l = Image(width: 160, height: 90, format: .i420), r = Image(width: 160, height: 90, format: .i420)
        let truth = Image(width: 160, height: 90, format: .float32)
        scene.render(frame: index, left: l, right: r, groundTruth: truth)
        let focus = scene.subjects(at: scene.time(ofFrame: index)).map(\.disparity).max() ?? 20
        return (l, DisparityMap(values: truth, referenceWidth: 160, referenceHeight: 90), focus)
    }

    @Test func rendersBlurredFramesAndReportsTheFocusUsed() throws {
        let (image, map, focus) = frame()
        var h = try NodeHarness(BokehNode.self, parameters: ["aperture": "1.4", "focus-disparity": "\(focus)", "max-blur": "0.05"])
        let out = try h.process(["image": image, "disparity": map])
        let video = try #require(out["video"] as? Image)
        #expect(video.width == 160 && video.height == 90 && video.format == .i420)
        #expect(pixelBytes(video) != pixelBytes(image))
        let state = try #require(out["state"] as? FocusState)
        #expect(state.fNumber == 1.4 && abs(state.focusDisparity - focus) < 1e-9)
    }

    @Test func focusInputOverridesTheParameters() throws {
        let (image, map, _) = frame()
        var h = try NodeHarness(BokehNode.self, parameters: ["aperture": "8"])
        let focus = FocusState(focusDisparity: 12, fNumber: 2, targetDetectionID: 4, transitionProgress: 0.5)
        let out = try h.process(["image": image, "disparity": map, "focus": focus])
        let state = try #require(out["state"] as? FocusState)
        #expect(state == focus)
    }

    @Test func outOfRangeApertureIsRejectedAtLoad() {
        #expect(throws: (any Error).self) { try NodeHarness(BokehNode.self, parameters: ["aperture": "0.8"]) }
        #expect(throws: (any Error).self) { try NodeHarness(BokehNode.self, parameters: ["quality": "ultra"]) }
    }

    @Test func badFramesFailNamingNodeAndFrame() throws {
        let (image, map, _) = frame()
        var h = try NodeHarness(BokehNode.self)
        _ = try h.process(["image": image, "disparity": map])
        let wide = DisparityMap(values: Image(width: 80, height: 20, format: .float32), referenceWidth: 160, referenceHeight: 90)
        do {
            _ = try h.process(["image": image, "disparity": wide], at: Timestamp(seconds: 1))
            Issue.record("a map of another aspect ratio was accepted")
        } catch let error as BokehError {
            #expect(error.description.contains("aspect ratio"))
        }
        let nan = map.values.copy()
        nan.plane(0).row(3, as: Float.self)[4] = .nan
        #expect(throws: BokehError.self) {
            _ = try h.process(["image": image, "disparity": DisparityMap(values: nan, referenceWidth: 160, referenceHeight: 90),
                               "focus": FocusState(focusDisparity: 10)])
        }
        #expect(throws: BokehError.self) {
            _ = try h.process(["image": image, "disparity": map, "focus": FocusState(focusDisparity: 10, fNumber: 40)])
        }
    }

    @Test func bokehGraphValidates() throws {
        let g = try Graph.load(contentsOf: repoRoot.appendingPathComponent("graphs/bokeh.conf").path, registry: .standard())
        #expect(g.nodes.map(\.name).sorted() == ["bokeh", "camera", "movie", "still"])
    }

    @Test func portraitToolRendersAStillFromAPFM() throws {
        let binary = repoRoot.appendingPathComponent(".build/debug/cinegraph").path
        guard FileManager.default.isExecutableFile(atPath: binary) else { return }
        let folder = temporaryFolder("bokeh-cli")
        let (image, map, focus) = frame()
        let input = folder.appendingPathComponent("in.png").path, pfm = folder.appendingPathComponent("d.pfm").path
        let output = folder.appendingPathComponent("out.png").path
        try StillSinkNode.write(image, to: input)
        // A half-resolution map in the Middlebury convention: disparities in its own pixels.
        let half = Image(width: 80, height: 45, format: .float32)
        for y in 0..<45 {
            for x in 0..<80 { half.plane(0).row(y, as: Float.self)[x] = map.values.plane(0).row(2 * y, as: Float.self)[2 * x] / 2 }
        }
        half.plane(0).row(0, as: Float.self)[0] = .infinity
        try PortableFloatMap(values: half).write(to: pfm)
        func run(_ arguments: [String]) throws -> (Int32, String) {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: binary)
            p.arguments = arguments
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = pipe
            try p.run()
            let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            return (p.terminationStatus, text)
        }
        let (status, text) = try run(["bokeh", input, "--disparity", pfm, "--focus-disparity", "\(focus / 2)",
                                      "--aperture", "2", "-o", output])
        #expect(status == 0, "\(text)")
        #expect(try MediaProbe.inspect(path: output).width == 160)
        let (pointStatus, _) = try run(["bokeh", input, "--disparity", pfm, "--focus-point", "80,45", "-o", output])
        #expect(pointStatus == 0)
        let (badStatus, badText) = try run(["bokeh", input, "--disparity", pfm, "--focus-disparity", "3", "--aperture", "0.5",
                                            "-o", output])
        #expect(badStatus != 0 && badText.contains("--aperture"))
    }
}
