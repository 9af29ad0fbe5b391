// AppSinkReader: every frame arrives with its size, format and timestamp; pooled memory is reused.
import CineMedia
import Foundation
import Testing

@testable import CineGStreamer

extension CineGStreamerTests {
    @Suite struct AppSinkReaderTests {
        @Test func readsEveryTestFrameThenEndOfStreamWithoutGrowingThePool() throws {
            let pipeline = try Pipeline(
                "videotestsrc num-buffers=30 ! video/x-raw,format=I420,width=320,height=240,framerate=30/1 ! "
                    + "appsink name=sink sync=false")
            let pool = ImagePool()
            let reader = try AppSinkReader(pipeline: pipeline, pool: pool)
            try pipeline.play()
            var previous: Timestamp?
            var frames = 0
            loop: while true {
                switch try reader.next(timeout: 5) {
                case .frame(let image, let timestamp):
                    #expect(image.width == 320 && image.height == 240 && image.format == .i420)
                    if let previous { #expect(timestamp > previous) }
                    previous = timestamp
                    frames += 1
                case .timeout:
                    Issue.record("timed out after \(frames) frames")
                    break loop
                case .endOfStream:
                    break loop
                }
            }
            #expect(frames == 30)
            #expect(reader.framesRead == 30)
            // GStreamer rounds frame times down, Timestamp to the nearest nanosecond.
            #expect(abs((previous ?? .zero).nanoseconds - Timestamp(frame: 29, fps: 30).nanoseconds) <= 1)
            #expect(reader.frameRate == 30)
            #expect(pool.allocationCount <= 4)
            if case .endOfStream = try reader.next(timeout: 0.1) {} else { Issue.record("expected end-of-stream") }
        }

        @Test(arguments: [PixelFormat.i420, .nv12, .rgba8, .gray8, .gray16])
        func readsEveryFormatPixelFormatKnowsAtOddSizes(_ format: PixelFormat) throws {
            // 161×121: GStreamer pads rows and chroma planes, exercising the per-row copy.
            let pipeline = try Pipeline(
                "videotestsrc num-buffers=3 pattern=white ! video/x-raw,format=\(format.gstreamerName!),"
                    + "width=161,height=121 ! appsink name=sink sync=false")
            let reader = try AppSinkReader(pipeline: pipeline)
            try pipeline.play()
            guard case .frame(let image, _) = try reader.next(timeout: 5) else {
                Issue.record("no frame")
                return
            }
            #expect(image.width == 161 && image.height == 121 && image.format == format)
            if format == .rgba8 {
                let last = image.plane(0).row(120, as: UInt8.self)
                #expect((0..<(161 * 4)).allSatisfy { last[$0] == 255 })
            }
        }

        @Test func unknownFormatFailsWithAHint() throws {
            let pipeline = try Pipeline(
                "videotestsrc num-buffers=1 ! video/x-raw,format=BGRx,width=64,height=48 ! appsink name=sink")
            let reader = try AppSinkReader(pipeline: pipeline)
            try pipeline.play()
            #expect {
                _ = try reader.next(timeout: 5)
            } throws: { error in
                (error as? GStreamerError)?.description.contains("videoconvert") == true
            }
        }

        @Test func missingOrWrongElementIsAnError() throws {
            let pipeline = try Pipeline("videotestsrc ! fakesink name=sink")
            #expect(throws: GStreamerError.self) { try AppSinkReader(pipeline: pipeline, name: "nope") }
            #expect(throws: GStreamerError.self) { try AppSinkReader(pipeline: pipeline, name: "sink") }
        }

        @Test func pipelineErrorsReachTheReader() throws {
            // Bytes that are no media: decodebin fails at run time, on its streaming thread.
            let folder = try TemporaryFolder()
            let path = folder.path("noise.bin")
            try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(
                to: URL(fileURLWithPath: path))
            let pipeline = try Pipeline("filesrc location=\"\(path)\" ! decodebin ! appsink name=sink")
            let reader = try AppSinkReader(pipeline: pipeline)
            let start = ContinuousClock.now
            #expect(throws: GStreamerError.self) {
                try pipeline.play()
                for _ in 0..<50 { _ = try reader.next(timeout: 0.1) }
            }
            #expect(ContinuousClock.now - start < .seconds(5))
        }
    }
}
