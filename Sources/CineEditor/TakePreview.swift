// TakePreview: the editor's picture — any frame of the take at preview size, with the bokeh of
// the current focus and aperture burned in, as JPEG. Decodes near the keyframe and keeps a
// small cache of preview-size frames, so scrubbing back and forth decodes little.
import CineGStreamer
import CineMedia
import CineViewfinder
import CineVision
import Dispatch
import Foundation
import Synchronization

/// Renders frames of one asset for the editor: seek, decode (video and disparity in parallel),
/// scale to the preview size, cache, bokeh, JPEG. Thread-safe: requests are served one at a time.
public final class TakePreview: Sendable {
    /// Counters since the preview opened.
    public struct Statistics: Sendable, Codable {
        /// Frames served, and of those found in the cache.
        public var frames = 0
        public var cacheHits = 0
        /// Keyframe seeks and frames decoded (video track).
        public var seeks = 0
        public var decoded = 0
    }

    /// The preview size (the reference view scaled to at most ``maxWidth`` wide).
    public let width: Int
    public let height: Int
    /// The widest preview served.
    public static let maxWidth = 960
    /// Frames each cache (video, disparity) holds: about 0.8 MB per video frame at 960×540,
    /// up to 1 MB per map.
    public static let cacheFrames = 120

    /// Video frames decoded on the way to a target that are kept, counting the target.
    static let keptBeforeTarget = 8

    private struct Entry {
        var video: Image
        var disparity: Image
    }

    private struct State {
        var video: TrackCursor
        var disparity: TrackCursor
        var videos = FrameCache<Image>(capacity: TakePreview.cacheFrames)
        var maps = FrameCache<Image>(capacity: TakePreview.cacheFrames)
        var renderer = BokehRenderer()
        /// The rendered frames' buffers, reused from one request to the next.
        let pool = ImagePool(limit: 4)
        var statistics = Statistics()
    }

    private let header: AssetHeader
    private let state: Mutex<State>
    private let encoder = JPEGEncoder(quality: 80)
    private let resizer = ImageResizer()

    /// Opens the video and disparity tracks of the asset at `path`.
    /// - Throws: when the asset has no disparity track or a track cannot be opened.
    public init(path: String, header: AssetHeader, times: [Int64]) throws {
        guard header.disparityWidth != nil else {
            throw EditError(.invalid, "\(path) has no disparity track: record it with the asset node's disparity input connected")
        }
        self.header = header
        let w = max(2, min(header.referenceWidth, Self.maxWidth) & ~1)
        width = w
        height = max(2, Int((Double(header.referenceHeight) * Double(w) / Double(header.referenceWidth)).rounded()) & ~1)
        state = Mutex(State(video: try TrackCursor(path: path, track: .video, times: times),
                            disparity: try TrackCursor(path: path, track: .disparity, times: times,
                                                       allKeyframes: header.disparityKeyframeInterval == 1)))
    }

    /// Counters since the preview opened.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Frame `index` with focus at `focusDisparity` and f/`fNumber`, as JPEG at most `maxWidth` wide.
    public func jpeg(index: Int, focusDisparity: Double, fNumber: Double, maxWidth: Int = .max) throws -> [UInt8] {
        try state.withLock { s throws -> [UInt8] in
            let entry = try Self.entry(index, &s, header: header, size: (width, height), resizer: resizer)
            let map = DisparityMap(quantized: entry.disparity, scale: header.disparityScale,
                                   referenceWidth: header.referenceWidth, referenceHeight: header.referenceHeight)
            let rendered = try s.renderer.render(entry.video, disparity: map, focusDisparity: focusDisparity, fNumber: fNumber,
                                                 pool: s.pool)
            guard let jpeg = encoder.encode(rendered, maxWidth: maxWidth) else {
                throw EditError(.invalid, "the preview frame cannot be encoded")
            }
            return jpeg
        }
    }

    /// The disparity (full-resolution pixels) a tap at normalised point (`x`, `y`) of frame
    /// `index` means — the same robust lookup as a live tap — `nil` where the map has no valid
    /// sample near it.
    public func disparity(index: Int, x: Double, y: Double) throws -> Double? {
        try state.withLock { s throws -> Double? in
            let entry = try Self.entry(index, &s, header: header, size: (width, height), resizer: resizer)
            let map = DisparityMap(quantized: entry.disparity, scale: header.disparityScale,
                                   referenceWidth: header.referenceWidth, referenceHeight: header.referenceHeight)
            return map.robustDisparity(at: NormalizedPoint(x: x, y: y))
        }
    }

    /// The object at normalised point (`x`, `y`) of frame `index`, followed forward through the
    /// take by its look, as live: one sample per frame it is seen (time from `times`), its box,
    /// and its disparity (the robust disparity inside the box in the recorded map). When it is
    /// lost (hidden, or out of the frame) it is searched for, and found again with the same
    /// track; frames it was not seen have no sample (a gap: ``FocusTrack/isInGap(_:)``). Ends
    /// when the tracker gives up (5 s lost) or after `limit` frames. Empty when there is no
    /// object at the point (the background, or too small or plain to follow). Decodes the frames
    /// at full resolution, in order: about the take's decoding time.
    public func follow(from index: Int, x: Double, y: Double, times: [Int64], limit: Int = 900) throws -> [FocusTrackSample] {
        try state.withLock { s throws -> [FocusTrackSample] in
            let header = self.header
            func map(_ i: Int) throws -> DisparityMap {
                DisparityMap(quantized: try s.disparity.image(at: i) { _, _ in }, scale: header.disparityScale,
                             referenceWidth: header.referenceWidth, referenceHeight: header.referenceHeight)
            }
            let first = try s.video.image(at: index) { _, _ in }
            let firstMap = try map(index)
            guard let found = TappedObjectFinder().find(at: NormalizedPoint(x: x, y: y), in: first, disparity: firstMap),
                  var tracker = AppearanceTracker(image: first, bounds: found.bounds) else { return [] }
            var d = firstMap.robustDisparity(in: found.bounds, previous: found.disparity) ?? found.disparity
            var samples: [FocusTrackSample] = []
            if let d { samples.append(FocusTrackSample(time: Timestamp(nanoseconds: times[index]), bounds: tracker.bounds, disparity: d)) }
            var i = index + 1, wasTracking = true
            while i < min(times.count, index + limit), !tracker.isFinished {
                let o = tracker.update(try s.video.image(at: i) { _, _ in })
                i += 1
                guard case .tracking = o.status else {
                    // The frames the tracker took to say it was lost are not the object's.
                    if wasTracking { samples.removeLast(min(samples.count, tracker.configuration.missesToLose - 1)) }
                    wasTracking = false
                    continue
                }
                wasTracking = true
                d = try map(i - 1).robustDisparity(in: o.bounds, previous: d) ?? d
                if let d { samples.append(FocusTrackSample(time: Timestamp(nanoseconds: times[i - 1]), bounds: o.bounds, disparity: d)) }
            }
            return samples
        }
    }

    /// Frame `index` at preview size and its disparity map: from the caches, else decoded (the
    /// two tracks at once). The video frames decoded just before it are kept, so a short
    /// scrub back decodes no video.
    private static func entry(_ index: Int, _ s: inout State, header: AssetHeader, size: (Int, Int),
                              resizer: ImageResizer) throws -> Entry {
        s.statistics.frames += 1
        let cachedVideo = s.videos.get(index), cachedMap = s.maps.get(index)
        if let cachedVideo, let cachedMap {
            s.statistics.cacheHits += 1
            return Entry(video: cachedVideo, disparity: cachedMap)
        }
        let videos = Mutex<[(Int, Image)]>([]), maps = Mutex<[(Int, Image)]>([])
        let failure = Mutex<(any Error)?>(nil)
        nonisolated(unsafe) let video = s.video, disparity = s.disparity
        let jobs = [cachedVideo == nil ? 0 : nil, cachedMap == nil ? 1 : nil].compactMap { $0 }
        DispatchQueue.concurrentPerform(iterations: jobs.count) { k in
            do {
                if jobs[k] == 0 {
                    // The frames just before the target are worth keeping (a scrub back);
                    // copying and scaling the whole keyframe interval would cost more than it saves.
                    _ = try video.image(at: index, keep: Self.keptBeforeTarget) { i, image in
                        let small = image.width == size.0 ? image.copy() : resizer.resize(image, width: size.0, height: size.1)
                        videos.withLock { $0.append((i, small)) }
                    }
                } else {
                    let map = try disparity.image(at: index) { _, _ in }
                    maps.withLock { $0.append((index, Self.decimated(map, toWidth: size.0))) }
                }
            } catch {
                failure.withLock { $0 = error }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        s.statistics.seeks = s.video.seeks
        s.statistics.decoded = s.video.decoded
        for (i, image) in videos.withLock({ $0 }) { s.videos.put(i, image) }
        for (i, map) in maps.withLock({ $0 }) { s.maps.put(i, map) }
        guard let v = cachedVideo ?? s.videos.get(index), let m = cachedMap ?? s.maps.get(index) else {
            throw EditError(.notFound, "frame \(index) could not be decoded")
        }
        return Entry(video: v, disparity: m)
    }

    /// A gray16 disparity map no wider than `width`: every k-th sample of every k-th row (a
    /// disparity is not averaged across a depth edge). A copy either way: the cache keeps it.
    static func decimated(_ map: Image, toWidth width: Int) -> Image {
        let k = max(1, map.width / max(1, width))
        if k == 1 { return map.copy() }
        let w = map.width / k, h = map.height / k
        let out = Image(width: w, height: h, format: .gray16)
        let src = map.plane(0), dst = out.plane(0)
        for y in 0..<h {
            let a = src.row(y * k, as: UInt16.self), b = dst.row(y, as: UInt16.self)
            for x in 0..<w { b[x] = a[x * k] }
        }
        return out
    }
}
