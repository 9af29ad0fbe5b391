// The focus node's viewfinder commands (`tap`, `press`, `track`) with and without the video
// input, their errors, scene monitoring on the synthetic camera's light drop (event and focus
// state), and a running graph that answers bad commands with errors and keeps going.
import CineGraph
import CineMedia
import CineNodes
import CineVision
import Foundation
import Testing

/// A 64×36 map: the wall at 10 px, a vase at 30 px over x 0.75…0.85, y 0.55…0.85.
private func vase() -> DisparityMap {
    let values = ImagePool().makeImage(width: 64, height: 36, format: .float32)
    for y in 0..<36 {
        for x in 0..<64 {
            values.plane(0).row(y, as: Float.self)[x] = (48..<54).contains(x) && (20..<31).contains(y) ? 30 : 10
        }
    }
    return DisparityMap(values: values, referenceWidth: 640, referenceHeight: 360)
}

/// A flat grey frame (no edges: the region grows on disparity alone).
private func grey() -> Image {
    let image = ImagePool().makeImage(width: 64, height: 36, format: .gray8)
    image.plane(0).fill(byte: 110)
    return image
}

/// One subject's body over x 0.1…0.3 at 40 px.
private let person: Detections = [
    Detection(
        id: 2, groupID: 1, type: .humanBody, bounds: NormalizedRect(x: 0.1, y: 0.2, width: 0.2, height: 0.7),
        disparity: 40)
]

@Suite struct FocusNodeGestureTests {
    /// Sends `text` commands in order between frames of the vase scene; returns the replies
    /// (or `error: …`) and the last frame's outputs.
    private func run(_ commands: [(String, [String: String])], video: Bool = true)
        throws -> (replies: [String], last: SentPackets<FocusNode>)
    {
        // A dwell, so that automatic focus has not chosen the subject when the first tap comes.
        var h = try NodeHarness(FocusNode.self, parameters: ["acquire-dwell": "0.1s"])
        try h.start()
        var inputs: PortValues<FocusNode> = [\.$detections: person, \.$disparity: vase()]
        if video { inputs[\.$video] = grey() }
        var frame = 0
        var last = try h.process(inputs, at: Timestamp(frame: frame, fps: 30))
        var replies: [String] = []
        for (name, args) in commands {
            do { replies.append(try h.command(NodeCommand(name, arguments: args))) } catch {
                #expect(error is NodeCommandError)
                replies.append("error: \(error)")
            }
            frame += 1
            last = try h.process(inputs, at: Timestamp(frame: frame, fps: 30))
        }
        return (replies, last)
    }

    struct CommandCase: Sendable, CustomTestStringConvertible {
        var name: String
        var commands: [(String, [String: String])]
        var video = true
        /// The replies, in order (`error: ` + a fragment for errors).
        var replies: [String]
        var testDescription: String { name }
    }

    static let cases: [CommandCase] = [
        CommandCase(
            name: "tapTwiceOnASubjectThenAgain",
            commands: [("tap", ["point": "0.2,0.5"]), ("tap", ["point": "0.2,0.5"]), ("tap", ["point": "0.2,0.5"])],
            // Automatic focus has not chosen yet (dwell): the first tap is on a rectangle not in focus.
            replies: [
                "weak focus on detection 2", "strong focus on detection 2", "detection 2 already has strong focus",
            ]),
        CommandCase(
            name: "tapOnEmptySpaceTracksTheObjectThere",
            commands: [("tap", ["point": "0.8,0.7"])],
            replies: ["weak tracking focus on salient object 1000001 at 0.8,0.7"]),
        CommandCase(
            name: "tapOnEmptySpaceWithoutVideoFallsBackToFixedFocus",
            commands: [("tap", ["point": "0.8,0.7"])], video: false,
            replies: ["no video input: weak fixed focus at disparity 30.0"]),
        CommandCase(
            name: "tapOnTheBareWallFallsBackToFixedFocus",
            commands: [("tap", ["point": "0.5,0.1"])],
            replies: ["no object at 0.5,0.1: weak fixed focus at disparity 10.0"]),
        CommandCase(
            name: "longPressLocksThePlane",
            commands: [("press", ["point": "0.05,0.1"])],
            replies: ["strong fixed focus at disparity 10.0"]),
        CommandCase(
            name: "trackStrongAtAPoint",
            commands: [("track", ["point": "0.8,0.7", "strong": "true"])],
            replies: ["strong tracking focus on salient object 1000001 at 0.8,0.7"]),
        CommandCase(
            name: "badInputIsAClearErrorAndTheNodeCarriesOn",
            commands: [
                ("tap", ["point": "1.5,0.2"]), ("tap", [:]), ("press", ["point": "left"]), ("focus", ["id": "99"]),
                ("aperture", ["value": "40"]), ("track", ["point": "0.05,0.1"]), ("focus", ["id": "2"]),
            ],
            replies: [
                "error: tap: point=1.5,0.2 is not a point X,Y with both in 0...1 (usage: tap point=X,Y)",
                "error: tap: needs point=X,Y (usage: tap point=X,Y)",
                "error: press: point=left is not a point X,Y with both in 0...1 (usage: press point=X,Y)",
                "error: focus: no detection with id 99",
                "error: aperture: value=40 is out of range 1.4...16.0 (usage: aperture F)", "error: track: no object at 0.05,0.1",
                "weak focus on detection 2",
            ]),
        CommandCase(
            name: "trackNeedsTheVideo",
            commands: [("track", ["point": "0.8,0.7"])], video: false,
            replies: ["error: track: needs the video input"]),
    ]

    @Test(arguments: cases) func commands(_ c: CommandCase) throws {
        let (replies, _) = try run(c.commands, video: c.video)
        #expect(replies.count == c.replies.count)
        for (got, want) in zip(replies, c.replies) {
            if want.hasPrefix("error: ") {
                #expect(got.hasPrefix(want), "\(c.name): \(got)")
            } else {
                #expect(got == want, "\(c.name)")
            }
        }
    }

    @Test func theSalientObjectIsReportedAndFocused() throws {
        let (_, last) = try run([("tap", ["point": "0.8,0.7"])])
        let detections = try #require(last[\.$focusedDetections])
        let salient = try #require(detections.first { $0.type == .salientObject })
        #expect(salient.id == 1_000_001 && salient.focusMode == .weak)
        #expect((last[\.$focus])?.targetDetectionID == salient.id)
    }

    @Test func aDraggedBoxIsTrackedByItsLook() throws {
        var h = try NodeHarness(FocusNode.self)
        try h.start()
        // A textured picture (a look to follow) over the vase scene's disparity.
        let picture = ImagePool().makeImage(width: 64, height: 36, format: .gray8)
        for y in 0..<36 {
            for x in 0..<64 { picture.plane(0).row(y, as: UInt8.self)[x] = UInt8((x * 37 + y * 91 + (x * y) % 13) % 200 + 20) }
        }
        let inputs: PortValues<FocusNode> = [\.$detections: person, \.$disparity: vase(), \.$video: picture]
        _ = try h.process(inputs, at: Timestamp(frame: 0, fps: 30))
        #expect(try h.command(NodeCommand("track-box", arguments: ["box": "0.75,0.55,0.1,0.3"]))
                == "weak tracking focus on salient object 1000001 in the box")
        let o = try h.process(inputs, at: Timestamp(frame: 1, fps: 30))
        let salient = try #require(o[\.$focusedDetections]?.first { $0.type == .salientObject })
        #expect(abs(salient.bounds.x - 0.75) < 0.03 && abs(salient.bounds.width - 0.1) < 0.03 && salient.focusMode == .weak)
        #expect(abs((salient.disparity ?? 0) - 30) < 1)
        // A box reaching outside the frame is refused by the declaration; a flat one has nothing to follow.
        #expect(throws: NodeCommandError.self) { try h.command(NodeCommand("track-box", arguments: ["box": "0.9,0.5,0.2,0.3"])) }
        var flat = try NodeHarness(FocusNode.self)
        try flat.start()
        _ = try flat.process([\.$detections: person, \.$disparity: vase(), \.$video: grey()])
        #expect(throws: NodeCommandError.self) { try flat.command(NodeCommand("track-box", arguments: ["box": "0.75,0.55,0.1,0.3"])) }
    }

    @Test func tapWithoutDisparityIsAClearError() throws {
        var h = try NodeHarness(FocusNode.self, parameters: ["acquire-dwell": "0.1s"])
        try h.start()
        _ = try h.process([\.$detections: person])
        #expect(throws: NodeCommandError.self) { try h.command(NodeCommand("tap", arguments: ["point": "0.8,0.7"])) }
        #expect(try h.command(NodeCommand("tap", arguments: ["point": "0.2,0.5"])) == "weak focus on detection 2")
    }

    @Test func lightDropIsReportedInTheFocusStateAndAsAnEvent() throws {
        var c = SyntheticScene.Configuration(width: 320, height: 180, fps: 10, seed: 1)
        c.lightDrop = SyntheticScene.LightDrop(start: 2, duration: 3, level: 0.05)
        let scene = SyntheticScene(c)
        var h = try NodeHarness(FocusNode.self, parameters: ["lookahead": "0.5s"])
        try h.start()
        var dark: [Double] = []
        for i in 0..<80 {
            let l = ImagePool().makeImage(width: 320, height: 180, format: .i420)
            let r = ImagePool().makeImage(width: 320, height: 180, format: .i420)
            scene.render(frame: i, left: l, right: r, groundTruth: nil)
            let o = try h.process([\.$detections: Detections(), \.$video: l], at: Timestamp(frame: i, fps: 10))
            if let f = o[\.$focus], f.sceneStatuses.contains(.notEnoughLight) {
                dark.append(Double(i) / 10 - 0.5)  // the output describes the frame 0.5 s earlier
            }
        }
        let events = h.events.filter { $0.name == "scene" }
        #expect(events.map { $0.fields["statuses"] } == ["notEnoughLight", ""])
        let entered = try #require(events.first?.timestamp.seconds), left = try #require(events.last?.timestamp.seconds)
        #expect((2.4...3.2).contains(entered) && (5.0...6.2).contains(left), "\(entered) \(left)")
        // The focus states carry the status for the frames they describe.
        #expect(abs((dark.first ?? 0) - entered) < 1e-6 && abs((dark.last ?? 0) - (left - 0.1)) < 1e-6, "\(dark)")
    }

    @Test func graphReportsSceneStatusesInMetadataAndSurvivesBadCommands() async throws {
        let path = temporaryFolder("focus-scene").appendingPathComponent("m.jsonl").path
        let graph = try Graph.parse(
            """
            nodes:
              camera: { kind: synthetic, size: 320x180, live: true, duration: 30s, fps: 15, subjects: 2, light-drop-at: 2s, light-drop-for: 2s, light-drop-level: 0.05 }
              focus: { kind: focus, detections: camera.detections, disparity: camera.disparity, video: camera.left }
              meta: { kind: metadata, detections: focus.detections, focus: focus.focus, path: "\(path)" }
            """, registry: .standard())
        let runner = GraphRunner(graph: graph)
        let seen = SceneEvents()
        runner.subscribe { e in if e.name == "scene" { seen.append(e.fields["statuses"] ?? "?") } }
        runner.start()
        // Commands go in once frames flow (the metadata file has lines).
        for _ in 0..<100 where ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) == 0 {
            try await Task.sleep(for: .milliseconds(50))
        }
        // Each refusal names what was wrong with the command.
        for (name, args, named) in [
            ("tap", ["point": "7,7"], "7,7"), ("focus", ["id": "12345"], "12345"), ("aperture", ["value": "0.5"], "0.5"),
            ("zoom", [:], "zoom"),
        ] {
            do {
                _ = try await runner.send(.command(NodeCommand(name, arguments: args)), to: "focus")
                Issue.record("\(name): no error")
            } catch {
                #expect("\(error)".contains(named), "\(name): \(error)")
            }
        }
        #expect(
            try await runner.send(.command(NodeCommand("press", arguments: ["point": "0.5,0.1"])), to: "focus")
                .hasPrefix("strong fixed focus at disparity"))
        // The camera runs long so that a busy machine still answers the commands; stop once the light is back.
        for _ in 0..<300 where seen.values.count < 2 { try await Task.sleep(for: .milliseconds(100)) }
        runner.drain()
        let summary = await runner.finished()
        #expect(summary.failures.isEmpty)
        #expect(seen.values == ["notEnoughLight", ""])
        struct Line: Decodable { var time: Int64; var focus: FocusState; var sceneStatus: [String] }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            .map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        #expect(lines.count > 70)  // at least up to the light's return; live edges may drop a frame on a busy machine
        let dark = lines.filter { $0.sceneStatus == ["notEnoughLight"] }
        #expect(!dark.isEmpty && dark.allSatisfy { $0.focus.sceneStatuses == .notEnoughLight })
        let first = Double(dark.first?.time ?? 0) / 1e9, last = Double(dark.last?.time ?? 0) / 1e9
        #expect((2.4...3.2).contains(first) && (4.0...5.2).contains(last), "\(first) \(last)")
        #expect(lines.first?.sceneStatus == [] && lines.last?.sceneStatus == [])
    }
}

/// Events collected on node threads.
final class SceneEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ s: String) { lock.withLock { list.append(s) } }
    var values: [String] { lock.withLock { list } }
}
