import CineMedia
import Foundation
import Testing
@testable import CineGStreamer

extension CineGStreamerTests {
    @Suite struct ZZProbe {
        @Test(arguments: [(30, 12.0, 0.5), (30, 30.0, 0.5), (75, 30.0, 0.5), (30, 12.0, 0.0)])
        func survivors(_ args: (Int, Double, Double)) throws {
            let folder = try TemporaryFolder()
            let path = folder.path("k.mp4")
            let r = try MovieRecorder(path: path, width: 320, height: 240, fps: args.1, format: .i420)
            for i in 0..<args.0 { try r.append(TestFrames.make(.i420, index: i), at: Timestamp(frame: i, fps: args.1)) }
            Thread.sleep(forTimeInterval: args.2)
            r.abandon()
            let info = try? MediaProbe.inspect(path: path)
            print("PROBE frames=\(args.0) fps=\(args.1) sleep=\(args.2) -> \(info.map { "\($0.frameCount) frames, end \($0.durationSeconds)" } ?? "unreadable")")
            var o = MovieRecorder.Options(); o.audio = "test"
            let r2 = try MovieRecorder(path: folder.path("a.mp4"), width: 320, height: 240, fps: 30, format: .i420, options: o)
            print("PROBE \(r2.pipelineDescription)")
            try r2.finish()
        }
    }
}
