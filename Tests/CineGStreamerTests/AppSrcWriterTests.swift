// AppSrcWriter: frames go into GStreamer without a copy and come out unchanged; errors surface.
import CineMedia
import Foundation
import Testing

@testable import CineGStreamer

extension CineGStreamerTests {
    @Suite struct AppSrcWriterTests {
        @Test func pushedFramesArriveUnchangedAndTheirBuffersAreHeldUntilReleased() throws {
            let source = ImagePool()
            var pushedBuffer: ObjectIdentifier?
            // The pipeline lives in this closure; the pool is checked after it is gone.
            try {
                let pipeline = try Pipeline("appsrc name=src ! appsink name=sink sync=false enable-last-sample=false")
                let writer = try AppSrcWriter(pipeline: pipeline, format: .i420, width: 320, height: 240, fps: 30)
                let reader = try AppSinkReader(pipeline: pipeline)
                try pipeline.play()
                let expected = TestFrames.make(.i420, index: 3)
                try {
                    let pushed = TestFrames.make(.i420, index: 3, pool: source)
                    pushedBuffer = ObjectIdentifier(pushed.buffer)
                    try writer.push(pushed, at: Timestamp(seconds: 0.5))
                }()

                // GStreamer holds the wrapped buffer, so the pool must not hand it out again.
                let whileHeld = source.makeImage(width: 320, height: 240, format: .i420)
                #expect(ObjectIdentifier(whileHeld.buffer) != pushedBuffer)
                #expect(source.allocationCount == 2)

                guard case .frame(let received, let timestamp) = try reader.next(timeout: 5) else {
                    Issue.record("no frame came out")
                    return
                }
                #expect(timestamp == Timestamp(seconds: 0.5))
                #expect(TestFrames.samePixels(received, expected))
                writer.endOfStream()
                #expect(try pipeline.waitForEndOfStream(timeout: 5))
            }()

            // The pipeline is gone and has released the memory: the buffer is free for reuse.
            let afterRelease = source.makeImage(width: 320, height: 240, format: .i420)
            #expect(ObjectIdentifier(afterRelease.buffer) == pushedBuffer)
            #expect(source.allocationCount == 2)
        }

        @Test func croppedImagesAreCopiedThenPushed() throws {
            let pipeline = try Pipeline("appsrc name=src ! appsink name=sink sync=false")
            let writer = try AppSrcWriter(pipeline: pipeline, format: .nv12, width: 100, height: 60, fps: 25)
            let reader = try AppSinkReader(pipeline: pipeline)
            try pipeline.play()
            let crop = TestFrames.make(.nv12, index: 1).cropped(x: 10, y: 20, width: 100, height: 60)
            #expect(!crop.isContiguous)
            try writer.push(crop, at: .zero)
            guard case .frame(let received, _) = try reader.next(timeout: 5) else {
                Issue.record("no frame came out")
                return
            }
            #expect(TestFrames.samePixels(received, crop))
        }

        @Test func mismatchedFramesAndEndedStreamsAreRefused() throws {
            let pipeline = try Pipeline("appsrc name=src ! fakesink")
            let writer = try AppSrcWriter(pipeline: pipeline, format: .i420, width: 320, height: 240, fps: 30)
            try pipeline.play()
            #expect(throws: GStreamerError.self) { try writer.push(TestFrames.make(.rgba8), at: .zero) }
            #expect(throws: GStreamerError.self) {
                try writer.push(TestFrames.make(.i420), at: Timestamp(nanoseconds: -1))
            }
            writer.endOfStream()
            writer.endOfStream()
            #expect(throws: GStreamerError.self) { try writer.push(TestFrames.make(.i420), at: .zero) }
        }

        @Test func aStalledPipelineEndsTheWaitWithAnError() throws {
            // Never set to PLAYING: nothing drains the queue.
            let pipeline = try Pipeline("appsrc name=src ! fakesink")
            let writer = try AppSrcWriter(pipeline: pipeline, format: .gray8, width: 64, height: 48, fps: 30)
            writer.stallTimeout = .milliseconds(300)
            #expect(throws: GStreamerError.self) {
                for i in 0..<10 {
                    try writer.push(TestFrames.make(.gray8, width: 64, height: 48), at: Timestamp(frame: i, fps: 30))
                }
            }
        }
    }
}
