// SpeakerDecisions: after the take, focus on whoever speaks — the speaker rule run over a
// recorded take's detections with a lookahead, written as ordinary weak user decisions.
import CineMedia

/// Turns a recorded take's detections (their `speaking` faces) into the focus decisions of the
/// speaker rule, as weak user decisions a changes file holds and a user can edit.
public enum SpeakerDecisions {
    /// The decisions of a ``FocusEngine`` with ``FocusFollow/speaker`` run over `frames` (in time
    /// order) with `lookahead` seconds (2 s: room for the longer dwell and a rack dated back),
    /// so each rack lands just before the new speaker's first word: one weak user decision per
    /// change of subject, on the subject's group.
    ///
    /// Weak, like any user decision made after the take: a recorded automatic decision later
    /// in the take still takes focus back (the script's rule); a take recorded with
    /// `follow: speaker` has no decisions that disagree.
    public static func decisions(
        frames: [(time: Timestamp, detections: Detections)], lookahead: Double = 2,
        configuration: FocusEngineConfiguration = FocusEngineConfiguration()
    ) -> [FocusDecision] {
        var c = configuration
        c.follow = .speaker
        c.lookahead = lookahead
        c.recordsFrames = false
        var engine = FocusEngine(configuration: c)
        for f in frames { _ = engine.ingest(time: f.time, detections: f.detections) }
        _ = engine.flush()
        return engine.script.decisions.compactMap { d in
            guard d.kind == .base, case .group = d.target else { return nil }
            return FocusDecision(time: d.time, target: d.target, kind: .weakUser)
        }
    }
}
