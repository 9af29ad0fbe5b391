// ViewfinderFrame: what the `viewfinder` node hands its server with each frame, and the
// settings the server is started with.
import CineGraph
import CineMedia
import Dispatch

/// One frame as the viewfinder node received it, with what is known about it.
public struct ViewfinderFrame: Sendable {
    /// The rendered frame (any format the service can encode; the node passes it unchanged).
    public var image: Image
    /// The frame's instant on the source's clock.
    public var timestamp: Timestamp
    /// How many frames the node received before this one.
    public var index: Int
    /// The frame's detections with their focus modes, when connected.
    public var detections: Detections?
    /// The frame's focus state, when connected.
    public var focus: FocusState?
    /// The scene statuses of the frame: the `scene` input, else those of the focus state.
    public var scene: SceneStatus?
    /// When the node received the frame, in `DispatchTime` uptime nanoseconds.
    public var receivedUptimeNanoseconds: UInt64

    /// Creates a frame record.
    public init(
        image: Image, timestamp: Timestamp, index: Int, detections: Detections? = nil,
        focus: FocusState? = nil, scene: SceneStatus? = nil,
        receivedUptimeNanoseconds: UInt64 = DispatchTime.now().uptimeNanoseconds
    ) {
        self.image = image
        self.timestamp = timestamp
        self.index = index
        self.detections = detections
        self.focus = focus
        self.scene = scene
        self.receivedUptimeNanoseconds = receivedUptimeNanoseconds
    }
}

/// How a viewfinder service is to serve, from the node's parameters.
public struct ViewfinderSettings: Sendable {
    /// The viewfinder node's name in the graph.
    public var nodeName: String
    /// The address to bind (`127.0.0.1` unless configured).
    public var address: String
    /// The port to bind; 0 picks a free one (``ViewfinderServer/url`` tells which).
    public var port: Int
    /// The shared secret every request must carry; empty = none (loopback only).
    public var token: String
    /// Width frames are scaled down to before encoding.
    public var width: Int
    /// JPEG quality, 1…100.
    public var quality: Int
    /// Most frames a second sent to one viewer.
    public var maxFPS: Double
    /// Most viewers at once (video streams); more are refused.
    public var maxViewers: Int
    /// The focus node gestures and focus requests go to; empty = the graph's only `focus` node.
    public var focusNode: String
    /// The aperture slider's bounds (f-numbers), narrowed to the focus node's own range.
    public var apertureRange: ClosedRange<Double>
    /// The running graph: commands, events, counters.
    public var graph: GraphControl

    /// Creates settings.
    public init(
        nodeName: String, address: String, port: Int, token: String, width: Int, quality: Int,
        maxFPS: Double, maxViewers: Int, focusNode: String, apertureRange: ClosedRange<Double>,
        graph: GraphControl
    ) {
        self.nodeName = nodeName
        self.address = address
        self.port = port
        self.token = token
        self.width = width
        self.quality = quality
        self.maxFPS = maxFPS
        self.maxViewers = maxViewers
        self.focusNode = focusNode
        self.apertureRange = apertureRange
        self.graph = graph
    }
}
