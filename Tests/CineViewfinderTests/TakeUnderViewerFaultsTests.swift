// The take under a misbehaving audience: viewers that connect and drop in a loop, a viewer that
// never reads, a burst of control commands — the recording keeps every camera frame.
import CineGraph
import CineMedia
import CineNodes
import CineGStreamer
import CineTestSupport
import Foundation
import Testing
@testable import CineViewfinder

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.serialized) struct TakeUnderViewerFaultsTests {
    /// Opens a TCP connection to `url`'s host and port, asks for a WebSocket upgrade on `path`
    /// and then never reads: the server's writes pile up in the kernel's buffers. Returns the
    /// socket (close it when done).
    func silentViewer(_ url: URL, path: String) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(url.port ?? 80).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("connect() failed") }
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(url.port ?? 80)\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        return fd
    }

    @Test func theTakeKeepsEveryFrameWhateverTheViewersDo() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cg-vf-faults-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let yaml = RunningGraph.standardYAML(stillFolder: folder.path, extra: RunningGraph.movieYAML(path: folder.path + "/take.mkv"))
        let graph = try await RunningGraph.start(yaml: yaml)
        let http = HTTP(base: graph.url)
        try await eventually(15, "the recording to start") { graph.events.all.contains { $0.name == "recording-started" } }
        // A viewer that never reads, for the whole take.
        let silent = try silentViewer(graph.url, path: "/ws/video")
        defer { close(silent) }
        // Viewers that connect and drop, over and over.
        let ws = graph.url.absoluteString.replacingOccurrences(of: "http://", with: "ws://")
        for _ in 0..<20 {
            let task = URLSession.shared.webSocketTask(with: URL(string: ws + "ws/video")!)
            task.resume()
            try await Task.sleep(for: .milliseconds(40))
            task.cancel(with: .goingAway, reason: nil)
        }
        // A burst of control commands.
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<100 {
                group.addTask {
                    try await http.post("/api/nodes/focus/parameters/aperture", "{\"value\": \(2 + Double(i % 10) / 2)}").status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == 200 || $0 == 429 }, "\(Set(statuses))")
        try await Task.sleep(for: .milliseconds(500))
        let summary = await graph.stop()
        #expect(summary.failures.isEmpty, "\(summary.failures)")
        let camera = try #require(summary.nodes.first { $0.name == "camera" }?.processed)
        let saved = try #require(graph.events.all.first { $0.name == "movie-saved" }, "no movie-saved")
        // Every frame the camera made is in the take; the preview may have shed some.
        #expect(Int(saved.fields["frames"] ?? "") == camera, "movie \(saved.fields["frames"] ?? "?") of \(camera)")
        #expect(summary.takeDrops == 0)
    }
}

@Suite(.serialized) struct RecordStartTests {
    /// `record stop` then `record start` from the viewfinder's button, while the camera runs:
    /// each file holds an unbroken run of camera frames (no frame lost while the encoder starts),
    /// the first from the camera's first frame, the second up to its last; every camera frame is
    /// in a file or was taken while paused.
    @Test func everyRecordStartKeepsEveryFrameFromTheNextOne() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cg-record-start-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let yaml = RunningGraph.standardYAML(
            stillFolder: folder.path, extra: RunningGraph.movieYAML(path: folder.path + "/take-{time}.mkv"))
        let graph = try await RunningGraph.start(yaml: yaml)
        let http = HTTP(base: graph.url)
        try await eventually(15, "the recording to start") { graph.events.all.contains { $0.name == "recording-started" } }
        try await Task.sleep(for: .milliseconds(700))
        #expect(try await http.post("/api/record", "{\"action\": \"stop\"}").status == 200)
        try await Task.sleep(for: .milliseconds(1100))  // a new second: a new {time} file name
        #expect(try await http.post("/api/record", "{\"action\": \"start\"}").status == 200)
        try await eventually(15, "the second recording") {
            graph.events.all.filter { $0.name == "recording-started" }.count == 2
        }
        try await Task.sleep(for: .milliseconds(800))
        let summary = await graph.stop()
        #expect(summary.failures.isEmpty, "\(summary.failures)")
        #expect(summary.takeDrops == 0)
        let camera = try #require(summary.nodes.first { $0.name == "camera" })
        let fps = 15.0
        let started = graph.events.all.filter { $0.name == "recording-started" }
        let saved = graph.events.all.filter { $0.name == "movie-saved" }
        try #require(started.count == 2 && saved.count == 2, "\(graph.events.all)")
        var inFiles = 0
        for (take, save) in zip(started, saved) {
            let info = try MediaProbe.inspect(path: try #require(save.fields["path"]))
            let expected = Int(((save.timestamp - take.timestamp).seconds * fps).rounded()) + 1
            #expect(info.frameCount == expected, "\(save.fields["path"] ?? ""): \(info.frameCount) frames for \(expected) instants")
            #expect(Int(save.fields["frames"] ?? "") == info.frameCount)
            inFiles += info.frameCount
        }
        #expect(started[0].timestamp.seconds == 0, "the first take starts at the camera's first frame")
        #expect(saved[1].timestamp == camera.lastTimestamp, "the second take ends at the camera's last frame")
        let paused = Int(((started[1].timestamp - saved[0].timestamp).seconds * fps).rounded()) - 1
        #expect(paused > 0)
        #expect(inFiles + paused == camera.processed, "\(inFiles) in files + \(paused) paused of \(camera.processed)")
    }
}
