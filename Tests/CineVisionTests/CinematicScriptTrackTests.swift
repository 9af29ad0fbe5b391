// Tracks in the cinematic script: detected tracks from the frames, fixed-disparity and custom
// tracks as edits, decisions ending with their track, the transition after a decision, the
// versioned JSON with tracks (and version 1 without), and the errors of bad edits and files.
import CineMedia
import CineVision
import Foundation
import Testing

/// A custom track moving right at disparity 30 → 50 over `range` (samples every 0.5 s).
func customSamples(_ range: ClosedRange<Double>) -> [FocusTrackSample] {
    stride(from: range.lowerBound, through: range.upperBound, by: 0.5).map { t in
        let p = (t - range.lowerBound) / max(range.upperBound - range.lowerBound, 1e-9)
        return FocusTrackSample(
            time: ts(t), bounds: NormalizedRect(x: 0.1 + 0.4 * p, y: 0.3, width: 0.2, height: 0.3),
            disparity: 30 + 20 * p)
    }
}

@Suite struct CinematicScriptTrackTests {
    @Test func detectedTracksComeFromTheFramesWithTheirExtent() throws {
        let s = try scriptWithFrames(until: 6, [(1, 80, 0...6), (2, 50, 1...5)])
        let tracks = s.detectedTracks()
        #expect(tracks.map(\.id) == [2, 4])  // body IDs 2·group
        #expect(tracks.map(\.kind) == [.detected, .detected])
        #expect(tracks.map(\.groupID) == [1, 2])
        #expect(tracks[1].extent == ts(1)...ts(5))
        #expect(tracks[1].type == .humanBody)
        #expect(s.track(id: 4) == tracks[1])
        #expect(s.track(id: 99) == nil)
    }

    @Test func aCustomTracksGapHasNoBoxButKeepsItsPlane() throws {
        // Seen from 1 to 2 s and from 4 to 5 s (samples every 0.5 s), hidden in between.
        var s = try scriptWithFrames(until: 6, [(1, 80, 0...6)])
        let track = try s.addCustomTrack(customSamples(1...2) + customSamples(4...5))
        #expect(!track.isInGap(ts(1.5)) && !track.isInGap(ts(4)) && track.isInGap(ts(3)))
        #expect(track.detection(at: ts(1.5)) != nil && track.detection(at: ts(3)) == nil)
        // Focus holds the plane across the gap: interpolated between the samples either side.
        #expect(track.disparity(at: ts(3)) == 40)
        #expect(track.extent == ts(1)...ts(5))
    }

    @Test func addedTracksGetFreshIDsAndTheirDisparity() throws {
        var s = try scriptWithFrames(until: 6, [(1, 80, 0...6)])
        let fixed = try s.addFixedTrack(disparity: 12.5)
        let custom = try s.addCustomTrack(customSamples(2...4))
        #expect(fixed.id == 3 && custom.id == 4)  // above body 2 and group 1
        #expect(fixed.kind == .fixedDisparity && fixed.type == .fixedFocus && fixed.extent == nil)
        #expect(custom.kind == .custom && custom.extent == ts(2)...ts(4))
        #expect(s.tracks.map(\.id) == [2, 3, 4])
        #expect(custom.disparity(at: ts(3)) == 40)  // interpolated halfway
        #expect(custom.disparity(at: ts(4.5)) == nil)
        let moving = try #require(custom.detection(at: ts(3)))
        #expect(moving.type == .custom && moving.id == custom.id && abs(moving.bounds.x - 0.3) < 1e-9)
        #expect(fixed.disparity(at: ts(100)) == 12.5)
    }

    /// Decisions as (time, target, kind) on the frames of groups 1 (80 px, 0…10 s) and 2 (50 px,
    /// 0…5 s), with a fixed track at 20 px (id 5) and a custom track 2…4 s (id 6); expectations as
    /// (time, focus disparity once landed).
    struct TrackCase: Sendable, CustomTestStringConvertible {
        var name: String
        var decisions: [(Double, FocusTarget, FocusDecisionKind)]
        var expect: [(Double, Double)]
        var testDescription: String { name }
    }

    static let trackCases: [TrackCase] = [
        TrackCase(
            name: "strongOnCustomTrackEndsWithItsExtentAndBaseResumes",
            decisions: [(1, .group(1), .base), (2.5, .detection(6), .strongUser)],
            // The track ends at 4 s (50 px): the rack back to the base's 80 px lands then — 30 px
            // at 80 px/s, 0.375 s from 3.625 s, leaving the track at 46.25 px.
            expect: [(1.5, 80), (3, 40), (3.5, 45), (3.75, 46.25 + 33.75 * FocusRack.ease(1.0 / 3)), (4, 80), (8, 80)]),
        TrackCase(
            name: "strongOnFixedTrackIgnoresLaterBaseDecisions",
            decisions: [(1, .group(1), .base), (2, .detection(5), .strongUser), (6, .group(2), .base)],
            expect: [(1.1, 80), (4, 20), (9, 20)]),
        TrackCase(
            name: "weakOnFixedTrackYieldsToTheNextBaseDecision",
            decisions: [(1, .group(1), .base), (2, .detection(5), .weakUser), (4, .group(2), .base)],
            expect: [(3, 20), (4.5, 50)]),
        TrackCase(
            name: "strongOnDetectedSubjectEndsWhenItLeaves",
            decisions: [(1, .group(1), .base), (2, .detection(4), .strongUser)],
            expect: [(3, 50), (4.2, 50), (6, 80)]),
    ]

    @Test(arguments: trackCases) func decisionsOnTracks(_ c: TrackCase) throws {
        var s = try scriptWithFrames([(1, 80, 0...10), (2, 50, 0...5)])
        #expect(try s.addFixedTrack(disparity: 20).id == 5)
        #expect(try s.addCustomTrack(customSamples(2...4)).id == 6)
        for (t, target, kind) in c.decisions {
            let d = FocusDecision(time: ts(t), target: target, kind: kind)
            if kind.isUser { try s.addUserDecision(d) } else { s.add(d) }
        }
        for (t, d) in c.expect {
            let f = try #require(s.focusDisparity(at: ts(t)), "\(c.name) at \(t)s")
            #expect(abs(f - d) < 1e-9, "\(c.name) at \(t)s: \(f)")
        }
    }

    @Test func transitionAfterADecisionIsTheRackToTheNextOne() throws {
        var s = try scriptWithFrames([(1, 80, 0...10), (2, 50, 0...10)])
        let a = FocusDecision(time: ts(1), target: .group(1), kind: .base)
        let b = FocusDecision(time: ts(5), target: .group(2), kind: .base)
        let weak = FocusDecision(time: ts(3), target: .group(2), kind: .weakUser)
        s.add(a)
        s.add(b)
        #expect(s.transitionTimeRange(after: a) == ts(4.625)..<ts(5))  // 30 px at 80 px/s: 0.375 s, landing at 5 s
        #expect(s.transitionTimeRange(after: a) == s.transitionTimeRange(before: b))
        #expect(s.transitionTimeRange(after: b) == nil)  // nothing follows
        try s.addUserDecision(weak)
        #expect(s.transitionTimeRange(after: a) == ts(2.625)..<ts(3))
        // b now follows a decision on the same subject: no distance, the shortest rack.
        #expect(s.transitionTimeRange(after: weak) == ts(4.67)..<ts(5))
    }

    @Test func removingATrackRemovesItsDecisions() throws {
        var s = try scriptWithFrames(until: 4, [(1, 80, 0...4)])
        let fixed = try s.addFixedTrack(disparity: 20)
        try s.addUserDecision(FocusDecision(time: ts(1), target: .detection(fixed.id), kind: .strongUser))
        try s.addUserDecision(FocusDecision(time: ts(2), target: .group(1), kind: .weakUser))
        try s.removeTrack(id: fixed.id)
        #expect(s.userTracks.isEmpty)
        #expect(s.decisions.map(\.target) == [.group(1)])
        #expect(throws: CinematicScriptError.notAUserTrack(2)) { try s.removeTrack(id: 2) }  // a detected track
    }

    struct BadEdit: Sendable, CustomTestStringConvertible {
        var name: String
        var edit: @Sendable (inout CinematicScript) throws -> Void
        var error: CinematicScriptError
        var testDescription: String { name }
    }

    static let badEdits: [BadEdit] = [
        BadEdit(
            name: "decisionOnAMissingDetection",
            edit: { try $0.addUserDecision(FocusDecision(time: ts(1), target: .detection(42), kind: .weakUser)) },
            error: .missingTrack(42)),
        BadEdit(
            name: "decisionOnAMissingGroup",
            edit: { try $0.addUserDecision(FocusDecision(time: ts(1), target: .group(9), kind: .strongUser)) },
            error: .missingTrack(9)),
        BadEdit(
            name: "customTrackWithoutSamples", edit: { try $0.addCustomTrack([]) },
            error: .invalidTrack("custom track has no samples")),
        BadEdit(
            name: "customTrackOutOfOrder", edit: { try $0.addCustomTrack(customSamples(1...2).reversed()) },
            error: .invalidTrack("custom track: samples out of time order at 1.500s")),
        BadEdit(
            name: "customTrackOutsideTheFrame",
            edit: {
                try $0.addCustomTrack([
                    FocusTrackSample(
                        time: ts(1), bounds: NormalizedRect(x: 0.9, y: 0, width: 0.2, height: 0.1), disparity: 5)
                ])
            },
            error: .invalidTrack("custom track: bounds at 1.000s are outside 0...1")),
        BadEdit(
            name: "fixedTrackAtANegativeDisparity", edit: { try $0.addFixedTrack(disparity: -3) },
            error: .invalidTrack("fixed disparity -3.0 must be finite and not negative")),
        BadEdit(name: "apertureOutOfRange", edit: { try $0.setFNumber(22) }, error: .fNumberOutOfRange(22, 1.4...16)),
    ]

    @Test(arguments: badEdits) func badEditsAreClearErrors(_ c: BadEdit) throws {
        var s = try scriptWithFrames(until: 2, [(1, 80, 0...2)])
        let before = s
        do {
            try c.edit(&s)
            Issue.record("\(c.name): no error")
        } catch let e as CinematicScriptError {
            #expect(e.description == c.error.description, "\(c.name): \(e)")
            #expect(!e.description.isEmpty)
        }
        #expect(s == before)  // a failed edit changes nothing
    }

    @Test func jsonRoundTripKeepsTracksAndTheirDecisions() throws {
        var s = try scriptWithFrames(until: 5, [(1, 80, 0...5)])
        let fixed = try s.addFixedTrack(disparity: 12.5)
        let custom = try s.addCustomTrack(customSamples(1...3))
        s.add(FocusDecision(time: ts(0.5), target: .group(1), kind: .base))
        try s.addUserDecision(FocusDecision(time: ts(1), target: .detection(custom.id), kind: .strongUser))
        try s.addUserDecision(FocusDecision(time: ts(4), target: .detection(fixed.id), kind: .weakUser))
        let data = try s.jsonData()
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["version"] as? Int == 2)
        #expect((json["tracks"] as? [Any])?.count == 2)
        let loaded = try CinematicScript(jsonData: data)
        #expect(loaded == s)
        #expect(loaded.effectiveDecisions() == s.effectiveDecisions())
        #expect(try loaded.jsonData() == data)
    }

    @Test func versionOneWithoutTracksStillLoads() throws {
        var s = try scriptWithFrames(until: 2, [(1, 80, 0...2)])
        s.add(FocusDecision(time: ts(0.5), target: .group(1), kind: .base))
        var json = try #require(try JSONSerialization.jsonObject(with: try s.jsonData()) as? [String: Any])
        json["version"] = 1
        json["tracks"] = nil
        let loaded = try CinematicScript(jsonData: try JSONSerialization.data(withJSONObject: json))
        #expect(loaded == s)
    }

    struct BadFile: Sendable, CustomTestStringConvertible {
        var name: String
        var text: String
        /// A fragment of the error's description.
        var says: String
        var testDescription: String { name }
    }

    static let badFiles: [BadFile] = [
        BadFile(name: "notJSON", text: "{ this is not json", says: "not a cinematic script"),
        BadFile(name: "empty", text: "", says: "not a cinematic script"),
        BadFile(name: "unknownVersion", text: #"{"version": 7}"#, says: "version 7 is not supported"),
        BadFile(
            name: "decisionOnAMissingTrack",
            text: #"""
                {"version": 2, "fNumber": 4.5, "rack": {"speed": 60, "minimumDuration": 0.4, "maximumDuration": 0.8},
                 "frames": [{"timeNanoseconds": 0, "focusDisparity": 0, "detections": []}],
                 "decisions": [{"timeNanoseconds": 0, "kind": "strongUser", "target": {"detectionID": 77}}],
                 "tracks": []}
                """#,
            says: "refers to track 77"),
        BadFile(
            name: "detectedTrackInTheFile",
            text: #"""
                {"version": 2, "fNumber": 4.5, "rack": {"speed": 60, "minimumDuration": 0.4, "maximumDuration": 0.8},
                 "frames": [], "decisions": [], "tracks": [{"id": 3, "kind": "detected"}]}
                """#,
            says: "detected tracks come from the frames"),
        BadFile(
            name: "apertureOutOfRange",
            text: #"""
                {"version": 2, "fNumber": 40, "rack": {"speed": 60, "minimumDuration": 0.4, "maximumDuration": 0.8},
                 "frames": [], "decisions": [], "tracks": []}
                """#,
            says: "f-number 40.0 is out of range"),
    ]

    @Test(arguments: badFiles) func badFilesAreClearErrors(_ c: BadFile) {
        do {
            _ = try CinematicScript(jsonData: Data(c.text.utf8))
            Issue.record("\(c.name): loaded")
        } catch {
            #expect(error is CinematicScriptError, "\(c.name): \(type(of: error))")
            #expect("\(error)".contains(c.says), "\(c.name): \(error)")
        }
    }

    @Test func apertureRangeIsTheSimulatedLenses() {
        #expect(CinematicScript.fNumberRange == LensModel.fNumberRange)
        #expect(CinematicScript.fNumberRange == 1.4...16)
        // The widest aperture is as wide as the stereo baseline: N = F / B = 2K.
        #expect(abs(2 * LensModel().apertureConstant - LensModel.minimumFNumber) < 1e-12)
    }
}
