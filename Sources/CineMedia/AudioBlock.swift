// AudioBlock: a stretch of sound as it travels through a graph beside the frames — the samples
// a microphone (or the synthetic camera's voices) recorded over one frame's interval.

/// A stretch of sound: interleaved 32-bit float samples (−1…1) from `start` on.
///
/// Sources send one block per frame, covering that frame's interval, so sound and pictures
/// arrive together at every node that reads both (the `detector` hears who speaks while it sees
/// the mouths; the `asset` records both on one clock).
public struct AudioBlock: Sendable, Hashable {
    /// The samples, interleaved by channel (`channels` values per instant).
    public var samples: [Float]
    /// Channels per instant: 1 (mono), 2 (stereo), 4 (quad or ambisonic), …
    public var channels: Int
    /// Instants per second.
    public var sampleRate: Int
    /// When the first sample was heard, on the graph's clock.
    public var start: Timestamp

    /// A block of `samples` (interleaved by `channels`) heard from `start` on.
    public init(samples: [Float], channels: Int = 1, sampleRate: Int, start: Timestamp) {
        precondition(channels > 0 && sampleRate > 0, "an audio block needs channels and a sample rate")
        self.samples = samples
        self.channels = channels
        self.sampleRate = sampleRate
        self.start = start
    }

    /// Instants in the block (samples per channel).
    public var frameCount: Int { samples.count / channels }

    /// How long the block lasts, seconds.
    public var duration: Double { Double(frameCount) / Double(sampleRate) }

    /// The channels mixed to one (their mean), as a voice detector hears them: a mono, stereo or
    /// four-channel microphone alike.
    public func mono() -> [Float] {
        guard channels > 1 else { return samples }
        let n = frameCount
        var out = [Float](repeating: 0, count: n)
        let scale = 1 / Float(channels)
        samples.withUnsafeBufferPointer { s in
            for i in 0..<n {
                var sum: Float = 0
                for c in 0..<channels { sum += s[i * channels + c] }
                out[i] = sum * scale
            }
        }
        return out
    }
}
