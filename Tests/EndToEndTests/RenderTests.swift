// `cinegraph render`: an asset recorded by the CLI, re-rendered with a new focus and aperture,
// the movie re-opened and compared with the original frames.
import CineGStreamer
import CineMedia
import Foundation
import Testing

@Suite(.serialized) struct RenderTests {
    @Test func renderBurnsTheNewFocusIntoEveryFrame() throws {
        let dir = scratch("render")
        let asset = dir + "/take.cine.mkv", movie = dir + "/rendered.mp4"
        let recorded = try cinegraph(["run", "graphs/asset.conf", "--set", "camera.size=320x240", "--set", "camera.live=false",
                                      "--set", "camera.duration=1s", "--set", "asset.path=\(asset)", "--quiet"])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let r = try cinegraph(["render", asset, "-o", movie, "--aperture", "1.4", "--focus-disparity", "12",
                               "--quality", "draft", "--quiet"], timeout: 120)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("rendered 30 frames"))
        let info = try MediaProbe.inspect(path: movie)
        #expect(info.frameCount == 30 && info.width == 320 && info.height == 240)
        // Focused near, the far wall is blurred: the rendered frame has less fine detail than the original.
        let original = try AssetTrackReader(path: asset, track: .video)
        let rendered = try Pipeline("filesrc location=\(movie) ! decodebin ! videoconvert ! video/x-raw,format=I420 ! appsink name=sink sync=false")
        let reader = try AppSinkReader(pipeline: rendered, name: "sink")
        try rendered.play()
        defer { rendered.stop() }
        guard let (a, _) = try original.nextImage(), case .frame(let b, _) = try reader.next(timeout: 10) else {
            Issue.record("no frames to compare")
            return
        }
        func detail(_ image: Image) -> Double {
            let p = image.plane(0)
            var sum = 0.0
            for y in 0..<p.height {
                let row = p.row(y, as: UInt8.self)
                for x in 1..<p.width { sum += abs(Double(row[x]) - Double(row[x - 1])) }
            }
            return sum / Double(p.width * p.height)
        }
        #expect(detail(b) < detail(a) * 0.8, "detail original \(detail(a)), rendered \(detail(b))")
        let bad = try cinegraph(["render", "/nonexistent.cine.mkv", "-o", movie])
        #expect(bad.status != 0 && bad.stderr.contains("no such asset"))
    }

    @Test func repairRemakesTheTakeBesideItAndRendersIt() throws {
        // A take with faces and focus: --repair writes TAKE.repaired.cine.mkv (every frame, the
        // faces found again, focus decided again) and renders it; --changes cannot ride along.
        let dir = scratch("render-repair")
        let asset = try recordSyntheticTake(dir, seconds: 4)
        let movie = dir + "/repaired.mp4"
        let r = try cinegraph(["render", asset, "--repair", "-o", movie, "--quality", "draft", "--preset", "ultrafast"], timeout: 300)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("repaired 60 frames") && r.stderr.contains("rendered 60 frames"), "\(r.stderr)")
        let repaired = dir + "/take.repaired.cine.mkv"
        let (header, records) = try AssetTrackReader.readMetadata(path: repaired)
        #expect(records.count == 60 && header.disparityWidth != nil)
        #expect(records.contains { r in r.detections.contains { $0.type == .humanFace } }, "the faces found again")
        #expect(records.allSatisfy { $0.focus != nil })
        #expect(try MediaProbe.inspect(path: movie).frameCount == 60)
        let refused = try cinegraph(["render", asset, "--repair", "--changes", dir + "/x.json", "-o", movie])
        #expect(refused.status != 0 && refused.stderr.contains("--repair finds the faces again"), "\(refused.stderr)")
    }
}
