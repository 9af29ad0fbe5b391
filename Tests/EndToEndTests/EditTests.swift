// `cinegraph edit` as a user runs it: the binary serves the take, an edit through its API and a
// save write the changes file that `cinegraph script list` then reports, Ctrl-C stops it, and a
// file that is not an asset or a broken changes file stops it at start with the file's name.
import Foundation
import Testing
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.serialized) struct EditTests {
    private func recordTake(_ dir: String) throws -> String { try recordSyntheticTake(dir, seconds: 6) }

    private func call(_ base: URL, _ method: String, _ path: String, _ json: String? = nil, lease: String? = nil) async throws
        -> (status: Int, json: [String: Any])
    {
        var r = URLRequest(url: URL(string: path, relativeTo: base)!)
        r.httpMethod = method
        if let json {
            r.httpBody = Data(json.utf8)
            r.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let lease { r.setValue(lease, forHTTPHeaderField: "X-Cinegraph-Lease") }
        let (data, response) = try await URLSession.shared.data(for: r)
        return ((response as! HTTPURLResponse).statusCode, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    @Test func anEditSavedInTheEditorIsWhatScriptListReports() async throws {
        let dir = scratch("edit")
        let asset = try recordTake(dir)
        let editor = Process()
        editor.executableURL = URL(fileURLWithPath: binary)
        editor.arguments = ["edit", asset, "--port", "0"]
        let out = Pipe(), err = Pipe()
        editor.standardOutput = out
        editor.standardError = err
        try editor.run()
        defer { if editor.isRunning { editor.terminate() } }
        var printed = ""
        while !printed.contains("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed += String(decoding: chunk, as: UTF8.self)
        }
        let firstLine = printed.split(separator: "\n").first.map(String.init) ?? ""
        let url = try #require(firstLine.split(separator: " ").last.map(String.init), "\(printed)")
        #expect(url.hasPrefix("http://127.0.0.1:"))
        let base = URL(string: url)!

        // The page loads; a take and a lease.
        let take = try await call(base, "GET", "api/take")
        #expect(take.status == 200 && take.json["frames"] as? Int == 90)
        let lease = try #require(try await call(base, "POST", "api/claim", "{}").json["lease"] as? String)
        // A strong decision on a detection present in the middle of the take, and f/2.
        let perFrame = take.json["detections"] as? [[[Any]]] ?? []
        let times = take.json["times"] as? [Double] ?? []
        let index = try #require((45..<min(90, perFrame.count)).first { !perFrame[$0].isEmpty })
        let id = try #require(perFrame[index].first?.first as? Int)
        var r = try await call(base, "POST", "api/decisions", #"{"time": \#(times[index]), "detectionID": \#(id), "strong": true}"#, lease: lease)
        #expect(r.status == 200, "\(r.json)")
        r = try await call(base, "POST", "api/aperture", #"{"fNumber": 2}"#, lease: lease)
        #expect(r.status == 200 && r.json["dirty"] as? Bool == true)
        r = try await call(base, "POST", "api/save", "{}", lease: lease)
        #expect(r.status == 200 && r.json["dirty"] as? Bool == false)
        kill(editor.processIdentifier, SIGINT)
        editor.waitUntilExit()
        #expect(editor.terminationStatus == 0)

        // What `script list` reports as yours is what the changes file holds.
        let changes = dir + "/take.cine.changes.json"
        let file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: changes))) as? [String: Any])
        let decisions = file["decisions"] as? [[String: Any]] ?? []
        try #require(decisions.count == 1)
        #expect(file["fNumber"] as? Double == 2)
        let list = try cinegraph(["script", asset, "list"])
        #expect(list.status == 0, "\(list.stderr)")
        let yours = list.stdout.components(separatedBy: "your decisions").last ?? ""
        let t = Double(decisions[0]["timeNanoseconds"] as? Int ?? -1) / 1e9
        #expect(yours.contains(String(format: "%8.3f s  strong    detection %d", t, id)), "\(yours)")
        #expect(yours.contains("aperture f/2.0"), "\(yours)")
    }

    @Test func badInputStopsTheEditorAtStartNamingTheFile() throws {
        let dir = scratch("edit-bad")
        let notAsset = dir + "/notes.txt"
        try "hello".write(toFile: notAsset, atomically: true, encoding: .utf8)
        // The demuxer's refusal races the first pull: it used to end the wait only after the
        // pull's whole timeout (30 s) about one run in four, so try it several times.
        for _ in 0..<6 {
            let r = try cinegraph(["edit", notAsset, "--port", "0"], timeout: 10)
            #expect(r.status == 1 && r.stderr.contains("notes.txt"), "\(r.stderr)")
        }
        let asset = try recordTake(dir)
        let corrupt = dir + "/corrupt.json"
        try "{ not json".write(toFile: corrupt, atomically: true, encoding: .utf8)
        var r = try cinegraph(["edit", asset, "--changes", corrupt, "--port", "0"], timeout: 30)
        #expect(r.status == 1 && r.stderr.contains("corrupt.json") && r.stderr.contains("not JSON"), "\(r.stderr)")
        r = try cinegraph(["edit", asset, "--address", "0.0.0.0"], timeout: 30)
        #expect(r.status != 0 && r.stderr.contains("--token"), "\(r.stderr)")
    }
}
