// CineBench talk: who is speaking, on the synthetic camera's talk scenes (2 and 3 people taking
// turns by a seeded script) — speaking detection per face against the truth, and focus with
// `follow: speaker` live and after the take (with a lookahead), scored against who speaks.
import CineGStreamer
import CineMedia
import CineVision
import Dispatch
import Foundation

/// One talk take's tallies.
struct TalkScore {
    /// Face-frames: speaking in the truth / of those marked speaking; silent / of those marked speaking.
    var speakingFrames = 0, speakingFound = 0, silentFrames = 0, silentMarked = 0
    /// Frames from 0.5 s into each turn to its end, and those with focus within 10 % of the speaker's disparity.
    var turnFrames = 0, turnFocused = 0
    /// Racks (base decisions after the first) and those no turn explains; minutes of take.
    var racks = 0, unexplained = 0, minutes = 0.0
    /// Turns of under 0.7 s (a one-word reply), and those focus racked to.
    var shortTurns = 0, shortRacked = 0

    mutating func add(_ o: TalkScore) {
        speakingFrames += o.speakingFrames; speakingFound += o.speakingFound; silentFrames += o.silentFrames
        silentMarked += o.silentMarked; turnFrames += o.turnFrames; turnFocused += o.turnFocused
        racks += o.racks; unexplained += o.unexplained; minutes += o.minutes
        shortTurns += o.shortTurns; shortRacked += o.shortRacked
    }
}

/// The detector's work on one take, as the `detector` node does it (BlazeFace with tiles and the
/// landmark model every 3rd frame, the tracker in between, the speaking detector on the mouths),
/// with each face's disparity taken from the truth: per frame, the detections.
/// Returns them twice: the lips deciding alone, and gated by the voice a microphone in the scene
/// hears (``VoiceActivityDetector`` on ``SyntheticScene/sound(first:count:sampleRate:)``, fed a
/// frame's sound at a time as the camera node sends it), with the voice detector's own tallies.
func talkDetections(scene: SyntheticScene, faces: BlazeFaceDetector, landmarker: FaceLandmarker,
                    meshCost: inout [Double], mouthCost: inout [Double], voice: inout VoiceTally) throws
    -> (lips: [Detections], voiced: [Detections], heard: [Bool])
{
    let w = scene.configuration.width, h = scene.configuration.height
    var tracker = ObjectTracker()
    var sc = SpeakingDetector.Configuration()
    let env = ProcessInfo.processInfo.environment
    if let v = env["TALK_HOLD"].flatMap(Double.init) { sc.hold = v }
    if let v = env["TALK_MIN"].flatMap(Int.init) { sc.minimumOpenings = v }
    if let v = env["TALK_THRESHOLD"].flatMap(Double.init) { sc.openingThreshold = v }
    let every = env["TALK_EVERY"].flatMap(Int.init) ?? 10, mouthEvery = env["TALK_MOUTH"].flatMap(Int.init) ?? 2
    var speakers = SpeakingDetector(configuration: sc)
    var vad = VoiceActivityDetector()
    let rate = 48_000
    var out: [Detections] = [], voiced: [Detections] = [], heardFrames: [Bool] = []
    let left = Image(width: w, height: h, format: .i420), right = Image(width: w, height: h, format: .i420)
    for f in 0..<scene.frameCount {
        let t = scene.time(ofFrame: f)
        scene.render(frame: f, left: left, right: right, groundTruth: nil)
        let truth = scene.subjects(at: t)
        let first = Int((t * Double(rate)).rounded()), next = Int((scene.time(ofFrame: f + 1) * Double(rate)).rounded())
        let heardSound = scene.sound(first: first, count: next - first, sampleRate: rate)
        let v0 = now()
        vad.feed(heardSound, sampleRate: rate, start: Double(first) / Double(rate))
        voice.cost.append((now() - v0) * 1000)
        let heard = vad.activity(at: t)?.active
        let level = vad.activity(at: t)?.level
        heardFrames.append(heard == true)
        if let heard {
            let talking = truth.contains { $0.speaking }
            if talking { voice.speaking += 1; if heard { voice.found += 1 } } else { voice.silent += 1; if heard { voice.marked += 1 } }
        }
        if f % every == 0 {
            let t0 = now()
            let found = try landmarker.confirmed(try faces.detect(left, tiles: 2), in: left, minScore: 0.5, minPresence: 0.5)
            meshCost.append((now() - t0) * 1000)
            let obs = found.map { m in
                TrackerObservation(type: .humanFace, bounds: m.face.bounds, confidence: m.face.score, facing: m.mesh.pose.facing,
                                   disparity: truth.max { ObjectTracker.iou($0.face, m.face.bounds) < ObjectTracker.iou($1.face, m.face.bounds) }?.disparity,
                                   mouthOpening: FaceMesh.mouthOpening(m.mesh))
            }
            _ = tracker.update(obs)
            for m in tracker.mouthOpenings() { speakers.observe(id: m.id, time: t, opening: m.opening, voiceLevel: level) }
        } else {
            _ = tracker.predict()
            if mouthEvery > 0 && f % mouthEvery == 0 {
                let t0 = now()
                for d in tracker.report() where d.type == .humanFace && d.facing != .away {
                    let m = try landmarker.mesh(in: d.bounds, of: left)
                    if m.presence >= 0.5 { speakers.observe(id: d.id, time: t, opening: FaceMesh.mouthOpening(m), voiceLevel: level) }
                }
                mouthCost.append((now() - t0) * 1000)
            }
        }
        for (gate, list) in [(nil, 0), (heard, 1)] as [(Bool?, Int)] {
            var d = tracker.report()
            let states = speakers.states(of: d.map(\.id), at: t, voice: gate)
            for i in d.indices {
                guard let s = states[d[i].id] else { continue }
                d[i].speaking = s.speaking
                d[i].speakingScore = s.score
                d[i].speakingFor = s.speaking ? s.evidence : nil
            }
            if list == 0 { out.append(d) } else { voiced.append(d) }
        }
        vad.forget(before: t - 5)
    }
    return (out, voiced, heardFrames)
}

/// The voice detector against the truth: frames with someone speaking and those it heard a
/// voice on; frames with no one speaking and those it heard a voice on.
struct VoiceTally {
    var speaking = 0, found = 0, silent = 0, marked = 0
    /// Milliseconds the voice detector took per frame's sound.
    var cost: [Double] = []
}

/// Scores speaking detection and the speaker rule's focus on one take.
func scoreTalk(scene: SyntheticScene, detections: [Detections], lookahead: Double) -> TalkScore {
    scoreTalkWithFocus(scene: scene, detections: detections, lookahead: lookahead).score
}

/// ``scoreTalk(scene:detections:lookahead:)`` and the focus disparity of every frame.
func scoreTalkWithFocus(scene: SyntheticScene, detections: [Detections], lookahead: Double) -> (score: TalkScore, focus: [Double]) {
    var s = TalkScore()
    var c = FocusEngineConfiguration()
    c.follow = .speaker
    c.lookahead = lookahead
    if let v = ProcessInfo.processInfo.environment["TALK_DWELL"].flatMap(Double.init) { c.speakerDwell = v }
    var engine = FocusEngine(configuration: c)
    var focus: [Double] = []
    for (f, d) in detections.enumerated() {
        for o in engine.ingest(time: Timestamp(seconds: scene.time(ofFrame: f)), detections: d) { focus.append(o.focus.focusDisparity) }
    }
    for o in engine.flush() { focus.append(o.focus.focusDisparity) }
    let turns = scene.speakingTurns
    // Which truth subject each detection is: the face it overlaps most.
    func subject(of det: Detection, at f: Int) -> SyntheticSubject? {
        scene.subjects(at: scene.time(ofFrame: f)).filter { ObjectTracker.iou($0.face, det.bounds) > 0.3 }
            .max { ObjectTracker.iou($0.face, det.bounds) < ObjectTracker.iou($1.face, det.bounds) }
    }
    for (f, d) in detections.enumerated() {
        let t = scene.time(ofFrame: f)
        for det in d where det.type == .humanFace {
            guard let truth = subject(of: det, at: f) else { continue }
            let marked = det.speaking == true
            if truth.speaking {
                s.speakingFrames += 1
                if marked { s.speakingFound += 1 }
            } else {
                s.silentFrames += 1
                if marked { s.silentMarked += 1 }
            }
        }
        if let turn = turns.first(where: { t >= $0.start + 0.5 && t < $0.end }),
           let speaker = scene.subjects(at: t).first(where: { $0.id == turn.speaker }), f < focus.count {
            s.turnFrames += 1
            if abs(focus[f] - speaker.disparity) <= 0.1 * speaker.disparity { s.turnFocused += 1 }
        }
    }
    // Racks: base decisions after the first; explained when the subject racked to has a turn
    // around it (under way, or starting within 1.5 s before to 0.5 s after).
    let bases = engine.script.decisions.filter { $0.kind == .base }
    for (k, dec) in bases.enumerated() where k > 0 {
        guard case .group(let g) = dec.target else { s.racks += 1; s.unexplained += 1; continue }
        s.racks += 1
        let f = min(detections.count - 1, max(0, Int((dec.time.seconds * scene.configuration.fps).rounded())))
        let near = (max(0, f - 6)...min(detections.count - 1, f + 6)).lazy.compactMap { i in
            detections[i].first { $0.groupID == g && $0.type == .humanFace }.flatMap { subject(of: $0, at: i) }
        }.first
        let t = dec.time.seconds
        let turn = near.flatMap { who in turns.first { $0.speaker == who.id && $0.start - 0.5 <= t && t <= $0.end + 0.5 } }
        if turn == nil { s.unexplained += 1 }
        if let turn, turn.end - turn.start < 0.7 { s.shortRacked += 1 }
    }
    s.shortTurns = turns.filter { $0.end - $0.start < 0.7 }.count
    s.minutes = scene.configuration.duration / 60
    return (s, focus)
}

/// A picture of one take over time: per person, who speaks (grey: the truth) and who the
/// detector marked (colour); below, each person's disparity (thin lines in their colour) and
/// focus live (black) and after the take (dashed blue). Written as PNG through a PPM.
func plotTalk(scene: SyntheticScene, detections: [Detections], heard: [Bool], live: [Double], after: [Double], to path: String) throws {
    let n = detections.count, people = scene.configuration.subjectCount
    let width = 1200, rowH = 26, plotH = 220, margin = 10
    let height = margin * 3 + (people + 1) * (rowH + 6) + plotH
    var px = [UInt8](repeating: 255, count: width * height * 3)
    func put(_ x: Int, _ y: Int, _ c: (UInt8, UInt8, UInt8)) {
        guard x >= 0, x < width, y >= 0, y < height else { return }
        let i = (y * width + x) * 3
        (px[i], px[i + 1], px[i + 2]) = c
    }
    let colours: [(UInt8, UInt8, UInt8)] = [(214, 96, 38), (46, 140, 80), (130, 70, 180), (30, 120, 200)]
    func x(of f: Int) -> Int { margin + f * (width - 2 * margin) / max(1, n - 1) }
    for f in 0..<n {
        let t = scene.time(ofFrame: f)
        let truth = scene.subjects(at: t)
        for p in 0..<people {
            let top = margin + p * (rowH + 6)
            let speaking = truth.first { $0.id == p }?.speaking ?? false
            let marked = detections[f].contains { d in
                d.speaking == true && truth.first { $0.id == p }.map { ObjectTracker.iou($0.face, d.bounds) > 0.3 } == true
            }
            for y in top..<(top + rowH / 2) where speaking { put(x(of: f), y, (170, 170, 170)) }
            for y in (top + rowH / 2)..<(top + rowH) where marked { put(x(of: f), y, colours[p % 4]) }
        }
        // The microphone: a voice heard (black), under the people's rows.
        let top = margin + people * (rowH + 6)
        for y in (top + rowH / 4)..<(top + 3 * rowH / 4) where f < heard.count && heard[f] { put(x(of: f), y, (40, 40, 40)) }
    }
    let plotTop = margin * 2 + (people + 1) * (rowH + 6)
    let disparities = scene.subjects(at: 0).map(\.disparity)
    let lo = (disparities.min() ?? 0) * 0.8, hi = (disparities.max() ?? 1) * 1.1
    func y(of d: Double) -> Int { plotTop + plotH - Int((d - lo) / (hi - lo) * Double(plotH)) }
    for (p, d) in disparities.enumerated() {
        for f in 0..<n { put(x(of: f), y(of: d), colours[p % 4]) }
    }
    // Connected traces: each frame's column spans from the last frame's value to this one's.
    func trace(_ values: [Double], offset: Int, dashed: Bool, _ colour: (UInt8, UInt8, UInt8)) {
        for f in 0..<min(n, values.count) where !dashed || (f / 4) % 2 == 0 {
            let a = y(of: values[f]) + offset, b = y(of: values[max(0, f - 1)]) + offset
            for yy in min(a, b)...(max(a, b) + 1) { put(x(of: f), yy, colour) }
        }
    }
    trace(live, offset: 0, dashed: false, (0, 0, 0))
    trace(after, offset: -4, dashed: true, (30, 60, 230))
    let ppm = path + ".ppm"
    var data = Data("P6\n\(width) \(height)\n255\n".utf8)
    data.append(contentsOf: px)
    try data.write(to: URL(fileURLWithPath: ppm))
    _ = try shell("ffmpeg -loglevel error -y -i '\(ppm)' '\(path)' && rm '\(ppm)'")
}

func runTalkBench() throws {
    let faces = try BlazeFaceDetector(threads: 2)
    let landmarker = try FaceLandmarker(threads: 2)
    let seeds = (ProcessInfo.processInfo.environment["TALK_SEEDS"].map { Int($0) ?? 5 } ?? 5)
    let duration = 40.0
    print("talk scenes: 1280x720 30 fps, \(Int(duration)) s, seeds 1...\(seeds); detector as graphs/interview.conf runs it (faces every 10th frame, mouths every 2nd)"
          + (ProcessInfo.processInfo.environment["TALK_CHEWING"] != nil ? "; a listener chews during half the long turns (TALK_CHEWING)" : ""))
    var meshCost: [Double] = [], mouthCost: [Double] = []
    for subjects in (ProcessInfo.processInfo.environment["TALK_PEOPLE"].map { $0.split(separator: ",").compactMap { Int($0) } } ?? [2, 3]) {
        var live = TalkScore(), after = TalkScore(), lipsAlone = TalkScore(), lipsAloneAfter = TalkScore()
        var voice = VoiceTally()
        for seed in 1...seeds {
            var c = SyntheticScene.Configuration(width: 1280, height: 720, seed: UInt64(seed), duration: duration, subjectCount: subjects)
            c.talk = true
            c.chewing = ProcessInfo.processInfo.environment["TALK_CHEWING"] != nil
            let scene = SyntheticScene(c)
            let both = try talkDetections(scene: scene, faces: faces, landmarker: landmarker, meshCost: &meshCost,
                                          mouthCost: &mouthCost, voice: &voice)
            lipsAlone.add(scoreTalk(scene: scene, detections: both.lips, lookahead: 0))
            lipsAloneAfter.add(scoreTalk(scene: scene, detections: both.lips, lookahead: 2))
            let d = both.voiced
            let (l, liveFocus) = scoreTalkWithFocus(scene: scene, detections: d, lookahead: 0)
            let (a, afterFocus) = scoreTalkWithFocus(scene: scene, detections: d, lookahead: 2)
            if seed == 1, let plot = ProcessInfo.processInfo.environment["TALK_PLOT"] {
                try plotTalk(scene: scene, detections: d, heard: both.heard, live: liveFocus, after: afterFocus,
                             to: "\(plot)-\(subjects).png")
            }
            print(String(format: "  %d people seed %d: speaking found %.1f %%, false %.1f %%; focus on the speaker live %.1f %%, after %.1f %%; racks %d/%d, unexplained %d/%d",
                         subjects, seed, 100 * Double(l.speakingFound) / Double(max(1, l.speakingFrames)),
                         100 * Double(l.silentMarked) / Double(max(1, l.silentFrames)),
                         100 * Double(l.turnFocused) / Double(max(1, l.turnFrames)),
                         100 * Double(a.turnFocused) / Double(max(1, a.turnFrames)), l.racks, a.racks, l.unexplained, a.unexplained) + " short replies racked to \(l.shortRacked)/\(l.shortTurns)")
            live.add(l)
            after.add(a)
        }
        report("talk \(subjects) people: voice heard (the microphone alone) on frames someone speaks / no one speaks",
               String(format: "%.1f %% / %.1f %%; the voice detector %.3f ms a frame (median)", 100 * Double(voice.found) / Double(max(1, voice.speaking)),
                      100 * Double(voice.marked) / Double(max(1, voice.silent)), median(voice.cost)))
        report("talk \(subjects) people, lips alone (no microphone): speaking found / false; focus live / after",
               String(format: "%.1f %% / %.1f %%; %.1f %% / %.1f %%", 100 * Double(lipsAlone.speakingFound) / Double(max(1, lipsAlone.speakingFrames)),
                      100 * Double(lipsAlone.silentMarked) / Double(max(1, lipsAlone.silentFrames)),
                      100 * Double(lipsAlone.turnFocused) / Double(max(1, lipsAlone.turnFrames)),
                      100 * Double(lipsAloneAfter.turnFocused) / Double(max(1, lipsAloneAfter.turnFrames))))
        report("talk \(subjects) people: speaking frames found", String(format: "%.1f %% (target ≥ 90 %%)", 100 * Double(live.speakingFound) / Double(max(1, live.speakingFrames))))
        report("talk \(subjects) people: silent frames marked speaking", String(format: "%.1f %% (target ≤ 5 %%)", 100 * Double(live.silentMarked) / Double(max(1, live.silentFrames))))
        report("talk \(subjects) people: focus on the speaker, live", String(format: "%.1f %% of speaking time from 0.5 s into each turn (target ≥ 90 %%)", 100 * Double(live.turnFocused) / Double(max(1, live.turnFrames))))
        report("talk \(subjects) people: focus on the speaker, after the take (lookahead 2 s, as render --follow speaker)", String(format: "%.1f %% (target ≥ 95 %%)", 100 * Double(after.turnFocused) / Double(max(1, after.turnFrames))))
        report("talk \(subjects) people: racks no turn explains", String(format: "live %.2f, after %.2f a minute (target ≤ 1)", Double(live.unexplained) / live.minutes, Double(after.unexplained) / after.minutes))
        report("talk \(subjects) people: one-word replies (turns under 0.7 s) focus racked to", "live \(live.shortRacked) of \(live.shortTurns), after \(after.shortRacked) of \(after.shortTurns) (aim: none)")
    }
    report("talk: faces + meshes per detection round", String(format: "%.1f ms median at 1280x720 (BlazeFace on tiles + the landmark model per face)", median(meshCost)))
    report("talk: mouths read between detections", String(format: "%.1f ms median per reading of all faces (the landmark model alone; the speaking detector itself: a few comparisons a face)", median(mouthCost)))
}

/// `TALK_ASSET=take.cine.mkv CineBench talk-take`: a take recorded live by graphs/interview.conf
/// (the synthetic camera's seed 1, 3 people, at the take's size) scored against the scene's truth —
/// speaking found and false, focus on the speaker from 0.5 s into each turn, frames kept.
func runTalkTakeBench() throws {
    guard let path = ProcessInfo.processInfo.environment["TALK_ASSET"] else { throw BenchError("set TALK_ASSET to a take of graphs/interview.conf") }
    let (header, records) = try AssetTrackReader.readMetadata(path: path)
    // The scene at the take's own size: disparities scale with it.
    var c = SyntheticScene.Configuration(width: header.referenceWidth, height: header.referenceHeight, seed: 1, subjectCount: 3)
    c.talk = true
    let scene = SyntheticScene(c)
    var s = TalkScore()
    for record in records {
        let t = Double(record.time) / 1e9
        let truth = scene.subjects(at: t)
        for face in record.detections where face.type == .humanFace {
            guard let who = truth.first(where: { ObjectTracker.iou($0.face, face.bounds) > 0.3 }) else { continue }
            if who.speaking { s.speakingFrames += 1; if face.speaking == true { s.speakingFound += 1 } }
            else { s.silentFrames += 1; if face.speaking == true { s.silentMarked += 1 } }
        }
        if let turn = scene.speakingTurns.first(where: { t.truncatingRemainder(dividingBy: 20) >= $0.start + 0.5 && t.truncatingRemainder(dividingBy: 20) < $0.end }),
           let speaker = truth.first(where: { $0.id == turn.speaker }), let focus = record.focus {
            s.turnFrames += 1
            if abs(focus.focusDisparity - speaker.disparity) <= 0.1 * speaker.disparity { s.turnFocused += 1 }
        }
    }
    report("talk take \(path)", String(format: "%d frames; speaking found %.1f %%, false %.1f %%; focus on the speaker %.1f %% from 0.5 s into each turn",
                                      records.count, 100 * Double(s.speakingFound) / Double(max(1, s.speakingFrames)),
                                      100 * Double(s.silentMarked) / Double(max(1, s.silentFrames)), 100 * Double(s.turnFocused) / Double(max(1, s.turnFrames))))
}
