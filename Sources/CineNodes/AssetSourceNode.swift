// AssetSourceNode: plays a cinematic asset back — original frames, disparity and metadata of
// each instant, in step — so that a graph can re-render it (`cinegraph render`).
import CineGStreamer
import CineGraph
import CineMedia
import Foundation

/// Kind `asset-source`: reads a cinematic asset written by the `asset` node.
public struct AssetSourceNode: Node {
    public static let kind = "asset-source"
    public static let summary = "Plays a cinematic asset back: original frames, disparity, detections and focus in step."
    public static let details = """
        Reads the three tracks of an asset (docs/asset.md) together and emits, per recorded \
        frame, the original view, its disparity map (decoded to float32 at the track's resolution, \
        in full-resolution pixels), the recorded detections and — when the recording had one — \
        the recorded focus. Offline: nothing is dropped. `cinegraph render` builds a graph \
        asset-source → bokeh → movie around it.
        """

    @Output(formats: [.i420], "The original reference view") public var video: Image
    @Output("Disparity of each frame") public var disparity: DisparityMap
    @Output("Detections recorded with each frame") public var detections: Detections
    @Output("Focus recorded with each frame (not produced when none was recorded)") public var focus: FocusState
    @Output("The kept stereo pair (KeptPair) at the video's size, for matching depth again (only from an asset that kept its pair)")
    public var stereo: StereoFrame
    @Output("Each frame's whole metadata record (its time, focus, detections, what was carried)")
    public var record: AssetFrameRecord
    @Parameter(default: "", "The asset (.mkv)") public var path: String

    private var videoTrack: AssetTrackReader?
    private var disparityTrack: AssetTrackReader?
    private var metadataTrack: AssetTrackReader?
    private var pairTrack: AssetTrackReader?
    private var header: AssetHeader?

    public init() {}

    public func validate() throws {
        if path.isEmpty { throw ParameterError("path", "no asset given") }
    }

    public func preflight() throws {
        if !FileManager.default.fileExists(atPath: path) { throw ParameterError("path", "no such asset: \(path)") }
    }

    public mutating func start(_ ctx: inout NodeContext) throws {
        metadataTrack = try AssetTrackReader(path: path, track: .metadata)
        videoTrack = try AssetTrackReader(path: path, track: .video, pool: ctx.pool)
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        guard let metadataTrack, let videoTrack else { return }
        guard let record = try metadataTrack.nextRecord(), let (frame, _) = try videoTrack.nextImage() else {
            ctx.endOfStream()
            return
        }
        if header == nil {
            guard let h = metadataTrack.header else {
                throw ParameterError("path", "\(path) has no cinegraph asset header: is it an asset?")
            }
            header = h
            if h.disparityWidth != nil { disparityTrack = try AssetTrackReader(path: path, track: .disparity) }
            if ctx.isConnected($stereo) {
                guard h.pairWidth != nil else {
                    throw ParameterError("path", "\(path) did not keep its stereo pair (the asset's right input keeps it): its depth cannot be matched again")
                }
                pairTrack = try AssetTrackReader(path: path, track: .pair, pool: ctx.pool)
            }
        }
        ctx.timestamp = Timestamp(nanoseconds: record.time)
        video = frame
        if let disparityTrack, let h = header {
            guard let (samples, _) = try disparityTrack.nextImage() else {
                throw ParameterError("path", "\(path): the disparity track ends before frame \(ctx.frameIndex)")
            }
            disparity = DisparityMap(quantized: samples, scale: h.disparityScale, referenceWidth: frame.width,
                                     referenceHeight: frame.height)
        }
        if let pairTrack {
            guard let (kept, _) = try pairTrack.nextImage() else {
                throw ParameterError("path", "\(path): the kept pair ends before frame \(ctx.frameIndex)")
            }
            stereo = KeptPair.restored(kept, width: frame.width, height: frame.height, pool: ctx.pool)
        }
        detections = record.detections
        if let f = record.focus { focus = f }
        self.record = record
    }
}
