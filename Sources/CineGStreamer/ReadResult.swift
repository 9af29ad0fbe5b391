// ReadResult: what one pull from an appsink produced.
import CineMedia

/// The outcome of ``AppSinkReader/next(timeout:)``.
public enum ReadResult: Sendable {
    /// A frame and its presentation timestamp.
    case frame(Image, Timestamp)
    /// No frame arrived within the timeout; the stream goes on.
    case timeout
    /// The stream has ended; no more frames will come.
    case endOfStream
}
