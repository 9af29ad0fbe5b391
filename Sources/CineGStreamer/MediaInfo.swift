// MediaInfo: facts about a movie file, found by decoding it.
import CineMedia

/// What ``MediaProbe/inspect(path:)`` found in a movie file.
public struct MediaInfo: Sendable {
    /// Width of the video in pixels (0 when there is no video stream).
    public var width: Int
    /// Height of the video in pixels.
    public var height: Int
    /// The number of video frames decoded.
    public var frameCount: Int
    /// Where the video ends: the last frame's timestamp plus its duration, in seconds.
    public var durationSeconds: Double
    /// The presentation timestamp of the last video frame.
    public var lastTimestamp: Timestamp
    /// The presentation timestamp of the first video frame.
    public var firstTimestamp: Timestamp
    /// The frame rate the stream declares, if it declares one.
    public var framesPerSecond: Double?
    /// Whether the file has an audio stream.
    public var hasAudio: Bool

    /// Creates a description of a movie.
    public init(
        width: Int, height: Int, frameCount: Int, durationSeconds: Double, lastTimestamp: Timestamp,
        firstTimestamp: Timestamp = .zero, framesPerSecond: Double? = nil, hasAudio: Bool
    ) {
        self.width = width
        self.height = height
        self.frameCount = frameCount
        self.durationSeconds = durationSeconds
        self.lastTimestamp = lastTimestamp
        self.firstTimestamp = firstTimestamp
        self.framesPerSecond = framesPerSecond
        self.hasAudio = hasAudio
    }
}
