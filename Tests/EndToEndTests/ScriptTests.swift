// Changing your mind after the take: `cinegraph script` writes a changes file beside the asset,
// `render --changes` follows the rules frame by frame, the audio and every frame are kept, and
// foreign or broken inputs get clear errors.
import CineGStreamer
import CineMedia
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// One line of the metadata sink, the parts these tests read.
private struct Line: Decodable {
    struct Focus: Decodable { var focusDisparity: Double; var fNumber: Double?; var targetDetectionID: Int? }
    struct Det: Decodable { var id: Int; var disparity: Double?; var focusMode: String }
    var time: Int64
    var detections: [Det]
    var focus: Focus?
}

@Suite(.serialized) struct ScriptTests {
    /// An 8 s take (the recorded decisions: a fixed plane, then 1, 3 at 4.8 s, 1 again).
    private func recordTake(_ dir: String) throws -> String { try recordSyntheticTake(dir, seconds: 8) }

    @Test func userDecisionsFollowTheRulesFrameByFrame() throws {
        let dir = scratch("script")
        let asset = try recordTake(dir)
        let changes = dir + "/take.cine.changes.json"

        let list = try cinegraph(["script", asset, "list"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("120 frames") && list.stdout.contains("id 3") && list.stdout.contains("automatic"))

        // Weak on subject 2's body at 4 s: holds until the next automatic decision. Strong on face 1 at 5.5 s:
        // holds while face 1 is in the frame, whatever the engine prefers.
        for args in [["add", "--time", "4", "--id", "4"], ["add", "--time", "5.5", "--id", "1", "--strong"],
                     ["aperture", "2"]] {
            let r = try cinegraph(["script", asset] + args)
            #expect(r.status == 0, "\(args): \(r.stderr)")
        }
        let written = try String(contentsOfFile: changes, encoding: .utf8)
        #expect(written.contains("\"strongUser\"") && written.contains("\"weakUser\"") && written.contains("cinegraph-changes"))

        // The same graph render builds, with a metadata sink to read the focus of every frame.
        let meta = dir + "/focus.jsonl"
        try """
            nodes:
              asset: { kind: asset-source, path: "\(asset)" }
              refocus: { kind: refocus, detections: asset.detections, asset: "\(asset)", changes: "\(changes)" }
              meta: { kind: metadata, detections: refocus.detections, focus: refocus.focus, path: "\(meta)" }
            """.write(toFile: dir + "/refocus.conf", atomically: true, encoding: .utf8)
        let run = try cinegraph(["run", dir + "/refocus.conf", "--quiet"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOfFile: meta, encoding: .utf8).split(separator: "\n")
            .map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        #expect(lines.count == 120)
        var weakFrames = 0, strongFrames = 0
        for l in lines {
            let t = Double(l.time) / 1e9
            let focus = try #require(l.focus)
            #expect(focus.fNumber == 2)
            func disparity(_ id: Int) -> Double? { l.detections.first { $0.id == id }?.disparity }
            if t >= 4.0 && t < 4.2, let d4 = disparity(4) {
                // The weak decision holds (the engine's next decision, to face 3, comes at 4.8 s).
                #expect(focus.targetDetectionID == 4, "t=\(t)")
                #expect(abs(focus.focusDisparity - d4) < 0.05, "t=\(t): focus \(focus.focusDisparity), subject \(d4)")
                #expect(l.detections.first { $0.id == 4 }?.focusMode == "weak")
                weakFrames += 1
            }
            if t >= 5.5, let d1 = disparity(1) {
                // Strong: face 1 keeps focus although the engine had chosen face 3 (from 4.8 s), and the
                // rack had landed by 5.5 s.
                #expect(focus.targetDetectionID == 1, "t=\(t)")
                #expect(abs(focus.focusDisparity - d1) < 0.05, "t=\(t): focus \(focus.focusDisparity), subject \(d1)")
                #expect(l.detections.first { $0.id == 1 }?.focusMode == "strong")
                #expect(l.detections.filter { $0.focusMode != "none" }.count == 1)
                strongFrames += 1
            }
            if t < 4.0 - 0.8 {
                #expect(l.detections.allSatisfy { $0.focusMode == "none" }, "t=\(t): only automatic focus before 3.2 s")
            }
        }
        #expect(weakFrames >= 2 && strongFrames >= 30, "weak \(weakFrames), strong \(strongFrames)")
        // Before the strong decision the rack is already under way (anticipation), not after it.
        let before = lines.filter { Double($0.time) / 1e9 >= 5.0 && Double($0.time) / 1e9 < 5.5 }
        #expect(before.contains { $0.focus?.targetDetectionID == 1 })

        // The movie: every frame of the asset, and the plot of the story.
        let movie = dir + "/rendered.mp4"
        let r = try cinegraph(["render", asset, "--changes", changes, "-o", movie, "--quality", "draft", "--quiet"], timeout: 180)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try MediaProbe.inspect(path: movie).frameCount == 120)
        let plot = dir + "/focus.svg"
        let inspect = try cinegraph(["inspect", asset, "--plot", plot, "--changes", changes])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let svg = try String(contentsOfFile: plot, encoding: .utf8)
        #expect(svg.contains("class=\"focus\"") && svg.contains("data-kind=\"strongUser\"") && svg.contains("data-id=\"3\""))
        #expect(XMLParser(data: Data(svg.utf8)).parse(), "the plot is well-formed XML")

        // Remove and clear; the asset itself is untouched throughout.
        let before0 = try FileManager.default.attributesOfItem(atPath: asset)[.modificationDate] as? Date
        #expect(try cinegraph(["script", asset, "remove", "--time", "4"]).status == 0)
        #expect(try cinegraph(["script", asset, "clear"]).stdout.contains("removed 1 decision"))
        #expect(try FileManager.default.attributesOfItem(atPath: asset)[.modificationDate] as? Date == before0)
    }

    @Test func badEditsAndForeignFilesGetClearErrors() throws {
        let dir = scratch("script-bad")
        let asset = try recordTake(dir)
        let absent = try cinegraph(["script", asset, "add", "--time", "2", "--id", "3"])
        #expect(absent.status == 1 && absent.stderr.contains("detection 3 is not in the frame at 2.000 s (it is there from 3."),
                "\(absent.stderr)")
        let outside = try cinegraph(["script", asset, "add", "--time", "60", "--id", "1"])
        #expect(outside.status != 0 && outside.stderr.contains("outside the take"))
        let f = try cinegraph(["script", asset, "aperture", "0.5"])
        #expect(f.status != 0 && f.stderr.contains("outside f/1.4"))
        let typo = try cinegraph(["script", asset, "lsit"])
        #expect(typo.status == 64 && typo.stderr.contains("The value 'lsit' is invalid for '<action>'. Please provide one of 'list', 'add'"),
                "\(typo.stderr)")

        // A movie that is not an asset, and a text file.
        let movie = dir + "/plain.mp4"
        let plain = try cinegraph(["run", "graphs/record.conf", "--set", "camera.duration=1s", "--set", "camera.live=false",
                                   "--set", "movie.path=\(movie)", "--quiet"], timeout: 120)
        #expect(plain.status == 0, "\(plain.stderr)")
        let text = dir + "/notes.mkv"
        try "just text".write(toFile: text, atomically: true, encoding: .utf8)
        for file in [movie, text] {
            for args in [["script", file, "list"], ["render", file, "-o", dir + "/x.mp4"]] {
                let r = try cinegraph(args, timeout: 60)
                #expect(r.status == 1 && r.stderr.contains("\(file) is not a cinematic asset"), "\(args): \(r.stderr)")
                #expect(!r.stderr.contains("Usage:"))
            }
        }
        // A corrupt changes file names itself and what is wrong.
        let bad = dir + "/bad.changes.json"
        try #"{"format":"cinegraph-changes","version":7,"decisions":[]}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        let r = try cinegraph(["render", asset, "--changes", bad, "-o", dir + "/x.mp4"], timeout: 60)
        #expect(r.status != 0 && r.stderr.contains("bad.changes.json: has version 7"), "\(r.stderr)")
    }

    @Test func renderKeepsTheTakesAudioAndAKilledTakeStillRenders() throws {
        let dir = scratch("script-audio")
        let asset = dir + "/take.cine.mkv"
        let recorded = try cinegraph(["run", "graphs/asset.conf", "--set", "camera.size=320x180", "--set", "camera.duration=3s",
                                      "--set", "asset.audio=test", "--set", "asset.path=\(asset)", "--quiet"], timeout: 60)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let assetAudio = try #require(try AudioProbe.inspect(path: asset))
        let movie = dir + "/rendered.mp4"
        let r = try cinegraph(["render", asset, "-o", movie, "--focus-disparity", "10", "--quality", "draft", "--quiet"],
                              timeout: 120)
        #expect(r.status == 0, "\(r.stderr)")
        let frames = try MediaProbe.inspect(path: movie).frameCount
        #expect(frames == (try MediaProbe.inspect(path: asset).frameCount))
        let movieAudio = try #require(try AudioProbe.inspect(path: movie), "the render lost the audio")
        // AAC pads a frame or two of priming samples; the sound is the same length otherwise.
        #expect(abs(movieAudio.durationSeconds - assetAudio.durationSeconds) < 0.1,
                "asset audio \(assetAudio.durationSeconds) s, rendered \(movieAudio.durationSeconds) s")

        // kill -9 mid-take: what was written renders.
        let killed = dir + "/killed.cine.mkv"
        let k = try cinegraph(["run", "graphs/asset.conf", "--set", "camera.size=320x180", "--set", "asset.audio=test",
                               "--set", "asset.path=\(killed)", "--quiet"], signals: [(2.5, SIGKILL)], after: "recording-started")
        #expect(k.status != 0)
        let left = try MediaProbe.inspect(path: killed).frameCount
        #expect(left >= 30)
        let out = dir + "/killed.mp4"
        let rk = try cinegraph(["render", killed, "-o", out, "--focus-disparity", "10", "--quality", "draft", "--quiet"],
                               timeout: 120)
        #expect(rk.status == 0, "\(rk.stderr)")
        #expect(try MediaProbe.inspect(path: out).frameCount >= left - 2)
    }
}

/// Records a take of the synthetic scene (320×180, 15 fps, seed 3) into `dir`/take.cine.mkv, focus
/// decided live by the automatic engine on the ground-truth detections; returns its path.
func recordSyntheticTake(_ dir: String, seconds: Int) throws -> String {
    let asset = dir + "/take.cine.mkv"
    try """
        nodes:
          camera: { kind: synthetic, size: 320x180, live: false, duration: \(seconds)s, fps: 15, seed: 3 }
          focus: { kind: focus, detections: camera.detections, disparity: camera.disparity }
          asset: { kind: asset, video: camera.left, disparity: camera.disparity, detections: focus.detections,
                   focus: focus.focus, path: "\(asset)", fps: 15 }
        """.write(toFile: dir + "/record.conf", atomically: true, encoding: .utf8)
    let r = try cinegraph(["run", dir + "/record.conf", "--quiet"], timeout: 120)
    #expect(r.status == 0, "\(r.stderr)")
    return asset
}
