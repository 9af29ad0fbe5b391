// The director scored against the synthetic camera's ground truth on a short take (one 20 s
// cycle of the scene), as `make score` scores the 40 s take: detections, IDs and focus choices
// of the shipped defaults must not fall below what they reach today.
import Foundation
import Testing

@Suite struct DirectorScoreTests {
    @Test func theDirectorFindsTheFacesKeepsTheirIDsAndFocusesOnThem() throws {
        guard let releaseBinary = requiredReleaseBinary() else { return }
        let dir = scratch("director")
        let r = try cinegraph(["run", "Benchmarks/director/director.conf", "--quiet", "--set", "camera.duration=20s",
                               "--set", "truth.path=\(dir)/truth.jsonl", "--set", "found.path=\(dir)/found.jsonl"],
                              timeout: 120, executable: releaseBinary)
        #expect(r.status == 0, "\(r.stderr)")
        let score = Process()
        score.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        score.arguments = ["Benchmarks/director/score.py", "\(dir)/truth.jsonl", "\(dir)/found.jsonl"]
        score.currentDirectoryURL = root
        let out = Pipe()
        score.standardOutput = out
        try score.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        score.waitUntilExit()
        #expect(score.terminationStatus == 0, "\(text)")
        func number(after label: String) -> Double? {
            guard let range = text.range(of: label) else { return nil }
            return Double(text[range.upperBound...].prefix { "0123456789.".contains($0) })
        }
        let recall = try #require(number(after: "recall "), "\(text)")
        let precision = try #require(number(after: "precision "), "\(text)")
        let focus = try #require(number(after: "focus on a true subject in "), "\(text)")
        // Measured 96.8 / 98.3 / 85.4 % (short-range model on 2 tiles, landmark check; focus
        // with a 0.1 s acquire dwell and a 0.5 s hold on an empty frame); aims 95 / 98 / 85 %.
        #expect(recall >= 95, "\(text)")
        #expect(precision >= 97.5, "\(text)")
        #expect(focus >= 84, "\(text)")
        #expect(text.contains("ID switches 0"), "\(text)")
        #expect(text.contains("face IDs per person and crossing [1, 1, 1] (3 crossings)"), "\(text)")
    }
}
