// AudioTrackReader: decodes a file's sound to one channel of float samples — what the voice
// detector hears after the take.
import CGStreamer
import CineMedia

/// Reads the first audio stream of a movie or cinematic asset as one channel (the channels
/// mixed) of 32-bit float samples at a chosen rate (`decodebin` → `audioconvert` →
/// `audioresample` → `appsink`).
public enum AudioTrackReader {
    /// The whole sound of `path`, mixed to one channel at `sampleRate`, with the time of its first
    /// sample (seconds on the file's clock: 0 when the sound starts with the first frame);
    /// `nil` when the file has no sound.
    /// - Throws: ``GStreamerError`` when the file is missing, cannot be decoded, or stalls for `timeout` s.
    public static func readMono(path: String, sampleRate: Int = 16_000, timeout: Double = 20) throws -> AudioBlock? {
        var samples: [Float] = []
        var start: Int64?
        try AudioProbe.decode(
            path: path, caps: "audio/x-raw,format=F32LE,layout=interleaved,channels=1,rate=\(sampleRate)", timeout: timeout
        ) { _, buffer in
            if start == nil {
                let pts = cg_buffer_pts(buffer)
                start = pts == CG_CLOCK_TIME_NONE ? 0 : Int64(pts)
            }
            AudioSinkReader.appendFloats(of: buffer, to: &samples)
        }
        guard let start else { return nil }
        return AudioBlock(samples: samples, sampleRate: sampleRate, start: Timestamp(nanoseconds: start))
    }
}
