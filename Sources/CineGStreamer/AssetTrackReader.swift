// AssetTrackReader: reads one track of a cinematic asset back — the video, the disparity map or
// the metadata records — frame by frame.
import CGStreamer
import CineMedia
import Foundation

/// Reads one track of an asset written by ``AssetWriter``. Each track has its own pipeline,
/// so the tracks can be read at their own pace (a renderer reads all three in step).
public final class AssetTrackReader: @unchecked Sendable {
    /// The tracks of an asset.
    public enum Track: String, Sendable, CaseIterable {
        case video, disparity, metadata
        /// The stereo pair's luma at a quarter of the size, side by side (``AssetHeader/pairWidth``), when kept.
        case pair
    }

    /// The header, read from the first metadata record (metadata track only, after the first read).
    public private(set) var header: AssetHeader?
    private let pipeline: Pipeline
    private let frames: AppSinkReader?
    private let sink: UnsafeMutablePointer<GstElement>?
    private let decoder = JSONDecoder()
    private let track: Track
    private let path: String
    /// Where the skip probe reads the time before which frames are dropped (allocated once installed).
    private var skipBefore: UnsafeMutablePointer<gint64>?

    /// Opens `track` of the asset at `path`. `seeking`: the reader will jump around (the
    /// editor), so the video decoder threads within a frame rather than across frames — each
    /// frame comes out sooner, at some cost to the rate of a straight read.
    public init(path: String, track: Track, pool: ImagePool = ImagePool(), seeking: Bool = false) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw GStreamerError(element: nil, message: "no such asset: \(path)")
        }
        try GStreamer.initialize()
        self.track = track
        self.path = path
        let branch: String
        switch track {
        case .video:
            let threads = seeking ? " max-threads=2 thread-type=slice" : ""
            branch = "d.video_0 ! queue ! h264parse ! avdec_h264\(threads) ! videoconvert ! video/x-raw,format=I420"
        case .disparity:
            branch = "d.video_1 ! queue name=encoded ! avdec_ffv1 ! videoconvert ! video/x-raw,format=GRAY16_LE"
        case .pair:
            branch = "d.video_2 ! queue ! h264parse ! avdec_h264 ! videoconvert ! video/x-raw,format=I420"
        case .metadata:
            branch = "d.subtitle_0 ! queue"
        }
        pipeline = try Pipeline("filesrc location=\(Pipeline.quoted(path)) ! matroskademux name=d \(branch) ! appsink name=sink sync=false max-buffers=8")
        if track == .metadata {
            frames = nil
            sink = pipeline.child(named: "sink")
        } else {
            frames = try AppSinkReader(pipeline: pipeline, name: "sink", pool: pool)
            sink = nil
        }
        try pipeline.play()
    }

    deinit {
        if let sink { gst_object_unref(sink) }
        pipeline.stop()
        skipBefore?.deallocate()
    }

    /// The next image of the video or disparity track, or `nil` at the end.
    public func nextImage(timeout: Double = 10) throws -> (Image, Timestamp)? {
        guard let frames else { throw GStreamerError(element: nil, message: "the \(track) track has no images") }
        switch try frames.next(timeout: timeout) {
        case .frame(let image, let t): return (image, t)
        case .endOfStream: return nil
        case .timeout: throw GStreamerError(element: "matroskademux", message: "no \(track) frame within \(timeout) s in \(path)")
        }
    }

    /// Moves the disparity track to `time` without decoding the frames before it: they are
    /// dropped before the decoder. Only for an asset whose disparity frames are all keyframes
    /// (``AssetHeader/disparityKeyframeInterval`` is 1); the next ``nextImage(timeout:)``
    /// returns the frame at `time`.
    public func seekSkippingDecode(to time: Timestamp) throws {
        guard track == .disparity else { throw GStreamerError(element: nil, message: "only the disparity track skips frames") }
        if skipBefore == nil {
            guard let queue = pipeline.child(named: "encoded") else {
                throw GStreamerError(element: "queue", message: "the disparity branch has no queue named 'encoded'")
            }
            defer { gst_object_unref(queue) }
            let p = UnsafeMutablePointer<gint64>.allocate(capacity: 1)
            p.initialize(to: 0)
            guard cg_install_skip_before(queue, p) != 0 else {
                p.deallocate()
                throw GStreamerError(element: "queue", message: "cannot install the skip probe")
            }
            skipBefore = p
        }
        // Half a millisecond of slack: frame times are rounded to nanoseconds.
        cg_atomic_store_int64(skipBefore, gint64(time.nanoseconds - 500_000))
        try pipeline.seek(toNanoseconds: time.nanoseconds, keyUnit: true)
    }

    /// Moves the video or disparity track to its keyframe at or before `time`: the next
    /// ``nextImage(timeout:)`` returns that keyframe (decode forward to reach `time`).
    public func seek(toKeyframeBefore time: Timestamp) throws {
        try pipeline.seek(toNanoseconds: time.nanoseconds, keyUnit: true)
    }

    /// The next image of the video or disparity track with its time, its pixels copied only
    /// when `keep` says so for its time; `nil` at the end.
    public func nextImage(timeout: Double = 10, copyIf keep: (Timestamp) -> Bool) throws -> (Image?, Timestamp)? {
        guard let frames else { throw GStreamerError(element: nil, message: "the \(track) track has no images") }
        switch try frames.next(timeout: timeout, copyIf: keep) {
        case .frame(let image, let t): return (image, t)
        case .endOfStream: return nil
        case .timeout: throw GStreamerError(element: "matroskademux", message: "no \(track) frame within \(timeout) s in \(path)")
        }
    }

    /// The next frame record of the metadata track (the header is read on the way), or `nil` at the end.
    public func nextRecord(timeout: Double = 10) throws -> AssetFrameRecord? {
        guard let sink else { throw GStreamerError(element: nil, message: "the \(track) track has no records") }
        guard let sample = try pipeline.pullSample(from: sink, timeout: timeout) else {
            if gst_app_sink_is_eos(cg_app_sink(sink)) != 0 { return nil }
            throw GStreamerError(element: "matroskademux", message: "no metadata within \(timeout) s in \(path)")
        }
        defer { gst_sample_unref(sample) }
        guard let buffer = gst_sample_get_buffer(sample) else { return nil }
        var info = GstMapInfo()
        guard gst_buffer_map(buffer, &info, GST_MAP_READ) != 0 else {
            throw GStreamerError(element: nil, message: "cannot map a metadata buffer")
        }
        let raw = String(decoding: UnsafeBufferPointer(start: info.data, count: Int(info.size)), as: UTF8.self)
        gst_buffer_unmap(buffer, &info)
        // matroskademux returns S_TEXT/UTF8 as pango markup: XML entities escaped.
        let data = Data(Self.unescapeMarkup(raw).utf8)
        var record: AssetFrameRecord?
        for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            let doc = Data(line)
            if header == nil, let h = try? decoder.decode(AssetHeader.self, from: doc), h.format == "cinegraph-asset" {
                guard h.version == 1 else {
                    throw GStreamerError(element: nil, message: "\(path): asset format version \(h.version) is not supported (this cinegraph reads version 1)")
                }
                header = h
                continue
            }
            do { record = try decoder.decode(AssetFrameRecord.self, from: doc) } catch {
                throw GStreamerError(element: nil, message: "\(path): a metadata record cannot be read: \(error)")
            }
        }
        return record
    }

    /// Undoes the XML escaping of pango markup (`&amp;` last, so `&amp;quot;` stays `&quot;`).
    static func unescapeMarkup(_ s: String) -> String {
        guard s.contains("&") else { return s }
        return s.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
    }
}

extension AssetTrackReader {
    /// Reads the whole metadata track of the asset at `path`: its header and every frame record.
    /// - Throws: ``GStreamerError`` naming the file when it is missing, not Matroska, or not a
    ///   cinematic asset (no header record).
    public static func readMetadata(path: String, timeout: Double = 30) throws -> (AssetHeader, [AssetFrameRecord]) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw GStreamerError(element: nil, message: "\(path): no such asset file")
        }
        let reader: AssetTrackReader
        do { reader = try AssetTrackReader(path: path, track: .metadata) } catch {
            throw GStreamerError(element: nil, message: "\(path) is not a cinematic asset (\(error))")
        }
        var records: [AssetFrameRecord] = []
        do {
            while let r = try reader.nextRecord(timeout: timeout) { records.append(r) }
        } catch {
            // A take cut short (SIGKILL) ends in a partial cluster: keep what was read.
            if records.isEmpty || reader.header == nil {
                throw GStreamerError(element: nil, message: "\(path) is not a cinematic asset (\(error))")
            }
        }
        guard let header = reader.header else {
            throw GStreamerError(element: nil, message: "\(path) is not a cinematic asset: it has no cinegraph header record")
        }
        return (header, records)
    }
}

extension AssetTrackReader {
    /// Reads the header and first record of the asset at `path` (a quick check that it is one).
    /// - Throws: ``GStreamerError`` naming the file when it is missing, not Matroska, or not a cinematic asset.
    public static func readMetadataStart(path: String, timeout: Double = 10) throws -> (AssetHeader, AssetFrameRecord) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw GStreamerError(element: nil, message: "\(path): no such asset file")
        }
        do {
            let reader = try AssetTrackReader(path: path, track: .metadata)
            if let first = try reader.nextRecord(timeout: timeout), let header = reader.header { return (header, first) }
        } catch let error as GStreamerError where error.message.contains("version") {
            throw error
        } catch {
            throw GStreamerError(element: nil, message: "\(path) is not a cinematic asset (\(error))")
        }
        throw GStreamerError(element: nil, message: "\(path) is not a cinematic asset: it has no cinegraph header and frame records")
    }
}
