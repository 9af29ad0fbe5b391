// ControlAPITests: the control API against a real running graph — good requests reach the
// nodes; bad ones (malformed JSON, unknown commands, out-of-range values, oversized bodies,
// missing or wrong tokens, other origins) get a 4xx with a clear message and leave the graph
// running.
import CineGraph
import CineMedia
import CineNodes
import CineTestSupport
import Foundation
import Testing
@testable import CineViewfinder

@Suite(.serialized) struct ControlAPITests {
    @Test func badRequestsGetClearErrorsAndLeaveTheGraphRunning() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cg-vf-api-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await RunningGraph.with(yaml: RunningGraph.standardYAML(stillFolder: folder.path)) { graph in
            let http = HTTP(base: graph.url)
            try await eventually(15, "frames at the viewfinder") { graph.viewfinderFrames > 3 }

            var r = try await http.post("/api/aperture", "{\"value\": 2.8")
            #expect(r.status == 400 && r.error.contains("not valid JSON"), "\(r.status) \(r.text)")
            r = try await http.post("/api/aperture", "[2.8]")
            #expect(r.status == 400 && r.error.contains("JSON object"))
            r = try await http.post("/api/aperture", "{\"value\": \"wide\"}")
            #expect(r.status == 400 && r.error.contains("value must be a number"))
            r = try await http.post("/api/aperture", "{\"value\": 99}")
            #expect(r.status == 400 && r.error.contains("out of range"), "\(r.text)")
            r = try await http.post("/api/aperture", "{\"value\": 2.8, \"iso\": 100}")
            #expect(r.status == 400 && r.error.contains("unknown field 'iso'"))
            r = try await http.post("/api/focus", "{\"point\": [1.5, 0.2]}")
            #expect(r.status == 400 && r.error.contains("outside 0...1"))
            r = try await http.post("/api/focus", "{\"id\": 2.5}")
            #expect(r.status == 400 && r.error.contains("whole number"))
            r = try await http.post("/api/focus", "{\"id\": 1, \"strong\": \"yes\"}")
            #expect(r.status == 400 && r.error.contains("true or false"))
            r = try await http.post("/api/record", "{\"action\": \"pause\"}")
            #expect(r.status == 400 && r.error.contains("start"))
            r = try await http.post("/api/nodes/focus/command", "{\"name\": \"explode\"}")
            #expect(r.status == 400 && r.error.contains("has no command 'explode'"), "\(r.text)")
            r = try await http.post("/api/nodes/focuss/command", "{\"name\": \"auto\"}")
            #expect(r.status == 404 && r.error.contains("did you mean 'focus'"))
            r = try await http.post(
                "/api/nodes/focus/command", "{\"name\": \"fixed\", \"arguments\": {\"point\": \"../../etc\"}}")
            #expect(r.status == 400 && r.error.contains("without '/'"))
            // Arguments are checked against the command's declaration: one message names each problem.
            r = try await http.post(
                "/api/nodes/focus/command", "{\"name\": \"fixed\", \"arguments\": {\"point\": \"2,0.5\", \"stong\": true}}")
            #expect(r.status == 400 && r.error == "node 'focus': fixed: has no argument 'stong' (did you mean 'strong'?); "
                + "point=2,0.5 is not a point X,Y with both in 0...1 (usage: fixed point=X,Y [strong=true])", "\(r.text)")
            r = try await http.get("/api/nodes/focus/parameters/aperturee")
            #expect(r.status == 404 && r.error.contains("did you mean 'aperture'"))
            r = try await http.post("/api/nodes/still/parameters/path", "{\"value\": \"x.jpg\"}")
            #expect(r.status == 403 && r.error.contains("cannot be set over the API"), "\(r.text)")
            r = try await http.post("/api/nodes/focus/parameters/aperture", "{\"value\": 500}")
            #expect(r.status == 422 || r.status == 400, "\(r.status) \(r.text)")
            #expect(r.error.contains("range"), "\(r.text)")
            let big = "{\"value\": \"" + String(repeating: "x", count: 40_000) + "\"}"
            r = try await http.post("/api/aperture", big)
            #expect(r.status == 413 && r.error.contains("limit"), "\(r.status) \(r.text)")
            r = try await http.request("POST", "/api/still", body: Data("{}".utf8), contentType: "text/plain")
            #expect(r.status == 415 && r.error.contains("application/json"))
            r = try await http.request(
                "POST", "/api/auto", body: Data("{}".utf8), headers: ["Origin": "http://evil.example"])
            #expect(r.status == 403 && r.error.contains("other sites"))
            r = try await http.post("/api/record", "{\"action\": \"start\"}")
            #expect(r.status == 409 && r.error.contains("no recorder"), "\(r.text)")

            // The graph took none of it badly.
            let before = graph.viewfinderFrames
            try await eventually(10, "more frames after the bad requests") { graph.viewfinderFrames > before + 5 }
            #expect(graph.runner.summary().failures.isEmpty)
            r = try await http.get("/api/nodes/focus/parameters/aperture")
            #expect(r.status == 200 && r.json["value"] as? String == "4.5", "\(r.text)")
        }
    }

    @Test func goodRequestsReachTheNodes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cg-vf-api-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await RunningGraph.with(yaml: RunningGraph.standardYAML(stillFolder: folder.path)) { graph in
            let http = HTTP(base: graph.url)
            try await eventually(15, "frames at the viewfinder") { graph.viewfinderFrames > 3 }

            var r = try await http.post("/api/aperture", "{\"value\": 2.8}")
            #expect(r.status == 200, "\(r.text)")
            r = try await http.get("/api/nodes/focus/parameters/aperture")
            #expect(r.json["value"] as? String == "2.8", "\(r.text)")
            r = try await http.get("/api/state")
            let aperture = r.json["aperture"] as? [String: Any]
            #expect(aperture?["value"] as? Double == 2.8)
            #expect(aperture?["min"] as? Double == 1.4 && aperture?["max"] as? Double == 16)
            #expect((r.json["capabilities"] as? [String: Any])?["still"] as? String == "still")
            #expect(r.json["frame"] != nil)

            r = try await http.post("/api/still", "{}")
            #expect(r.status == 200, "\(r.text)")
            let path = r.json["reply"] as? String ?? ""
            #expect(path.hasPrefix(folder.path) && FileManager.default.fileExists(atPath: path), "\(r.text)")

            r = try await http.post("/api/auto", "")
            #expect(r.status == 200 && r.json["reply"] as? String == "automatic focus", "\(r.text)")
            r = try await http.get("/api/nodes")
            let nodes = (try JSONSerialization.jsonObject(with: r.body) as? [[String: Any]]) ?? []
            #expect(nodes.map { $0["name"] as? String } == ["camera", "focus", "still", "view"])
            // The commands' schema comes from their declarations.
            let focusCommands = (nodes.first { $0["name"] as? String == "focus" }?["commands"] as? [[String: Any]]) ?? []
            let fixed = try #require(focusCommands.first { $0["name"] as? String == "fixed" })
            #expect(fixed["usage"] as? String == "point=X,Y [strong=true]")
            let arguments = (fixed["arguments"] as? [[String: Any]]) ?? []
            #expect(arguments.map { $0["name"] as? String } == ["point", "strong"])
            #expect(arguments.map { $0["type"] as? String } == ["point", "boolean"])
            #expect(arguments.map { $0["required"] as? Bool } == [true, false])
            let apertureCommand = try #require(focusCommands.first { $0["name"] as? String == "aperture" })
            #expect((apertureCommand["arguments"] as? [[String: Any]])?.first?["range"] as? [Double] == [1.4, 16])
            r = try await http.post("/api/nodes/focus/parameters/aperture", "{\"value\": 5.6}")
            #expect(r.status == 200, "\(r.text)")
            r = try await http.get("/")
            #expect(r.status == 200 && r.text.contains("<canvas id=\"overlay\">"))
            #expect(graph.runner.summary().failures.isEmpty)
        }
    }

    @Test func recordStopsAndStartsTheMovie() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cg-vf-rec-\(UUID().uuidString)")
        let yaml = RunningGraph.standardYAML(stillFolder: folder.path,
                                             extra: RunningGraph.movieYAML(path: folder.path + "/take-{time}.mkv"))
        defer { try? FileManager.default.removeItem(at: folder) }
        try await RunningGraph.with(yaml: yaml) { graph in
            let http = HTTP(base: graph.url)
            try await eventually(15, "the recording to start") {
                graph.events.all.contains { $0.name == "recording-started" }
            }
            // The server notes the event on the movie's thread, maybe just after the test saw it.
            var r = try await http.get("/api/state")
            for _ in 0..<50 where r.json["recording"] as? Bool != true {
                try await Task.sleep(for: .milliseconds(100))
                r = try await http.get("/api/state")
            }
            #expect(
                r.json["recording"] as? Bool == true
                    && (r.json["capabilities"] as? [String: Any])?["record"] as? [String] == ["movie"])
            r = try await http.post("/api/record", "{\"action\": \"stop\"}")
            #expect(r.status == 200, "\(r.text)")
            let saved = try #require(
                graph.events.all.first { $0.name == "movie-saved" }, "no movie-saved after record stop")
            #expect(FileManager.default.fileExists(atPath: saved.fields["path"] ?? ""))
            #expect(Int(saved.fields["frames"] ?? "") ?? 0 > 0)
            r = try await http.get("/api/state")
            #expect(r.json["recording"] as? Bool == false)
            try await Task.sleep(for: .milliseconds(1100))  // {time} has seconds: the next take gets a new name
            r = try await http.post("/api/record", "{\"action\": \"start\"}")
            #expect(r.status == 200 && (r.text.contains("recording from the next frame")), "\(r.text)")
            try await eventually(10, "a second recording") {
                graph.events.all.filter { $0.name == "recording-started" }.count == 2
            }
            #expect(graph.runner.summary().failures.isEmpty)
        }
    }

    @Test func aTokenIsCheckedOnEveryRequest() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cg-vf-api-\(UUID().uuidString)")
        let token = "s3cret-token-for-tests-0123"
        let yaml = RunningGraph.standardYAML(stillFolder: folder.path) + "    token: \(token)\n"
        try await RunningGraph.with(yaml: yaml) { graph in
            var http = HTTP(base: graph.url)
            var r = try await http.get("/api/state")
            #expect(r.status == 401 && r.error.contains("needs its token"), "\(r.text)")
            r = try await http.get("/")
            #expect(r.status == 401)
            http.token = "wrong-token-wrong-token"
            r = try await http.get("/api/state")
            #expect(r.status == 401 && r.error.contains("wrong token"))
            http.token = token
            r = try await http.get("/api/state")
            #expect(r.status == 200)
            r = try await http.get("/api/nodes/view/parameters/token")
            #expect(r.status == 403 && r.error.contains("secret"))
            r = try await http.get("/api/nodes")
            #expect(r.status == 200 && !r.text.contains(token) && r.text.contains("(hidden)"))
            http.token = nil
            r = try await http.get("/?token=\(token)")
            #expect(r.status == 200 && r.text.contains("cinegraph viewfinder"))
        }
    }

    @Test func anAddressOffLoopbackNeedsAToken() throws {
        let yaml = """
            graph: t
            nodes:
              camera: { kind: synthetic, size: 128x96 }
              view: { kind: viewfinder, video: camera.left, address: 0.0.0.0 }
            """
        #expect {
            try Graph.parse(yaml, registry: NodeRegistry.standard().withViewfinder())
        } throws: { error in
            "\(error)".contains("token") && "\(error)".contains("0.0.0.0")
        }
        let short = yaml.replacingOccurrences(of: "0.0.0.0 }", with: "0.0.0.0, token: abc }")
        #expect(throws: (any Error).self) { try Graph.parse(short, registry: NodeRegistry.standard().withViewfinder()) }
        let good = yaml.replacingOccurrences(of: "0.0.0.0 }", with: "0.0.0.0, token: abcdefghijklmnopq }")
        _ = try Graph.parse(good, registry: NodeRegistry.standard().withViewfinder())
    }
}
