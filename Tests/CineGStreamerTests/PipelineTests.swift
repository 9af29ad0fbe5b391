// Pipeline: parse errors name the element, runtime errors surface as thrown errors, EOS waits.
import CineMedia
import Foundation
import Testing

@testable import CineGStreamer

extension CineGStreamerTests {
    @Suite struct PipelineTests {
        @Test func initializeIsIdempotentAndReportsAVersion() throws {
            try GStreamer.initialize()
            try GStreamer.initialize()
            #expect(GStreamer.version.hasPrefix("GStreamer 1."))
            #expect(GStreamer.hasElement("videotestsrc"))
            #expect(!GStreamer.hasElement("nosuchelement"))
        }

        @Test func parseErrorNamesTheMissingElement() {
            do {
                _ = try Pipeline("videotestsrc ! nosuchelement ! fakesink")
                Issue.record("a pipeline with a missing element parsed")
            } catch let error as GStreamerError {
                #expect(error.element == "nosuchelement")
                #expect(error.description.contains("nosuchelement"))
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }

        @Test func failingStateChangeThrowsTheElementsError() throws {
            let pipeline = try Pipeline("filesrc location=/nonexistent/cinegraph.bin ! fakesink")
            do {
                try pipeline.play()
                Issue.record("playing a missing file succeeded")
            } catch let error as GStreamerError {
                #expect(error.element == "filesrc0")
                #expect(error.description.contains("GStreamer element 'filesrc0'"))
            }
            // Errors are sticky: the pipeline keeps reporting it.
            #expect(throws: GStreamerError.self) { try pipeline.checkForErrors() }
        }

        @Test func waitForEndOfStreamTimesOutOnALiveSource() throws {
            let pipeline = try Pipeline("videotestsrc is-live=true ! video/x-raw,width=64,height=48 ! fakesink")
            try pipeline.play()
            let start = ContinuousClock.now
            #expect(try pipeline.waitForEndOfStream(timeout: 0.3) == false)
            #expect(ContinuousClock.now - start < .seconds(2))
            pipeline.sendEndOfStream()
            #expect(try pipeline.waitForEndOfStream(timeout: 5) == true)
            // Seen once, end-of-stream stays seen.
            #expect(try pipeline.waitForEndOfStream(timeout: 0) == true)
            pipeline.stop()
            pipeline.stop()
        }

        @Test func durationOfAFiniteStreamIsKnownAfterPreroll() throws {
            let pipeline = try Pipeline(
                "videotestsrc num-buffers=10 ! video/x-raw,width=64,height=48,framerate=10/1 ! fakesink sync=false")
            try pipeline.play()
            #expect(try pipeline.waitForEndOfStream(timeout: 5))
        }
    }
}
