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
            let pipeline = try Pipeline("filesrc name=reader location=/nonexistent/cinegraph.bin ! fakesink")
            do {
                try pipeline.play()
                Issue.record("playing a missing file succeeded")
            } catch let error as GStreamerError {
                #expect(error.element == "reader")
                #expect(error.description.contains("GStreamer element 'reader'"))
                #expect(error.description.contains("/nonexistent/cinegraph.bin"))
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

        @Test func thePipelineOwnsItsElementOnce() throws {
            let pipeline = try Pipeline("videotestsrc ! fakesink")
            #expect(pipeline.elementReferenceCount == 1)
        }

        @Test func durationOfARecordedMovieIsKnown() throws {
            let folder = try TemporaryFolder()
            let path = folder.path("d.mkv")
            let recorder = try MovieRecorder(path: path, width: 160, height: 120, fps: 20, format: .gray8)
            for i in 0..<20 {
                try recorder.append(
                    TestFrames.make(.gray8, width: 160, height: 120, index: i),
                    at: Timestamp(frame: i, fps: 20))
            }
            try recorder.finish()
            let pipeline = try Pipeline("filesrc location=\"\(path)\" ! matroskademux ! fakesink sync=false")
            try pipeline.play()
            #expect(try pipeline.waitForEndOfStream(timeout: 5))
            let duration = try #require(pipeline.durationSeconds())
            #expect(abs(duration - 1.0) < 0.06, "duration \(duration)")
        }
    }
}
