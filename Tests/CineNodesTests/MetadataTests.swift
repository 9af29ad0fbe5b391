// The metadata sink: JSON Lines in a file re-read and parsed, and served on a Unix socket to a
// real client; the synthetic camera's ground-truth detections as the source.
import CineGraph
import CineMedia
import CineNodes
import Foundation
import Testing

/// Minimal view of a metadata line for decoding in tests.
struct LineView: Decodable {
    var time: Int64
    var frame: Int
    var detections: [Detection]
    var sceneStatus: [String]
}

@Suite(.serialized) struct MetadataTests {
    @Test func metadataFileHasOneParsableLinePerFrame() throws {
        let path = temporaryFolder("meta").appendingPathComponent("m.jsonl").path
        let graph = try Graph.parse("""
            nodes:
              camera: { kind: synthetic, size: 160x96, live: false, duration: 6s, fps: 5 }
              meta: { kind: metadata, detections: camera.detections, path: "\(path)" }
            """, registry: .standard())
        try GraphRunner(graph: graph).run()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 30)
        let decoded = try lines.map { try JSONDecoder().decode(LineView.self, from: Data($0.utf8)) }
        #expect(decoded.map(\.frame) == Array(0..<30))
        #expect(decoded.map(\.time) == (0..<30).map { Timestamp(frame: $0, fps: 5).nanoseconds })
        // Subjects walk through: some frames have a face and a body of the same group.
        let withFace = decoded.filter { line in line.detections.contains { $0.type == .humanFace } }
        #expect(!withFace.isEmpty)
        for line in withFace {
            for face in line.detections where face.type == .humanFace {
                #expect(line.detections.contains { $0.type == .humanBody && $0.groupID == face.groupID })
                #expect((face.disparity ?? 0) > 0)
                #expect(face.bounds.x >= 0 && face.bounds.x + face.bounds.width <= 1.0001)
            }
        }
    }

    @Test func metadataSocketServesLinesToAClient() throws {
        let socketPath = temporaryFolder("sock").appendingPathComponent("m.sock").path
        let graph = try Graph.parse("""
            nodes:
              camera: { kind: synthetic, size: 160x96, live: true, duration: 3s, fps: 10 }
              meta: { kind: metadata, detections: camera.detections, socket: "\(socketPath)" }
            """, registry: .standard())
        let runner = GraphRunner(graph: graph)
        runner.start()
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: socketPath) { Thread.sleep(forTimeInterval: 0.02) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(socketPath.utf8))
            raw[socketPath.utf8.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(connected == 0)
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { break }
            received.append(contentsOf: chunk[0..<n])
        }
        close(fd)
        let summary = runner.wait()
        #expect(summary.failures.isEmpty)
        let lines = String(decoding: received, as: UTF8.self).split(separator: "\n")
        // The client joined a little after the start; it gets every line from then on, in order.
        #expect(lines.count >= 20, "lines: \(lines.count)")
        let frames = try lines.map { try JSONDecoder().decode(LineView.self, from: Data($0.utf8)).frame }
        #expect(frames == Array(frames.first!...frames.last!))
        #expect(frames.last == 29)
        #expect(!FileManager.default.fileExists(atPath: socketPath))  // removed when the node finished
    }

    @Test func metadataNeedsExactlyOneDestination() {
        #expect(throws: ParameterError.self) { try NodeHarness(MetadataSinkNode.self) }
        #expect(throws: ParameterError.self) { try NodeHarness(MetadataSinkNode.self, parameters: ["path": "-", "socket": "/tmp/x"]) }
    }
}
