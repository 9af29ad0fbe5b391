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
    ///
    /// `voice` is the take's sound as the voice detector heard it (fed the whole recording):
    /// where it heard no voice, no face counts as speaking, whatever its lips did (a take
    /// recorded with a microphone but read by the lips alone: chewing, a smile, silent
    /// mouthing). Where the sound was not heard (none recorded, or before it starts) the
    /// recorded marks stand.
    public static func decisions(
        frames: [(time: Timestamp, detections: Detections)], voice: VoiceActivityDetector? = nil, lookahead: Double = 2,
        configuration: FocusEngineConfiguration = FocusEngineConfiguration()
    ) -> [FocusDecision] {
        let frames = voice.map { gated(frames, by: $0) } ?? frames
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

    /// `frames` with every face's `speaking` cleared where `voice` heard no voice.
    public static func gated(_ frames: [(time: Timestamp, detections: Detections)], by voice: VoiceActivityDetector)
        -> [(time: Timestamp, detections: Detections)]
    {
        frames.map { f in
            guard voice.activity(at: f.time.seconds)?.active == false else { return f }
            var d = f.detections
            for i in d.indices where d[i].speaking == true {
                d[i].speaking = false
                d[i].speakingScore = 0
                d[i].speakingFor = nil
            }
            return (f.time, d)
        }
    }

    /// The voice detector fed `sound` (a take's whole recording), or `nil` without sound.
    public static func voice(of sound: AudioBlock?) -> VoiceActivityDetector? {
        guard let sound else { return nil }
        var v = VoiceActivityDetector()
        v.feed(sound)
        return v
    }
}
