// ViewfinderServer: the web viewfinder's HTTP server (Hummingbird) — the page, the control
// API, the video and event WebSockets — fed by the `viewfinder` node through FrameSlot.
import CineGraph
import CineMedia
import Dispatch
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Synchronization

/// The web viewfinder: serves the page, the JSON control API and the WebSocket streams for one
/// `viewfinder` node.
///
/// A `viewfinder` node starts one; register the kind before graphs load:
/// ```swift
/// let registry = NodeRegistry.standard()
/// registry.registerViewfinder()
/// let graph = try Graph.load(contentsOf: "graphs/viewfinder.conf", registry: registry)
/// ```
/// Frames reach it on the graph's thread through ``present(_:)``, which only keeps the newest;
/// a viewer's connection encodes it (on the server's own encoding queue) when the viewer is
/// ready for the next one. With no viewer, no frame is ever encoded.
public final class ViewfinderServer: Sendable {
    /// What the server was configured with.
    public let settings: ViewfinderSettings
    /// The address viewers open (with the actual port when `port` was 0).
    public var url: String { address.withLock { $0 } }
    /// Counters for statistics and the benchmark.
    public var statistics: Statistics { stats.withLock { $0 } }

    /// Counters since start.
    public struct Statistics: Sendable {
        /// Frames the node presented.
        public var framesPresented = 0
        /// Frames encoded (each at most once, shared by every viewer).
        public var framesEncoded = 0
        /// Frames sent on video streams (summed over viewers).
        public var framesSent = 0
        /// Video viewers connected now.
        public var viewers = 0
        /// Event-stream clients connected now.
        public var eventClients = 0
        /// Total and last encode time in nanoseconds.
        public var encodeNanoseconds: UInt64 = 0
        /// From the node receiving the last sent frame to its send, in nanoseconds.
        public var lastSendDelayNanoseconds: UInt64 = 0
        /// Sum of those delays, over ``framesSent``.
        public var sendDelayNanoseconds: UInt64 = 0
    }

    /// Called after each frame is written to a video stream, with the uptime (nanoseconds) of
    /// the write; for measurements.
    public typealias SendObserver = @Sendable (ViewfinderFrame, UInt64) -> Void

    /// Largest WebSocket message (and frame) a client may send; viewers only send `next`.
    public static let maxMessageSize = 1024

    let slot = FrameSlot()
    let encoder: JPEGEncoder
    let stats = Mutex(Statistics())
    let events = EventFanout()
    let live = LiveState()
    /// Capture-to-screen latencies reported by the pages.
    let latency = ViewerLatency()
    /// The pages' part alone: header received to frame painted.
    let pageLatency = ViewerLatency()
    let control: ControlAPI
    private let observer: SendObserver?
    private let encodeQueue = DispatchQueue(label: "cinegraph.viewfinder.encode")
    private let cache = Mutex<(sequence: Int, jpeg: ByteBuffer, header: String)?>(nil)
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let ticker = Mutex<Task<Void, Never>?>(nil)
    private let done = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    private let address = Mutex("")

    /// Starts serving; returns once the socket is bound (or throws why it could not be).
    public init(settings: ViewfinderSettings, onFrameSent: SendObserver? = nil) throws {
        self.settings = settings
        self.encoder = JPEGEncoder(quality: settings.quality)
        self.observer = onFrameSent
        self.control = ControlAPI(settings: settings)
        let bound = Mutex<Result<Int, any Error>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        var logger = Logger(label: "cinegraph.viewfinder")
        logger.logLevel = .critical  // Hummingbird logs connections cancelled at shutdown as errors
        let router = Router(context: BasicWebSocketRequestContext.self)
        addRoutes(router)
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: router,
                configuration: .init(
                    http1: .init(idleTimeout: .seconds(120)), ws: .init(maxFrameSize: Self.maxMessageSize))),
            configuration: .init(
                address: .hostname(settings.address, port: settings.port),
                serverName: "cinegraph-viewfinder"),
            onServerRunning: { channel in
                bound.withLock { $0 = .success(channel.localAddress?.port ?? settings.port) }
                ready.signal()
            },
            logger: logger)
        let host =
            settings.address.contains(":") && !settings.address.hasPrefix("[")
            ? "[\(settings.address)]" : settings.address
        let done = self.done
        let runner = Task {
            do { try await app.run() } catch {
                let first = bound.withLock { b -> Bool in
                    if b == nil {
                        b = .failure(error)
                        return true
                    }
                    return false
                }
                if first { ready.signal() }
            }
            done.signal()
        }
        task.withLock { $0 = runner }
        if ready.wait(timeout: .now() + 15) == .timedOut {
            throw ParameterError(
                "port", "the viewfinder did not start listening on \(host):\(settings.port) within 15 s")
        }
        switch bound.withLock({ $0 })! {
        case .failure(let error):
            throw ParameterError(
                "port", "cannot listen on \(host):\(settings.port): \(error)",
                hint: "is another program using the port? port: 0 picks a free one")
        case .success(let port):
            address.withLock { $0 = "http://\(host):\(port)/" }
        }
        settings.graph.subscribe { [weak self] event in self?.received(event) }
        // Frames flow while the server starts: a recorder may have started before the subscription.
        // Ask each (its reply to `status` is "PATH: N frames" while it records); later events update.
        for node in settings.graph.nodes where node.description.commands.contains(where: { $0.name == "record" }) {
            let name = node.name
            settings.graph.send(.command(NodeCommand("status")), to: name) { [weak self] result in
                guard case .success(let reply) = result, reply.hasSuffix(" frames") else { return }
                self?.live.setRecording(name, true)
            }
        }
        let tick = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                guard let self else { return }
                self.tick()
            }
        }
        ticker.withLock { $0 = tick }
    }

    deinit { stop() }

    /// Keeps the newest frame (graph thread: constant time) and streams its metadata to
    /// event clients, if any.
    public func present(_ frame: ViewfinderFrame) {
        guard !stopped.load(ordering: .relaxed) else { return }
        slot.put(frame)
        stats.withLock { $0.framesPresented += 1 }
        let sceneChanged = live.update(frame)
        if events.hasClients {
            events.send(FrameMetadata(type: "metadata", frame: frame).json())
            if let names = sceneChanged { events.send(Self.sceneMessage(names)) }
        }
    }

    /// Stops serving: closes viewers' streams and the listening socket (waits up to 5 s).
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        slot.close()
        events.closeAll()
        ticker.withLock { $0?.cancel() }
        let t = task.withLock { $0 }
        t?.cancel()
        if t != nil { _ = done.wait(timeout: .now() + 5) }
    }

    // MARK: - Events and statistics

    private func received(_ event: GraphEvent) {
        guard !stopped.load(ordering: .relaxed) else { return }
        if event.name == "recording-started" { live.setRecording(event.node, true) }
        if event.name == "movie-saved" || event.name == "asset-saved" { live.setRecording(event.node, false) }
        if event.name == "scene" {
            let names = (event.fields["statuses"] ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty }
            events.send(Self.sceneMessage(live.setScene(names)))
        }
        events.send(
            JSONResponse.text(
                EventMessage(node: event.node, name: event.name, timestamp: event.timestamp.seconds, fields: event.fields)))
    }

    static func sceneMessage(_ names: [String]) -> String { JSONResponse.text(SceneMessage(statuses: names)) }

    /// Once a second: the statistics to event clients.
    private func tick() {
        guard events.hasClients else { return }
        events.send(JSONResponse.text(liveStatistics()))
    }

    /// fps, drops and latency, as `/api/state` and the `stats` message report them.
    func liveStatistics() -> LiveStatistics {
        let s = statistics
        var out = LiveStatistics(
            viewers: s.viewers, eventClients: s.eventClients, framesSent: s.framesSent, framesEncoded: s.framesEncoded,
            encodeMs: s.framesEncoded == 0 ? 0 : Double(s.encodeNanoseconds) / Double(s.framesEncoded) / 1e6,
            sendDelayMs: Double(s.lastSendDelayNanoseconds) / 1e6)
        if let summary = settings.graph.summary() {
            let fps = live.fps(summary: summary, node: settings.nodeName)
            out.fps = fps.viewfinder
            out.sourceFps = fps.source
            out.drops = summary.totalDrops
            out.takeDrops = summary.takeDrops
            out.previewDrops = summary.previewDrops
            out.loadLevel = summary.loadLevel
            out.wallSeconds = summary.wallSeconds
            // Capture to send: how far the viewfinder's newest instant trails the sources'
            // newest one, plus the node-to-socket delay of the last frame sent.
            out.latencyMs = fps.lagSeconds * 1000 + Double(s.lastSendDelayNanoseconds) / 1e6
            out.viewerFpsCap = ViewerLatency.viewerRate(maxFPS: settings.maxFPS, loadLevel: summary.loadLevel)
        }
        // Camera to screen, as the pages measure it (their paint time added to the frame's age).
        if let p50 = latency.percentile(50), let p99 = latency.percentile(99) {
            out.screenLatencyP50Ms = p50
            out.screenLatencyP99Ms = p99
            out.screenLatencySamples = latency.count
            out.pageLatencyP50Ms = pageLatency.percentile(50) ?? 0
        }
        return out
    }

    // MARK: - Routes

    private func addRoutes(_ router: Router<BasicWebSocketRequestContext>) {
        router.middlewares.add(RequestGuard(token: settings.token))
        router.get("/") { _, _ in ViewfinderPage.response() }
        control.addRoutes(router, server: self)
        router.ws(
            "/ws/video",
            shouldUpgrade: { [weak self] _, _ in
                guard let self else { return .dontUpgrade }
                if self.statistics.viewers >= self.settings.maxViewers {
                    throw APIError(
                        .tooManyRequests, "\(self.settings.maxViewers) viewers are watching already (max-viewers)")
                }
                return .upgrade([:])
            },
            onUpgrade: { [weak self] inbound, outbound, _ in
                guard let self else { return }
                self.stats.withLock { $0.viewers += 1 }
                defer { self.stats.withLock { $0.viewers -= 1 } }
                try await self.streamVideo(inbound, outbound)
            })
        router.ws(
            "/ws/events",
            onUpgrade: { [weak self] inbound, outbound, _ in
                guard let self else { return }
                try await self.streamEvents(inbound, outbound)
            })
    }

    /// A viewer's video stream: for each `next` the viewer sends (it is ready to show a frame),
    /// one frame newer than the last it got: a text header (FrameMetadata) then the JPEG.
    private func streamVideo(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter) async throws {
        var last = 0
        var lastSend: UInt64 = 0
        /// The server's part of the last frame sent, completed by the page's part in its next `next`.
        var pendingMilliseconds: Double?
        /// The load level as of the last frame sent (one graph summary per frame, taken after the send).
        var loadLevel = 0
        for try await message in inbound.messages(maxSize: Self.maxMessageSize) {
            guard case .text(let text) = message, case let request = ViewerLatency.parseNext(text), request.isRequest else {
                try await outbound.close(.unacceptableData, reason: "send the text 'next' when ready for a frame")
                return
            }
            if let server = pendingMilliseconds, let page = request.pageMilliseconds {
                latency.add(server + page)
                pageLatency.add(page)
            }
            pendingMilliseconds = nil
            let rate = ViewerLatency.viewerRate(maxFPS: settings.maxFPS, loadLevel: loadLevel)
            let minimumInterval = UInt64(1e9 / rate)
            let now = DispatchTime.now().uptimeNanoseconds
            if lastSend > 0, now - lastSend < minimumInterval {
                try? await Task.sleep(for: .nanoseconds(Int(minimumInterval - (now - lastSend))))
            }
            guard let (frame, sequence) = await slot.next(after: last) else { break }
            guard let encoded = await encoded(frame, sequence: sequence) else { continue }
            try await outbound.write(.text(encoded.header))
            try await outbound.write(.binary(encoded.jpeg))
            let sent = DispatchTime.now().uptimeNanoseconds
            lastSend = sent
            last = sequence
            let delay = sent &- frame.receivedUptimeNanoseconds
            // How far this frame trails the camera's newest one when it leaves, or (no graph
            // summary) the node-to-socket delay alone.
            let summary = settings.graph.summary()
            loadLevel = summary?.loadLevel ?? 0
            let newest = summary.flatMap { LiveState.sourceInstant(of: $0) }
            pendingMilliseconds = newest.map { max(0, ($0 - frame.timestamp).seconds) * 1000 } ?? Double(delay) / 1e6
            stats.withLock {
                $0.framesSent += 1
                $0.lastSendDelayNanoseconds = delay
                $0.sendDelayNanoseconds &+= delay
            }
            observer?(frame, sent)
        }
    }

    /// The JPEG and header of frame `sequence`, encoded once on the encoding queue and shared.
    private func encoded(_ frame: ViewfinderFrame, sequence: Int) async -> (jpeg: ByteBuffer, header: String)? {
        await withCheckedContinuation { c in
            encodeQueue.async { [self] in
                if let cached = cache.withLock({ $0 }), cached.sequence == sequence {
                    return c.resume(returning: (cached.jpeg, cached.header))
                }
                let start = DispatchTime.now().uptimeNanoseconds
                guard let bytes = encoder.encode(frame.image, maxWidth: settings.width) else {
                    return c.resume(returning: nil)
                }
                let size = JPEGEncoder.outputSize(of: frame.image, maxWidth: settings.width)
                let header = FrameMetadata(type: "frame", frame: frame, size: size).json()
                let buffer = ByteBuffer(bytes: bytes)
                cache.withLock { $0 = (sequence, buffer, header) }
                let spent = DispatchTime.now().uptimeNanoseconds - start
                stats.withLock {
                    $0.framesEncoded += 1
                    $0.encodeNanoseconds += spent
                }
                c.resume(returning: (buffer, header))
            }
        }
    }

    /// An event client: the scene statuses now, then every message as it happens. Messages the
    /// client does not read in time are dropped (newest kept); the client sends nothing.
    private func streamEvents(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter) async throws {
        let (id, stream) = events.add()
        stats.withLock { $0.eventClients += 1 }
        defer {
            events.remove(id)
            stats.withLock { $0.eventClients -= 1 }
        }
        try await outbound.write(.text(Self.sceneMessage(live.scene)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // Reading keeps the connection's control frames flowing; any message ends it
                // once it exceeds the size limit.
                for try await _ in inbound.messages(maxSize: Self.maxMessageSize) {}
            }
            group.addTask {
                for await text in stream { try await outbound.write(.text(text)) }
            }
            _ = try await group.next()
            group.cancelAll()
        }
    }
}
