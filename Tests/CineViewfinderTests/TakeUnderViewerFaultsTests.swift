// The take under a misbehaving audience: viewers that connect and drop in a loop, a viewer that
// never reads, a burst of control commands — the recording keeps every camera frame.
import CineGraph
import CineMedia
import CineNodes
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
