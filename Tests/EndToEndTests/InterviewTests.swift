// graphs/interview.conf as a user runs it: three synthetic people taking turns, the detector
// marking who speaks from their lips (the real models), focus following the speaker live, and
// `cinegraph render --follow speaker` re-deciding focus after the take.
import CineGStreamer
import CineMedia
import CineVision
import Foundation
import Testing

@Suite(.serialized) struct InterviewTests {
    @Test func focusFollowsWhoeverSpeaksLiveAndAfterTheTake() throws {
        let dir = scratch("interview")
        let asset = dir + "/i.cine.mkv"
        let r = try cinegraph(["run", "graphs/interview.conf", "--set", "camera.size=640x360", "--set", "camera.live=false",
                               "--set", "camera.duration=10s", "--set", "asset.path=\(asset)", "--set", "preview.width=160",
                               "--set", "viewfinder.port=0", "--set", "meta.path=\(dir)/i.jsonl", "--quiet"], timeout: 300)
        #expect(r.status == 0, "\(r.stderr)")
        let (_, records) = try AssetTrackReader.readMetadata(path: asset)
        #expect(records.count == 300)
        // The scene the camera played, for the truth.
        var c = SyntheticScene.Configuration(width: 640, height: 360, seed: 1, subjectCount: 3)
        c.talk = true
        let scene = SyntheticScene(c)
        var marked = 0, speakingFrames = 0, falseMarks = 0, silentFrames = 0, focused = 0, turnFrames = 0
        for record in records {
            let t = Double(record.time) / 1e9
            let truth = scene.subjects(at: t)
            for face in record.detections where face.type == .humanFace {
                guard let who = truth.first(where: { ObjectTracker.iou($0.face, face.bounds) > 0.3 }) else { continue }
                #expect(face.speaking != nil, "every face read by the landmark model has a verdict")
                if who.speaking {
                    speakingFrames += 1
                    if face.speaking == true { marked += 1 }
                } else {
                    silentFrames += 1
                    if face.speaking == true { falseMarks += 1 }
                }
            }
            // From 1 s into a long turn, focus is on the speaker.
            if let turn = scene.speakingTurns.first(where: { t >= $0.start + 1 && t < $0.end && $0.end - $0.start > 2 }),
               let speaker = truth.first(where: { $0.id == turn.speaker }), let focus = record.focus {
                turnFrames += 1
                if abs(focus.focusDisparity - speaker.disparity) <= 0.1 * speaker.disparity { focused += 1 }
            }
        }
        #expect(speakingFrames > 100 && Double(marked) / Double(speakingFrames) > 0.8, "\(marked) of \(speakingFrames) speaking face-frames marked")
        #expect(Double(falseMarks) / Double(max(1, silentFrames)) < 0.08, "\(falseMarks) of \(silentFrames) silent face-frames marked")
        #expect(turnFrames > 60 && Double(focused) / Double(turnFrames) > 0.85, "focus on the speaker \(focused) of \(turnFrames)")

        // After the take: the speaker rule with lookahead, rendered; every frame.
        let movie = dir + "/speakers.mp4"
        let rendered = try cinegraph(["render", asset, "--follow", "speaker", "-o", movie, "--quality", "draft", "--quiet"], timeout: 300)
        #expect(rendered.status == 0, "\(rendered.stderr)")
        #expect(try MediaProbe.inspect(path: movie).frameCount == 300)
        // The decisions it renders with: one per change of speaker, each on a speaker's group.
        let decisions = SpeakerDecisions.decisions(frames: records.map { (Timestamp(nanoseconds: $0.time), $0.detections) })
        #expect(decisions.count >= 2 && decisions.allSatisfy { $0.kind == .weakUser })

        // A take whose faces were never read for speaking says so.
        let plain = dir + "/plain.cine.mkv"
        let p = try cinegraph(["run", "graphs/asset.conf", "--set", "camera.size=320x240", "--set", "camera.live=false",
                               "--set", "camera.duration=1s", "--set", "asset.path=\(plain)", "--quiet"])
        #expect(p.status == 0, "\(p.stderr)")
        let refused = try cinegraph(["render", plain, "--follow", "speaker", "-o", dir + "/x.mp4", "--quiet"], timeout: 60)
        #expect(refused.status != 0 && refused.stderr.contains("no face in the take was read for speaking"), "\(refused.stderr)")
    }
}
