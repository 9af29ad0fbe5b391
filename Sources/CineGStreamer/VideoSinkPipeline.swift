// VideoSinkPipeline: frames into any GStreamer description — `appsrc ! videoconvert ! TAIL` —
// started, fed and ended the same way by every sink node that hands frames to GStreamer.
import CineMedia
import Foundation

/// A playing pipeline `appsrc ! videoconvert ! tail` for frames of one format and size.
///
/// ```swift
/// let sink = try VideoSinkPipeline(tail: "pngenc ! multifilesink location=f%05d.png", for: frame, fps: 30)
/// try sink.push(frame, at: t)
/// try sink.finish(timeout: 15)   // EOS, wait for it, stop
/// ```
public final class VideoSinkPipeline: @unchecked Sendable {
    /// The pipeline, for its description and errors.
    public let pipeline: Pipeline
    private let writer: AppSrcWriter
    private var finished = false

    /// Builds and starts the pipeline for frames shaped like `frame` (format and size) at `fps`.
    public init(tail: String, format: PixelFormat, width: Int, height: Int, fps: Double) throws {
        try GStreamer.initialize()
        pipeline = try Pipeline("appsrc name=src ! videoconvert ! \(tail)")
        writer = try AppSrcWriter(pipeline: pipeline, name: "src", format: format, width: width, height: height, fps: fps)
        try pipeline.play()
    }

    /// Builds and starts the pipeline for frames like `frame`.
    public convenience init(tail: String, for frame: Image, fps: Double) throws {
        try self.init(tail: tail, format: frame.format, width: frame.width, height: frame.height, fps: fps)
    }

    /// Pushes one frame (zero-copy for contiguous images).
    public func push(_ image: Image, at timestamp: Timestamp) throws { try writer.push(image, at: timestamp) }

    /// Ends the stream and waits up to `timeout` seconds for it to drain; stops the pipeline either way.
    /// Returns whether end-of-stream arrived in time; throws the pipeline's error if it failed.
    /// `linger`: seconds to keep the pipeline open after end-of-stream, for a network sink
    /// (SRT) whose last packets are still on their way when the stream ends.
    @discardableResult
    public func finish(timeout: Double, linger: Double = 0) throws -> Bool {
        guard !finished else { return true }
        finished = true
        writer.endOfStream()
        defer {
            if linger > 0 { Thread.sleep(forTimeInterval: linger) }
            pipeline.stop()
        }
        return try pipeline.waitForEndOfStream(timeout: timeout)
    }

    /// Stops at once without waiting (what a sink does after its display went away).
    public func stop() {
        finished = true
        pipeline.stop()
    }
}
