// The editor's "Speakers": on a recorded talk take (the synthetic camera's truth says who speaks),
// one edit adds a weak decision on each new speaker, focus then follows the speaker through the
// take, one undo takes them all back, and a take nobody was read speaking in is refused.
import CineEditor
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import CineVision
import Foundation
import Testing

@Suite(.serialized) struct EditorSpeakerTests {
    @Test func speakersFollowsWhoeverTalksAsOneUndoableEdit() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cg-edit-talk-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let asset = folder + "/talk.cine.mkv"
        // Recorded with the default (prominent) rule, so only the edit can follow the speakers.
        let yaml = """
            nodes:
              camera: { kind: synthetic, size: 640x360, live: false, duration: 12s, fps: 15, seed: 2, talk: true, subjects: 2 }
              focus: { kind: focus, detections: camera.detections, disparity: camera.disparity }
              asset: { kind: asset, video: camera.left, disparity: camera.disparity, detections: focus.detections,
                       focus: focus.focus, path: "\(asset)", fps: 15 }
            """
        let summary = try GraphRunner(graph: try Graph.parse(yaml, registry: NodeRegistry.standard())).run()
        #expect(summary.failures.isEmpty)
        var (session, _) = try EditorTests.open(asset, changes: folder + "/talk.changes.json")
        let added = try session.focusOnSpeakers()
        #expect(added >= 2)
        #expect(session.changes.decisions.count == added && session.changes.decisions.allSatisfy { $0.kind == .weakUser })
        // From 1 s into each long turn to its end, focus is on the speaker's face (truth ids: 2·id + 1).
        var c = SyntheticScene.Configuration(width: 640, height: 360, fps: 15, seed: 2, subjectCount: 2)
        c.talk = true
        let scene = SyntheticScene(c)
        var onSpeaker = 0, counted = 0
        for (i, record) in session.records.enumerated() {
            let t = Double(record.time) / 1e9
            guard let turn = scene.speakingTurns.first(where: { t >= $0.start + 1 && t < $0.end && $0.end - $0.start > 2 }) else { continue }
            counted += 1
            if session.focus[i].detectionID == 2 * turn.speaker + 1 { onSpeaker += 1 }
        }
        #expect(counted > 30 && Double(onSpeaker) / Double(counted) > 0.95, "\(onSpeaker) of \(counted) frames on the speaker")
        try session.undo()
        #expect(session.changes.decisions.isEmpty, "one undo takes them all back")

        // A take whose faces were never read for speaking is refused with the reason.
        let plain = try EditorTests.recordTake("plain-speakers")
        var (other, _) = try EditorTests.open(plain.asset, changes: plain.folder + "/c.json")
        #expect(throws: EditError.self) { _ = try other.focusOnSpeakers() }
    }
}
