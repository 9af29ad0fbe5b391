// TrackCursor: one track of an asset (video or disparity) read at any frame — forward by
// decoding on when the frame is a little ahead, else from the keyframe before it.
import CineGStreamer
import CineMedia

/// Reads frame `index` of one image track of an asset, decoding as little as it can: a frame
/// a few ahead of the last one read is reached by decoding on; any other is reached by seeking
/// to the keyframe before it and decoding forward. Every frame decoded on the way is shown to
/// the caller (to cache). Use from one thread at a time.
final class TrackCursor {
    private let reader: AssetTrackReader
    private let times: [Int64]
    /// The last frame read and its index.
    private var last: (index: Int, image: Image)?
    /// Frames ahead of the last that are reached by decoding on rather than by seeking: a
    /// little less than a keyframe interval for video; for a track of keyframes only, the next
    /// frame alone (a seek decodes one frame, decoding on decodes each one between).
    private var decodeAhead: Int { allKeyframes ? 1 : 12 }
    /// Seeks made (for the statistics).
    private(set) var seeks = 0
    /// Frames decoded.
    private(set) var decoded = 0

    /// True when every frame is a keyframe: a seek then skips the frames before the wanted
    /// one without decoding them.
    private let allKeyframes: Bool

    /// Opens `track` of `path`; `times` are the take's frame times (nanoseconds, ascending);
    /// `allKeyframes` when every frame of the track decodes alone.
    init(path: String, track: AssetTrackReader.Track, times: [Int64], allKeyframes: Bool = false) throws {
        reader = try AssetTrackReader(path: path, track: track, pool: ImagePool(), seeking: true)
        self.times = times
        self.allKeyframes = allKeyframes
    }

    /// Frame `index`; `visit` sees the frames decoded to reach it that lie fewer than `keep`
    /// frames before it (`index` last), with their indices. The others are decoded, not copied.
    func image(at index: Int, keep: Int = 1, visit: (Int, Image) -> Void) throws -> Image {
        if let last, last.index == index { return last.image }
        if last == nil || index < last!.index || index - last!.index > decodeAhead {
            let t = Timestamp(nanoseconds: times[index])
            if allKeyframes { try reader.seekSkippingDecode(to: t) } else { try reader.seek(toKeyframeBefore: t) }
            seeks += 1
            last = nil
        }
        let times = self.times
        while true {
            guard let (image, t) = try reader.nextImage(timeout: 10, copyIf: { index - FrameTimes.nearest($0.nanoseconds, in: times) < keep })
            else {
                throw EditError(.notFound, "frame \(index) is past the end of the track")
            }
            decoded += 1
            guard let image else { continue }
            let i = FrameTimes.nearest(t.nanoseconds, in: times)
            last = (i, image)
            visit(i, image)
            if i >= index { return image }
        }
    }
}
