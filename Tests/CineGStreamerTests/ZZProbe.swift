import CineMedia
import Foundation
import Testing
@testable import CineGStreamer

extension CineGStreamerTests {
    @Suite struct ZZProbe {
        @Test(arguments: [(30, 12.0, 0.5), (30, 30.0, 0.5), (30, 30.0, 0.5), (30, 30.0, 0.0), (30, 30.0, 0.0)])
        func survivors(_ args: (Int, Double, Double)) throws {
            let folder = try TemporaryFolder()
            let path = folder.path("k.mp4")
            let r = try MovieRecorder(path: path, width: 320, height: 240, fps: args.1, format: .i420)
            for i in 0..<args.0 { try r.append(TestFrames.make(.i420, index: i), at: Timestamp(frame: i, fps: args.1)) }
            Thread.sleep(forTimeInterval: args.2)
            r.abandon()
            let start = ContinuousClock.now
            do { let i = try MediaProbe.inspect(path: path); print("PROBE \(args) \(i.frameCount)") } catch { print("PROBE \(args) error \(error)") }
            print("PROBE took \(ContinuousClock.now - start)")
            let attrs = try FileManager.default.attributesOfItem(atPath: path)
            print("PROBE size \(attrs[.size]!)")
            try? FileManager.default.copyItem(atPath: path, toPath: "/tmp/cg/k-\(ContinuousClock.now - start > .seconds(5) ? "stall" : "ok")-\(UUID().uuidString.prefix(4)).mp4")
        }
    }
}
