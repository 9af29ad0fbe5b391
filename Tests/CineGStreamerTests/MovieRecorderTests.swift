// MovieRecorder: recordings decode to the frames written, fragmented MP4 survives a hard stop,
// failures name the element and never hang, audio lands in the file.
import CineMedia
import Foundation
import Testing

@testable import CineGStreamer

extension CineGStreamerTests {
    @Suite struct MovieRecorderTests {
        /// Records `count` frames at `fps` to `path`, without calling finish.
        func record(
            _ path: String, count: Int, fps: Double = 30, format: PixelFormat = .i420,
            options: MovieRecorder.Options = MovieRecorder.Options()
        ) throws -> MovieRecorder {
            let recorder = try MovieRecorder(
                path: path, width: 320, height: 240, fps: fps, format: format,
                options: options)
            let pool = ImagePool()
            for i in 0..<count {
                // Timestamps need not start at 0: the movie starts at the first one.
                try recorder.append(
                    TestFrames.make(format, index: i, pool: pool),
                    at: Timestamp(seconds: 100) + Timestamp(frame: i, fps: fps))
            }
            return recorder
        }

        @Test(arguments: ["mp4", "mkv", "mov", "webm"])
        func recordingDecodesToEveryFrameWritten(_ ext: String) throws {
            let folder = try TemporaryFolder()
            let path = folder.path("movie.\(ext)")
            let recorder = try record(path, count: 45)
            try recorder.finish()
            try recorder.finish()  // a second call does nothing
            #expect(recorder.framesWritten == 45)
            let info = try MediaProbe.inspect(path: path)
            #expect(info.frameCount == 45)
            #expect(info.width == 320 && info.height == 240)
            #expect(abs(info.durationSeconds - 1.5) < 0.1, "duration \(info.durationSeconds)")
            #expect(info.firstTimestamp == .zero)
            #expect(!info.hasAudio)
        }

        @Test func rgbaInputIsConvertedToI420ForTheEncoder() throws {
            let folder = try TemporaryFolder()
            let path = folder.path("rgba.mkv")
            let recorder = try record(path, count: 10, format: .rgba8)
            try recorder.finish()
            #expect(recorder.pipelineDescription.contains("videoconvert ! video/x-raw,format=I420 ! x264enc"))
            #expect(try MediaProbe.inspect(path: path).frameCount == 10)
        }

        /// A fragmented MP4 stopped without end-of-stream keeps every fragment the muxer had
        /// completed. A fragment is written when the first frame past its second arrives, so
        /// the fragment in progress — up to a second of video, plus the frames still queued in
        /// appsrc and the encoder — is lost. 30 frames at 12 fps are 2.5 s: fragments [0, 1 s)
        /// and [1 s, 2 s) survive (24 frames); the last half second (6 frames) is lost. (At 30
        /// fps the same 30 frames would be one single unfinished fragment, and nothing would
        /// survive.)
        @Test func fragmentedMP4SurvivesAHardStop() throws {
            let folder = try TemporaryFolder()
            let path = folder.path("killed.mp4")
            let recorder = try record(path, count: 30, fps: 12)
            Thread.sleep(forTimeInterval: 0.5)  // a killed process has been running for a while
            recorder.abandon()
            let info = try MediaProbe.inspect(path: path)
            #expect(info.frameCount >= 20, "\(info.frameCount) frames survived")
            #expect(info.frameCount <= 30)
        }

        /// The other side of the fragment rule: 30 frames at 30 fps never complete a fragment, so
        /// a hard stop leaves only the header; inspecting it fails promptly instead of hanging.
        @Test func mp4StoppedBeforeItsFirstFragmentHasNoFramesAndSaysSo() throws {
            let folder = try TemporaryFolder()
            let path = folder.path("header-only.mp4")
            try record(path, count: 30).abandon()
            let start = ContinuousClock.now
            #expect(throws: GStreamerError.self) { try MediaProbe.inspect(path: path) }
            #expect(ContinuousClock.now - start < .seconds(5))
        }

        @Test func inspectingAMissingFileFails() {
            #expect {
                _ = try MediaProbe.inspect(path: "/nonexistent-dir/none.mkv")
            } throws: { error in
                String(describing: error).contains("/nonexistent-dir/none.mkv")
            }
        }

        @Test func unwritablePathThrowsNamingTheFileSink() {
            let start = ContinuousClock.now
            do {
                let recorder = try record("/nonexistent-dir/x.mp4", count: 5)
                try recorder.finish(timeout: 5)
                Issue.record("recording to a missing folder succeeded")
            } catch let error as GStreamerError {
                #expect(error.element?.hasPrefix("filesink") == true)
                #expect(error.description.contains("/nonexistent-dir/x.mp4"))
            } catch {
                Issue.record("unexpected error \(error)")
            }
            #expect(ContinuousClock.now - start < .seconds(10))
        }

        @Test func unknownExtensionNamesPathAndSupportedExtensions() {
            #expect {
                _ = try MovieRecorder(path: "/tmp/movie.avi", width: 320, height: 240, fps: 30, format: .i420)
            } throws: { error in
                let text = String(describing: error)
                return text.contains("/tmp/movie.avi") && text.contains(".mp4") && text.contains(".webm")
            }
        }

        @Test(arguments: ["mkv", "mp4"], [0, 4])
        func liveAudioIsRecordedAlongsideVideo(_ ext: String, _ channels: Int) throws {
            let folder = try TemporaryFolder()
            let path = folder.path("audio.\(ext)")
            var options = MovieRecorder.Options()
            options.audio = "test"
            options.audioChannels = channels
            let recorder = try MovieRecorder(
                path: path, width: 320, height: 240, fps: 30, format: .i420,
                options: options)
            #expect(recorder.pipelineDescription.contains(ext == "mkv" ? "opusenc" : "avenc_aac"))
            let start = ContinuousClock.now
            for i in 0..<60 {
                try recorder.append(TestFrames.make(.i420, index: i), at: Timestamp(frame: i, fps: 30))
                // Live: frames are stamped when pushed, so push them at the frame rate.
                let due = start + .nanoseconds(Int64(Timestamp(frame: i + 1, fps: 30).nanoseconds))
                let wait = ContinuousClock.now.duration(to: due)
                if wait > .zero { Thread.sleep(forTimeInterval: Double(wait.components.attoseconds) / 1e18) }
            }
            try recorder.finish()
            let info = try MediaProbe.inspect(path: path)
            #expect(info.hasAudio)
            // An ambisonic (four-channel) microphone stays four channels; by default the test tone is mono.
            #expect(try AudioProbe.inspect(path: path)?.channels == (channels == 4 ? 4 : 1))
            #expect(abs(info.frameCount - 60) <= 3, "\(info.frameCount) frames")
            #expect(
                abs(info.durationSeconds - info.firstTimestamp.seconds - 2) < 0.3,
                "video from \(info.firstTimestamp) to \(info.durationSeconds) s")
        }

        @Test func finishAfterAbandonDoesNothingAndAppendIsRefused() throws {
            let folder = try TemporaryFolder()
            let recorder = try record(folder.path("a.mkv"), count: 3)
            recorder.abandon()
            try recorder.finish()
            #expect(throws: GStreamerError.self) { try recorder.append(TestFrames.make(.i420), at: .zero) }
        }
    }
}
