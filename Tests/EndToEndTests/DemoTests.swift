// `cinegraph demo` as a newcomer runs it (the release binary `make demo` builds): every camera
// frame in the take and the render, a real rack focus between two subjects, a blurred background
// behind a sharp subject, the plot and the contact sheet on disk.
import CineGStreamer
import CineMedia
import Foundation
import Testing

/// The release `cinegraph` that `make demo` runs: `make test` passes its path (a debug build
/// renders the 1280×720 demo 50× slower).
let releaseBinary = ProcessInfo.processInfo.environment["CINEGRAPH_RELEASE_BIN"]

/// The release binary `make test` names, or nil with the test failed saying how to run it.
func requiredReleaseBinary() -> String? {
    guard let releaseBinary, FileManager.default.isExecutableFile(atPath: releaseBinary) else {
        Issue.record("CINEGRAPH_RELEASE_BIN must name the release cinegraph: run the tests with `make test`")
        return nil
    }
    return releaseBinary
}

@Suite(.serialized) struct DemoTests {
    @Test func demoRecordsRendersPlotsAndDrawsAContactSheet() throws {
        guard let releaseBinary = requiredReleaseBinary() else { return }
        let dir = scratch("demo")
        let r = try cinegraph(["demo", "--out", dir, "--quiet"], timeout: 300, executable: releaseBinary)
        #expect(r.status == 0, "\(r.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir)
        func file(_ suffix: String) -> String? { files.first { $0.hasSuffix(suffix) }.map { dir + "/" + $0 } }
        guard let asset = file(".cine.mkv"), let movie = file(".mp4"), let plot = file(".focus.svg"),
              let sheet = file(".sheet.png")
        else {
            Issue.record("the demo left \(files)")
            return
        }
        // Nothing lost: the camera's 10 s at 30 fps are all in the take and in the render.
        let (_, records) = try AssetTrackReader.readMetadata(path: asset)
        #expect(records.count == 300)
        let rendered = try MediaProbe.inspect(path: movie)
        #expect(rendered.frameCount == 300 && rendered.width == 1280 && rendered.height == 720)
        #expect(r.stdout.contains("300 of 300 camera frames recorded"), "\(r.stdout)")

        // At least one rack: focus moves from one subject to another over several frames.
        let racks = DemoFacts.racks(in: records)
        #expect(!racks.isEmpty, "no rack between two subjects")
        for rack in racks {
            #expect(rack.frames >= 4, "a rack of \(rack.frames) frames is a jump: \(rack)")
            #expect(rack.largestStep <= 0.4 * rack.distance, "focus jumped \(rack.largestStep) px of \(rack.distance): \(rack)")
        }

        // A blurred background behind a sharp subject, where focus sits on the nearest subject.
        guard let (index, subject) = DemoFacts.frameFocusedOnNearSubject(records) else {
            Issue.record("no frame with focus on a subject well in front of the wall")
            return
        }
        let original = try AssetTrackReader(path: asset, track: .video)
        var originalFrame: Image?
        for _ in 0...index { originalFrame = try original.nextImage()?.0 }
        var renderedFrame: Image?
        try ImageFile.forEachFrame(ofMovie: movie) { i, frame in
            if i == index { renderedFrame = frame.copy() }
            return i < index
        }
        guard let a = originalFrame, let b = renderedFrame else {
            Issue.record("frame \(index) could not be read back")
            return
        }
        let wall = NormalizedRect(x: 0.02, y: 0.02, width: 0.3, height: 0.25)
        // The middle of the face box: its edges hold some of the blurred wall around the head.
        let face = NormalizedRect(x: subject.x + 0.2 * subject.width, y: subject.y + 0.2 * subject.height,
                                  width: 0.6 * subject.width, height: 0.6 * subject.height)
        let sharpness = DemoFacts.detail(b, in: face) / DemoFacts.detail(a, in: face)
        let blur = DemoFacts.detail(b, in: wall) / DemoFacts.detail(a, in: wall)
        #expect(blur < 0.6, "background detail kept: \(blur) at frame \(index)")
        #expect(sharpness > 0.8, "subject detail kept: \(sharpness) at frame \(index)")

        // The pictures: an SVG chart with the focus line, a PNG sheet of 4×2 tiles and the strip.
        let svg = try String(contentsOfFile: plot, encoding: .utf8)
        #expect(svg.contains("<svg") && svg.contains("class=\"focus\""))
        var sheetSize: (Int, Int)?
        try ImageFile.forEachFrame(ofMovie: sheet, format: .rgba8) { _, image in
            sheetSize = (image.width, image.height)
            return false
        }
        #expect(sheetSize?.0 == 1640 && sheetSize?.1 == 604, "contact sheet \(String(describing: sheetSize))")
        #expect(r.stdout.contains("Next:") && r.stdout.contains("cinegraph script \(asset) list"))
    }
}

/// What the demo test measures in a take.
enum DemoFacts {
    struct Rack: CustomStringConvertible {
        var start: Int
        var frames: Int
        var distance: Double
        var largestStep: Double
        var description: String {
            String(format: "rack at frame %d over %d frames, %.1f px, largest step %.1f px", start, frames, distance, largestStep)
        }
    }

    /// Changes of focus target between two subjects at least 5 px apart, with how focus moved:
    /// frames from the change until focus is within 10 % of the new subject, and the largest
    /// step between two frames on the way.
    static func racks(in records: [AssetFrameRecord]) -> [Rack] {
        var out: [Rack] = []
        for i in 1..<records.count {
            guard let a = records[i - 1].focus?.targetDetectionID, let b = records[i].focus?.targetDetectionID, a != b,
                  let from = records[i - 1].focus?.focusDisparity,
                  let to = records[i].detections.first(where: { $0.id == b })?.disparity, abs(to - from) >= 5
            else { continue }
            let distance = abs(to - from)
            var step = 0.0, end = i
            var previous = from
            while end < records.count, let f = records[end].focus?.focusDisparity {
                step = max(step, abs(f - previous))
                previous = f
                if abs(f - to) <= 0.1 * distance { break }
                end += 1
            }
            out.append(Rack(start: i, frames: end - i + 1, distance: distance, largestStep: step))
        }
        return out
    }

    /// A frame whose focus target is a subject at least twice the wall's disparity, settled
    /// (transition done), and that subject's box.
    static func frameFocusedOnNearSubject(_ records: [AssetFrameRecord]) -> (Int, NormalizedRect)? {
        for (i, r) in records.enumerated() {
            guard let f = r.focus, f.transitionProgress >= 1, let id = f.targetDetectionID,
                  let d = r.detections.first(where: { $0.id == id }), let v = d.disparity, v >= 30,
                  abs(f.focusDisparity - v) < 2, d.bounds.width > 0.04 else { continue }
            return (i, d.bounds)
        }
        return nil
    }

    /// Mean absolute horizontal luma difference inside `rect`: fine detail, which blur removes.
    static func detail(_ image: Image, in rect: NormalizedRect) -> Double {
        let p = image.plane(0)
        let x0 = Int(rect.x * Double(image.width)), x1 = min(image.width, Int((rect.x + rect.width) * Double(image.width)))
        let y0 = Int(rect.y * Double(image.height)), y1 = min(image.height, Int((rect.y + rect.height) * Double(image.height)))
        var sum = 0.0, n = 0
        for y in y0..<y1 {
            let row = p.row(y, as: UInt8.self)
            for x in (x0 + 1)..<x1 {
                sum += abs(Double(row[x]) - Double(row[x - 1]))
                n += 1
            }
        }
        return n > 0 ? sum / Double(n) : 0
    }
}
