// graphs/showcase.conf as a user runs it: the nearer of two synthetic people raises a cup toward
// the lens at seeded times; the detector notices it in the stereo depth and focus racks to it,
// then back to the face when it is lowered.
import CineGStreamer
import CineMedia
import CineVision
import Foundation
import Testing

@Suite(.serialized) struct ShowcaseGraphTests {
    /// Runs `graph` on the synthetic presenter for 12 s at 640×360 (`extra` more settings) and
    /// returns the asset's records, the scene the camera played and its showings within the take.
    static func take(_ graph: String, _ extra: [String] = []) throws
        -> (records: [AssetFrameRecord], scene: SyntheticScene, showings: [ShowcaseScript.Showing]) {
        let asset = scratch(graph) + "/take.cine.mkv"
        let r = try cinegraph(["run", "graphs/\(graph).conf", "--set", "camera.size=640x360", "--set", "camera.live=false",
                               "--set", "camera.duration=12s", "--set", "asset.path=\(asset)", "--set", "viewfinder.port=0",
                               "--quiet"] + extra, timeout: 300)
        #expect(r.status == 0, "\(r.stderr)")
        let (_, records) = try AssetTrackReader.readMetadata(path: asset)
        #expect(records.count == 360)
        var c = SyntheticScene.Configuration(width: 640, height: 360, seed: 1, subjectCount: 2)
        c.talk = true
        c.showcase = true
        let scene = SyntheticScene(c)
        let showings = try #require(scene.showcase?.showings.filter { $0.lowering + ShowcaseScript.riseTime < 11 })
        try #require(!showings.isEmpty)
        return (records, scene, showings)
    }

    @Test func focusGoesToWhatIsShownAndBackToTheFace() throws {
        let (records, scene, showings) = try Self.take("showcase", ["--set", "preview.width=160"])
        var heldFrames = 0, onCup = 0, restFrames = 0, onFace = 0, shownMarked = 0
        for record in records {
            let t = Double(record.time) / 1e9
            guard let focus = record.focus?.focusDisparity else { continue }
            let holder = scene.subjects(at: t).first { $0.id == 0 }
            // Held up, from 0.5 s after it is fully raised until it is lowered: focus on the cup.
            if showings.contains(where: { t >= $0.start + ShowcaseScript.riseTime + 0.5 && t < $0.lowering }),
               let cup = scene.props(at: t).first(where: { $0.kind == .cup }) {
                heldFrames += 1
                if abs(focus - cup.disparity) <= 0.1 * cup.disparity { onCup += 1 }
                if record.detections.contains(where: { $0.shown == true }) { shownMarked += 1 }
            }
            // Down again, from 1 s after it is lowered until the next showing: focus on the holder.
            let after = showings.contains { t >= $0.lowering + ShowcaseScript.riseTime + 1 }
            let before = showings.allSatisfy { t < $0.start } || showings.contains { t >= $0.lowering + ShowcaseScript.riseTime + 1 }
            if after && before && !showings.contains(where: { t >= $0.start && t < $0.lowering + ShowcaseScript.riseTime + 1 }),
               let holder {
                restFrames += 1
                if abs(focus - holder.disparity) <= 0.1 * holder.disparity { onFace += 1 }
            }
        }
        #expect(heldFrames > 30 && Double(onCup) / Double(heldFrames) > 0.9, "focus on the cup \(onCup) of \(heldFrames)")
        #expect(Double(shownMarked) / Double(max(1, heldFrames)) > 0.9, "shown marked on \(shownMarked) of \(heldFrames)")
        #expect(restFrames > 15 && Double(onFace) / Double(restFrames) > 0.9, "focus back on the face \(onFace) of \(restFrames)")
    }
}

@Suite(.serialized) struct ShowcaseMonoGraphTests {
    /// graphs/showcase-mono.conf: one lens, the hand found by the palm detector.
    @Test func withOneLensFocusGoesToTheRaisedHandAndBack() throws {
        let (records, scene, showings) = try ShowcaseGraphTests.take("showcase-mono")
        var held = 0, onShown = 0, rest = 0, onHolder = 0
        for record in records {
            let t = Double(record.time) / 1e9
            guard let focus = record.focus?.focusDisparity else { continue }
            if showings.contains(where: { t >= $0.start + ShowcaseScript.riseTime + 0.5 && t < $0.lowering }),
               let cup = scene.props(at: t).first(where: { $0.kind == .cup }) {
                held += 1
                // The shown object over the cup, and focus on the disparity mono-depth gave it.
                if let s = record.detections.first(where: { $0.shown == true && ObjectTracker.iou($0.bounds, cup.bounds) > 0 }),
                   let d = s.disparity, abs(focus - d) <= 0.1 * d { onShown += 1 }
            }
            if showings.contains(where: { t >= $0.lowering + ShowcaseScript.riseTime + 1 && t < $0.lowering + ShowcaseScript.riseTime + 2 }),
               let holder = scene.subjects(at: t).first(where: { $0.id == 0 }) {
                rest += 1
                if let face = record.detections.first(where: { $0.type == .humanFace && ObjectTracker.iou($0.bounds, holder.face) > 0.3 }),
                   let d = face.disparity, abs(focus - d) <= 0.1 * d, !record.detections.contains(where: { $0.shown == true }) { onHolder += 1 }
            }
        }
        #expect(held > 30 && Double(onShown) / Double(held) > 0.9, "focus on the shown hand \(onShown) of \(held)")
        #expect(rest > 15 && Double(onHolder) / Double(rest) > 0.9, "focus back on the face \(onHolder) of \(rest)")
    }
}
