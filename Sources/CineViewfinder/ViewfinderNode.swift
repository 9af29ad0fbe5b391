// ViewfinderNode: kind `viewfinder` — the web viewfinder's place in a graph. It declares the
// ports and parameters and hands each frame to its ViewfinderServer; the node itself does no
// encoding and never waits for a viewer. Registered by this module (`registerViewfinder()`),
// so a program that does not link the server does not have the kind.
import CineGraph
import CineMedia

/// Kind `viewfinder`: serves the live preview, the gestures and the control API over HTTP.
public struct ViewfinderNode: Node {
    public static let kind = "viewfinder"
    /// Viewers give way first: the take keeps the CPU when the machine is short.
    public static var priority: NodePriority? { .preview }
    public static let summary =
        "A web viewfinder and the JSON control API: live preview, tap to focus, aperture, stills."
    public static let details = """
        Serves a page at `http://ADDRESS:PORT/` with the newest frame (JPEG over a WebSocket, at \
        the viewer's display pace: frames are encoded only when a viewer is ready for one, off the \
        graph's thread, so a graph with no viewer does no extra work), the detection rectangles \
        (solid yellow = strong focus, dashed yellow = weak, white = none), the reference camera's \
        gestures (tap a rectangle, tap elsewhere, long press 0.3 s), an aperture slider, a "not \
        enough light" banner, still and record buttons, and live statistics. The same server \
        offers the control API (JSON over HTTP, event stream on `/ws/events`) that `cinegraph \
        control` uses: see docs/control.md. Binds 127.0.0.1 unless `address` says otherwise; any \
        other address needs a `token`, which every request must then carry (`Authorization: \
        Bearer TOKEN`, or `?token=TOKEN` in the page's address). `port: 0` picks a free port; the \
        node logs the address and posts it as the event `viewfinder-ready` (field `url`). The \
        kind lives in the CineViewfinder module: a program that embeds cinegraph has it once it \
        calls `registry.registerViewfinder()` (the `cinegraph` tool does).
        """
    public static let commands = [CommandDescription("url", "The address the viewfinder serves on")]

    @Input(formats: [.i420, .nv12, .rgba8, .gray8], "Rendered frames to show (usually bokeh.video)") public var video: Image
    @OptionalInput("Detections with their focus modes (usually focus.detections)") public var detections: Detections?
    @OptionalInput("Focus state (f-number, target, scene statuses)") public var focus: FocusState?
    @OptionalInput("Scene statuses (without it, those of the focus state)") public var scene: SceneStatus?

    @Parameter(default: "127.0.0.1", "Address to listen on; other than loopback needs a token") public var address:
        String
    @Parameter(default: 8080, range: 0...65535, "Port to listen on (0 = any free port)") public var port: Int
    @Parameter(default: "", "Secret every request must carry (required off loopback; 16+ characters)")
    public var token: String
    @Parameter(default: 960, range: 64...3840, "Preview width in pixels (frames are scaled down to it)")
    public var width: Int
    @Parameter(default: 75, range: 10...100, "JPEG quality of the preview") public var quality: Int
    @Parameter(default: 30, range: 1...120, "Most frames a second sent to one viewer") public var maxFps: Double
    @Parameter(default: 4, range: 1...32, "Most viewers at once") public var maxViewers: Int
    @Parameter(default: "", "Focus node for gestures and focus requests (empty = the graph's only focus node)")
    public var focusNode: String
    @Parameter(default: 1.4, range: 0.5...64, "Smallest f-number the aperture slider offers") public var minAperture:
        Double
    @Parameter(default: 16, range: 0.5...64, "Largest f-number the aperture slider offers") public var maxAperture:
        Double

    private var service: ViewfinderServer?
    private var received = 0
    /// Told of each frame a viewer is sent (set at registration; benchmarks measure with it).
    var onFrameSent: ViewfinderServer.SendObserver?

    public init() {}

    /// Whether `address` only accepts connections from this machine.
    static func isLoopback(_ address: String) -> Bool {
        address == "localhost" || address == "::1" || address == "[::1]" || address.hasPrefix("127.")
    }

    public func validate() throws {
        if !Self.isLoopback(address) && token.isEmpty {
            throw ParameterError(
                "token", "address \(address) accepts connections from other machines, so a token is required",
                hint: "set token: to a secret of 16 or more characters, or keep address: 127.0.0.1")
        }
        if !token.isEmpty && (token.count < 16 || token.contains(where: { $0.isWhitespace || !$0.isASCII })) {
            throw ParameterError("token", "must be 16 or more printable ASCII characters without spaces")
        }
        if address.isEmpty { throw ParameterError("address", "must not be empty (127.0.0.1 = this machine only)") }
        if minAperture >= maxAperture {
            throw ParameterError("min-aperture", "\(minAperture) is not below max-aperture \(maxAperture)")
        }
    }

    public mutating func start(_ ctx: inout NodeContext) throws {
        let range = Self.apertureRange(graph: ctx.graph, focusNode: focusNode, min: minAperture, max: maxAperture)
        let settings = ViewfinderSettings(
            nodeName: ctx.nodeName, address: address, port: port, token: token, width: width, quality: quality,
            maxFPS: maxFps, maxViewers: maxViewers, focusNode: focusNode, apertureRange: range, graph: ctx.graph)
        let s = try ViewfinderServer(settings: settings, onFrameSent: onFrameSent)
        service = s
        ctx.logger.notice("viewfinder: open \(s.url)")
        ctx.post("viewfinder-ready", ["url": s.url])
    }

    /// The slider's bounds: `min...max`, narrowed to the declared range of the focus node's
    /// `aperture` parameter when there is one.
    static func apertureRange(graph: GraphControl, focusNode: String, min: Double, max: Double) -> ClosedRange<Double> {
        let name = focusNode.isEmpty ? graph.nodes(ofKind: "focus").first : focusNode
        guard let node = graph.nodes.first(where: { $0.name == name }),
            let text = node.description.parameters.first(where: { $0.name == "aperture" })?.rangeText
        else {
            return min...max
        }
        let bounds = text.components(separatedBy: "...").compactMap { Double($0) }
        guard bounds.count == 2 else { return min...max }
        let lo = Swift.max(min, bounds[0]), hi = Swift.min(max, bounds[1])
        return lo < hi ? lo...hi : min...max
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        defer { received += 1 }
        guard let service else { return }
        service.present(
            ViewfinderFrame(
                image: video, timestamp: ctx.timestamp, index: received,
                detections: detections, focus: focus,
                scene: scene ?? focus?.sceneStatuses))
    }

    public mutating func finish(_ ctx: inout NodeContext) throws {
        service?.stop()
        service = nil
    }

    public mutating func handle(_ command: NodeCommand, _ ctx: inout NodeContext) throws -> String {
        guard command.name == "url" else {
            throw NodeCommandError("viewfinder has no command '\(command.name)'; try 'url'")
        }
        return service?.url ?? "not serving"
    }
}

extension NodeRegistry {
    /// Registers kind `viewfinder`, served by this module's ``ViewfinderServer``.
    /// - Parameter onFrameSent: told of each frame sent to a viewer, with the uptime of the write
    ///   (the benchmarks measure latency with it).
    public func registerViewfinder(onFrameSent: ViewfinderServer.SendObserver? = nil) {
        register(ViewfinderNode.self) { $0.onFrameSent = onFrameSent }
    }

    /// This registry, with kind `viewfinder` registered: `NodeRegistry.standard().withViewfinder()`
    /// is what the `cinegraph` tool runs graphs with.
    public func withViewfinder(onFrameSent: ViewfinderServer.SendObserver? = nil) -> NodeRegistry {
        registerViewfinder(onFrameSent: onFrameSent)
        return self
    }
}
