// `cinegraph control` against a running graph's viewfinder: real processes, the real HTTP API.
import Foundation
import Testing

@Suite(.serialized) struct ControlCommandTests {
    /// Starts `cinegraph run` with a viewfinder on a free port; its address once it serves.
    private func startGraph(_ dir: String) throws -> (Process, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        // Offline (camera.live=false): every instant reaches the focus node with its disparity, however
        // slow a debug build's matcher is; the viewfinder serves all the same.
        p.arguments = ["run", "graphs/cinematic.conf", "--duration", "60s", "--set", "camera.size=320x180",
                       "--set", "camera.live=false", "--set", "camera.duration=60s",
                       "--set", "viewfinder.port=0", "--set", "asset.path=\(dir)/take.cine.mkv",
                       "--set", "meta.path=\(dir)/take.jsonl"]
        p.currentDirectoryURL = root
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let r = text.range(of: #"viewfinder: open http://[0-9.]+:[0-9]+/"#, options: .regularExpression) {
                // Keep draining stderr so the graph never blocks on a full pipe.
                DispatchQueue.global().async { while !err.fileHandleForReading.availableData.isEmpty {} }
                return (p, String(text[r].dropFirst("viewfinder: open ".count)))
            }
        }
        p.terminate()
        throw TestSetupError("the viewfinder did not start:\n\(text)")
    }

    @Test func controlAsksTheRunningGraphAndReportsWhatItSaid() throws {
        let dir = scratch("control-http")
        let (graph, url) = try startGraph(dir)
        defer {
            kill(graph.processIdentifier, SIGINT)
            graph.waitUntilExit()
        }
        let state = try cinegraph(["control", url, "state"])
        #expect(state.status == 0, "\(state.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(state.stdout.utf8)) as? [String: Any]
        #expect(json != nil, "state is not a JSON object: \(state.stdout)")

        let aperture = try cinegraph(["control", url, "aperture", "2.8"])
        #expect(aperture.status == 0, "\(aperture.stderr)")
        #expect(aperture.stdout.contains("2.8"), "\(aperture.stdout)")

        // The API refuses an aperture outside the lens's range: its message, exit 1.
        let refused = try cinegraph(["control", url, "aperture", "0.1"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("error: 4"), "\(refused.stderr)")

        // Fixed focus at a point where the map has a valid disparity (the synthetic room's floor
        // and walls; the graph may need a moment for its first map).
        var fixed = try cinegraph(["control", url, "fixed", "--point", "0.5,0.9"])
        for attempt in 0..<40 where fixed.status != 0 {
            Thread.sleep(forTimeInterval: 0.25)
            let point = ["0.5,0.9", "0.2,0.8", "0.8,0.8", "0.5,0.5", "0.3,0.3"][attempt % 5]
            fixed = try cinegraph(["control", url, "fixed", "--point", point])
        }
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(fixed.stdout.contains("fixed focus at disparity"), "\(fixed.stdout)")
    }

    @Test func aViewfinderThatIsNotThereIsExitTwoNamingTheAddress() throws {
        // A port nothing listens on: the kernel refuses at once.
        let r = try cinegraph(["control", "http://127.0.0.1:9/", "state", "--timeout", "2"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("cannot reach http://127.0.0.1:9/"), "\(r.stderr)")
        #expect(r.stderr.contains("127.0.0.1:9"), "\(r.stderr)")
        let bad = try cinegraph(["control", "https://127.0.0.1:9/", "state"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("http://127.0.0.1:8080/"), "\(bad.stderr)")
    }
}

/// A test step that could not run.
struct TestSetupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
