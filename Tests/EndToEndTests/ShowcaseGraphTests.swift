// graphs/showcase.conf as a user runs it: the nearer of two synthetic people raises a cup toward
// the lens at seeded times; the detector notices it in the stereo depth and focus racks to it,
// then back to the face when it is lowered.
import CineGStreamer
import CineMedia
import CineVision
import Foundation
import Testing

@Suite(.serialized) struct ShowcaseGraphTests {
    @Test func focusGoesToWhatIsShownAndBackToTheFace() throws {
        let dir = scratch("showcase")
        let asset = dir + "/s.cine.mkv"
        let r = try cinegraph(["run", "graphs/showcase.conf", "--set", "camera.size=640x360", "--set", "camera.live=false",
                               "--set", "camera.duration=12s", "--set", "asset.path=\(asset)", "--set", "preview.width=160",
                               "--set", "viewfinder.port=0", "--quiet"], timeout: 300)
        #expect(r.status == 0, "\(r.stderr)")
        let (_, records) = try AssetTrackReader.readMetadata(path: asset)
        #expect(records.count == 360)
        var c = SyntheticScene.Configuration(width: 640, height: 360, seed: 1, subjectCount: 2)
        c.talk = true
        c.showcase = true
        let scene = SyntheticScene(c)
        let showings = try #require(scene.showcase?.showings.filter { $0.lowering + ShowcaseScript.riseTime < 11 })
        try #require(!showings.isEmpty)
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
