// EditorServer: `cinegraph edit`'s web server (Hummingbird, the viewfinder's stack) — the page
// and the HTTP API behind it: the take, the script, frames at any time, decisions, aperture,
// undo / redo, save, render.
import CineGStreamer
import CineMedia
import CineNodes
import CineViewfinder
import CineVision
import Dispatch
import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// Serves the editor for one take (docs/edit.md lists the API).
///
/// ```swift
/// let server = try EditorServer(session: session, preview: preview, settings: .init(renderOutput: "take.mp4"))
/// print(server.url)
/// ```
public final class EditorServer: Sendable {
    /// How the server listens and where it writes.
    public struct Settings: Sendable {
        /// Address to listen on (loopback by default: a token is needed on any other).
        public var address = "127.0.0.1"
        /// Port (0 = any free one).
        public var port = 8091
        /// Shared secret required by every request when not empty.
        public var token = ""
        /// The movie the Render button writes.
        public var renderOutput: String
        /// Bokeh quality of the render.
        public var renderQuality = BokehNode.Quality.standard
        /// The folder the Export button writes the depth sequences into.
        public var exportFolder: String

        /// Settings that render to `renderOutput` and export depth into `exportFolder`.
        public init(renderOutput: String, exportFolder: String) {
            self.renderOutput = renderOutput
            self.exportFolder = exportFolder
        }
    }

    /// The header a page sends its lease in.
    public static let leaseHeader = "X-Cinegraph-Lease"
    /// The address to open (with the actual port).
    public var url: String { address.withLock { $0 } }
    /// The preview's counters.
    public var previewStatistics: TakePreview.Statistics { preview.statistics }

    let settings: Settings
    let session: Mutex<EditSession>
    let preview: TakePreview
    let render = RenderJob()
    let lease = EditLease()
    private let address = Mutex("")
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let done = DispatchSemaphore(value: 0)
    /// Frames are rendered off the server's event loops, one at a time.
    private let work = DispatchQueue(label: "cinegraph.edit.preview")
    /// Depth exports run on their own queue (one at a time), so frames keep coming meanwhile.
    private let exporting = DispatchQueue(label: "cinegraph.edit.export")

    /// Starts serving `session`; returns once the socket is bound.
    /// - Throws: `invalid` when the address cannot be bound.
    public init(session: EditSession, preview: TakePreview, settings: Settings) throws {
        self.settings = settings
        self.session = Mutex(session)
        self.preview = preview
        var logger = Logger(label: "cinegraph.edit")
        logger.logLevel = .critical
        let router = Router()
        router.middlewares.add(RequestGuard(token: settings.token))
        addRoutes(router)
        let bound = Mutex<Result<Int, any Error>?>(nil)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(settings.address, port: settings.port), serverName: "cinegraph-edit"),
            onServerRunning: { channel in
                bound.withLock { $0 = .success(channel.localAddress?.port ?? settings.port) }
            },
            logger: logger)
        let done = self.done
        let runner = Task {
            do { try await app.run() } catch {
                bound.withLock { if $0 == nil { $0 = .failure(error) } }
            }
            done.signal()
        }
        task.withLock { $0 = runner }
        let deadline = Date().addingTimeInterval(15)
        while bound.withLock({ $0 }) == nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let host = settings.address.contains(":") ? "[\(settings.address)]" : settings.address
        switch bound.withLock({ $0 }) {
        case .success(let port)?:
            address.withLock { $0 = "http://\(host):\(port)/" }
        case .failure(let error)?:
            throw EditError(.invalid, "cannot listen on \(host):\(settings.port): \(error) (is the port in use? --port 0 picks a free one)")
        case nil:
            throw EditError(.invalid, "the editor did not start listening within 15 s")
        }
    }

    /// Stops serving (waits up to 5 s).
    public func stop() {
        guard let t = task.withLock({ v -> Task<Void, Never>? in defer { v = nil }; return v }) else { return }
        t.cancel()
        _ = done.wait(timeout: .now() + 5)
    }

    // MARK: - Routes

    private func addRoutes(_ router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in EditorPage.response() }
        router.get("/api/take") { [self] _, _ in JSONResponse.make(session.withLock { TakeReply($0, preview: preview) }) }
        router.get("/api/script") { [self] request, _ in
            _ = lease.touch(request.headers[leaseField])
            return JSONResponse.make(session.withLock { ScriptReply($0) })
        }
        router.get("/api/frame") { [self] request, _ in try await frame(request) }
        router.post("/api/claim") { [self] request, _ in
            let force = try await JSONRequest.decode(ClaimRequest.self, from: request).force ?? false
            let id = try api { () throws(EditError) in try lease.claim(force: force) }
            return JSONResponse.make(LeaseReply(lease: id))
        }
        router.post("/api/tap") { [self] request, _ in
            let body = try await edit(TapRequest.self, request)
            let (t, x, y) = (body.time.value, body.x.value, body.y.value)
            let index = try api { () throws(EditError) in try session.withLock { s throws(EditError) in try s.frame(at: t) } }
            // On something that is not a detection: the object there is followed through the
            // take and added as a track of its own; on the background, the fixed plane as before.
            let (hits, times) = session.withLock { ($0.tapHits(at: index, x: x, y: y), $0.times) }
            if !hits, (0...1).contains(x), (0...1).contains(y) {
                let samples = try await onWorker { [preview] in try preview.follow(from: index, x: x, y: y, times: times) }
                if samples.count >= 2 {
                    return try mutate { s throws(EditError) in
                        let id = try s.addTrack(samples, at: index)
                        let span = (samples.last!.time - samples.first!.time).seconds
                        return String(format: "weak focus on the object at (%.2f, %.2f): followed for %.1f s as track %d", x, y, span, id)
                    }
                }
            }
            let depth = try await onWorker { [preview] in try preview.disparity(index: index, x: x, y: y) }
            return try mutate { s throws(EditError) in try s.tap(at: index, x: x, y: y, disparity: depth) }
        }
        router.post("/api/decisions") { [self] request, _ in
            let body = try await edit(DecisionRequest.self, request)
            let (target, strong) = (try body.target(), body.strong ?? false)
            return try mutate { s throws(EditError) in
                try s.focus(on: target, at: try s.frame(at: body.time.value), strong: strong)
                return "\(strong ? "strong" : "weak") decision added"
            }
        }
        router.post("/api/decisions/remove") { [self] request, _ in
            let t = try await edit(TimeRequest.self, request).time.value
            return try mutate { s throws(EditError) in try s.removeDecision(at: try s.frame(at: t)); return "decision removed" }
        }
        router.post("/api/decisions/move") { [self] request, _ in
            let body = try await edit(MoveRequest.self, request)
            return try mutate { s throws(EditError) in
                try s.moveDecision(from: try s.frame(at: body.from.value), to: try s.frame(at: body.to.value))
                return "decision moved"
            }
        }
        router.post("/api/speakers") { [self] request, _ in
            _ = try await edit(EmptyRequest.self, request)
            return try mutate { s throws(EditError) in
                let n = try s.focusOnSpeakers()
                return "focus on whoever speaks: \(n) weak decision(s) added"
            }
        }
        router.post("/api/aperture") { [self] request, _ in
            let f = try await edit(FNumberRequest.self, request).fNumber.value
            return try mutate { s throws(EditError) in try s.setAperture(f); return String(format: "aperture f/%.1f", f) }
        }
        for (path, action) in [("undo", "undone"), ("redo", "redone"), ("clear", "all your decisions removed")] {
            router.post("/api/\(path)") { [self] request, _ in
                _ = try await edit(EmptyRequest.self, request)
                return try mutate { s throws(EditError) in
                    switch path {
                    case "undo": try s.undo()
                    case "redo": try s.redo()
                    default: try s.clear()
                    }
                    return action
                }
            }
        }
        router.post("/api/save") { [self] request, _ in
            _ = try await edit(EmptyRequest.self, request)
            return try mutate { s throws(EditError) in try s.save(); return "saved \(s.changesPath)" }
        }
        router.post("/api/changes") { [self] request, _ in
            let body = try await edit(ChangesRequest.self, request, limit: 1 << 20)
            let changes = try api { () throws(EditError) in try body.decoded() }
            return try mutate { s throws(EditError) in
                try s.replace(with: changes, source: "the changes file")
                return "changes opened: \(changes.decisions.count) decision(s)"
            }
        }
        router.post("/api/render") { [self] request, _ in
            _ = try await edit(EmptyRequest.self, request)
            try startRender()
            return JSONResponse.make(render.current, status: .accepted)
        }
        router.get("/api/render") { [self] request, _ in
            _ = lease.touch(request.headers[leaseField])
            return JSONResponse.make(render.current)
        }
        router.get("/api/render/movie") { [self] _, _ in try movie() }
        router.post("/api/export") { [self] request, _ in
            _ = try await edit(EmptyRequest.self, request)
            let asset = session.withLock { $0.assetPath }, folder = settings.exportFolder
            let summary = try await onQueue(exporting) {
                var exporter = DepthExporter(asset: asset)
                exporter.metadata = true
                return try exporter.export(to: folder)
            }
            return JSONResponse.make(
                ExportReply(
                    folder: folder, frames: summary.frames, hasDepth: summary.hasDepth,
                    message: "exported \(summary.frames) frames of disparity\(summary.hasDepth ? " and depth" : "") to \(folder)"))
        }
    }

    private var leaseField: HTTPFields.Element.Name { HTTPFields.Element.Name(Self.leaseHeader)! }

    /// The body of an edit as `type`, once the lease is checked.
    private func edit<R: APIRequest>(_ type: R.Type, _ request: Request, limit: Int = JSONRequest.bodyLimit) async throws -> R {
        let body = try await JSONRequest.body(request, allowed: R.fieldNames, limit: limit)
        try api { () throws(EditError) in try lease.check(request.headers[leaseField]) }
        return try body.decode(type)
    }

    /// Runs an edit; answers the script as it now stands, with a message.
    private func mutate(_ change: (inout EditSession) throws(EditError) -> String) throws -> Response {
        try session.withLock { s in
            let message = try api { () throws(EditError) in try change(&s) }
            return JSONResponse.make(ScriptReply(s, message: message))
        }
    }

    /// A frame as JPEG: `?index=N` or `?time=S`, `&width=W` (at most the preview's).
    private func frame(_ request: Request) async throws -> Response {
        let q = request.uri.queryParameters
        let (index, focus, fNumber) = try session.withLock { s throws -> (Int, Double, Double) in
            let i: Int
            if let text = q.get("index") {
                guard let v = Int(text), v >= 0, v < s.frameCount else {
                    throw APIError.badRequest("index must be a frame number in 0...\(s.frameCount - 1)")
                }
                i = v
            } else if let text = q.get("time") {
                guard let t = Double(text) else { throw APIError.badRequest("time must be a number of seconds") }
                i = try api { () throws(EditError) in try s.frame(at: t) }
            } else {
                throw APIError.badRequest("give index (a frame number) or time (seconds)")
            }
            return (i, s.focus[i].disparity, s.script.fNumber)
        }
        let width = q.get("width").flatMap { Int($0) } ?? .max
        guard width >= 16 else { throw APIError.badRequest("width must be at least 16") }
        let jpeg = try await onWorker { [preview] in
            try preview.jpeg(index: index, focusDisparity: focus, fNumber: fNumber, maxWidth: width)
        }
        var headers = HTTPFields()
        headers[.contentType] = "image/jpeg"
        headers[.cacheControl] = "no-store"
        headers[HTTPFields.Element.Name("X-Frame-Index")!] = String(index)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: jpeg)))
    }

    private func startRender() throws {
        let (request, header, first, total) = try session.withLock { s throws -> (RenderGraph.Request, AssetHeader, AssetFrameRecord, Int) in
            // The render follows the edits as they stand, saved or not: a copy of them beside the movie.
            let changes = settings.renderOutput + ".changes.json"
            try api { () throws(EditError) in
                do { try s.changes.write(to: changes) } catch { throw EditError(.invalid, "\(error)") }
            }
            var r = RenderGraph.Request(asset: s.assetPath, output: settings.renderOutput)
            r.changes = changes
            r.quality = settings.renderQuality
            return (r, s.header, s.records[0], s.frameCount)
        }
        try api { () throws(EditError) in try render.start(request, header: header, first: first, total: total) }
    }

    private func movie() throws -> Response {
        let status = render.current
        guard status.state == "done", let path = status.output, let data = FileManager.default.contents(atPath: path) else {
            throw APIError(.notFound, status.state == "running" ? "the render is still running" : "no rendered movie yet: press Render")
        }
        var headers = HTTPFields()
        headers[.contentType] = path.hasSuffix(".mkv") ? "video/x-matroska" : "video/mp4"
        headers[.contentDisposition] = "attachment; filename=\"\(URL(fileURLWithPath: path).lastPathComponent)\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Runs `body` on the preview's queue.
    private func onWorker<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await onQueue(work, body)
    }

    /// Runs `body` on `queue`; its errors become the API's answers.
    private func onQueue<T: Sendable>(_ queue: DispatchQueue, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
            queue.async {
                do { c.resume(returning: try body()) } catch let e as EditError { c.resume(throwing: Self.apiError(e)) } catch {
                    c.resume(throwing: APIError(.internalServerError, "\(error)"))
                }
            }
        }
    }

    /// `body`'s ``EditError`` as the API's answer (400, 404, 409).
    private func api<T>(_ body: () throws(EditError) -> T) throws -> T {
        do { return try body() } catch { throw Self.apiError(error) }
    }

    static func apiError(_ e: EditError) -> APIError {
        switch e.kind {
        case .invalid: return APIError(.badRequest, e.message)
        case .notFound: return APIError(.notFound, e.message)
        case .conflict: return APIError(.conflict, e.message)
        }
    }
}

extension EditorServer {
    /// True when the edits have not been saved.
    public var isDirty: Bool { session.withLock { $0.isDirty } }
}
