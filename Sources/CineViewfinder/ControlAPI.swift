// ControlAPI: the JSON control API — focus, aperture, stills, recording, state, and generic
// node commands and parameters — checked field by field before anything reaches the graph.
import CineGraph
import CineMedia
import Dispatch
import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import Synchronization

/// Turns HTTP requests into control messages for the graph's nodes (docs/control.md).
struct ControlAPI: Sendable {
    let settings: ViewfinderSettings
    /// Largest request body accepted.
    static let bodyLimit = JSONRequest.bodyLimit
    /// How long a node has to answer.
    static let replyTimeout = 5.0

    private var graph: GraphControl { settings.graph }

    func addRoutes(_ router: Router<BasicWebSocketRequestContext>, server: ViewfinderServer) {
        let api = self
        router.get("/api/state") { [weak server] _, _ in
            guard let server else { throw APIError(.serviceUnavailable, "the viewfinder is stopping") }
            return JSONResponse.make(await api.state(server))
        }
        router.get("/api/nodes") { _, _ in JSONResponse.make(api.nodeList()) }
        router.post("/api/focus") { request, _ in
            let body = try await JSONRequest.decode(FocusRequest.self, from: request)
            if let point = body.point {
                if body.id != nil { throw APIError.badRequest("give either id or point, not both") }
                if body.strong != nil {
                    throw APIError.badRequest("strong goes with id (a point gives weak tracking focus)")
                }
                return try await api.toFocus("tap", ["point": point.argument])
            }
            guard let id = body.id else { throw APIError.badRequest("give id (a detection id) or point [x, y]") }
            var args = ["id": String(id.value)]
            if body.strong == true { args["strong"] = "true" }
            return try await api.toFocus("focus", args)
        }
        for gesture in ["tap", "press"] {
            router.post("/api/\(gesture)") { request, _ in
                let body = try await JSONRequest.decode(PointRequest.self, from: request)
                return try await api.toFocus(gesture, ["point": body.point.argument])
            }
        }
        router.post("/api/fixed") { request, _ in
            let body = try await JSONRequest.decode(FixedRequest.self, from: request)
            var args = ["point": body.point.argument]
            if body.strong == true { args["strong"] = "true" }
            return try await api.toFocus("fixed", args)
        }
        router.post("/api/auto") { request, _ in
            _ = try await JSONRequest.decode(EmptyRequest.self, from: request)
            return try await api.toFocus("auto", [:])
        }
        router.post("/api/aperture") { request, _ in
            let value = try await JSONRequest.decode(ApertureRequest.self, from: request).value.value
            let range = api.settings.apertureRange
            guard range.contains(value) else {
                throw APIError.badRequest("value \(value) is out of range \(range.lowerBound)...\(range.upperBound)")
            }
            return try await api.setAperture(value)
        }
        router.post("/api/still") { request, _ in
            _ = try await JSONRequest.decode(EmptyRequest.self, from: request)
            guard let node = api.graph.nodes(ofKind: "still").first else {
                throw APIError(.conflict, "this graph has no still node (add a node of kind still)")
            }
            return try await api.command(NodeCommand("still"), to: node)
        }
        router.post("/api/record") { request, _ in
            let action = try await JSONRequest.decode(RecordRequest.self, from: request).action.rawValue
            let recorders = api.nodes(withCommand: "record")
            guard !recorders.isEmpty else {
                throw APIError(.conflict, "this graph has no recorder (no node accepts the command 'record')")
            }
            var replies: [RecordReply.Answer] = []
            for node in recorders {
                let reply = try await api.ask(.command(NodeCommand("record", arguments: ["action": action])), node: node)
                replies.append(.init(node: node, reply: reply))
            }
            return JSONResponse.make(RecordReply(command: "record \(action)", replies: replies))
        }
        router.post("/api/nodes/:name/command") { request, context in
            let (name, description) = try api.node(context.parameters.get("name"))
            let body = try await JSONRequest.decode(CommandRequest.self, from: request)
            // Checked here against the declaration (a refusal is the client's error: 400), and again
            // by the node's runner, as every command is.
            let checked: NodeCommand
            do {
                checked = try description.check(NodeCommand(body.name, arguments: body.arguments?.values ?? [:]))
            } catch let e as NodeCommandError {
                throw APIError.badRequest("node '\(name)': \(e.description)")
            }
            return try await api.command(checked, to: name)
        }
        router.get("/api/nodes/:name/parameters/:parameter") { _, context in
            let (node, parameter) = try api.parameter(context)
            if Self.isSecret(parameter.name) {
                throw APIError(.forbidden, "parameter '\(parameter.name)' is a secret and cannot be read over the API")
            }
            let value = try await api.ask(.get(parameter: parameter.name), node: node)
            return JSONResponse.make(ParameterReply(node: node, parameter: parameter.name, value: value))
        }
        let set: @Sendable (Request, BasicWebSocketRequestContext) async throws -> Response = { request, context in
            let (node, parameter) = try api.parameter(context)
            let text = try await JSONRequest.decode(ParameterValueRequest.self, from: request).value.text
            guard text.count <= 64 else { throw APIError.badRequest("value must be a number, true/false, or short text") }
            guard Self.isSettable(parameter.typeName) else {
                throw APIError(
                    .forbidden,
                    "parameter '\(parameter.name)' (\(parameter.typeName)) cannot be set over the API: "
                        + "only numbers, booleans and durations can (text may name files)")
            }
            let reply = try await api.ask(.set(parameter: parameter.name, value: text), node: node)
            return JSONResponse.make(ParameterReply(node: node, parameter: parameter.name, value: text, reply: reply))
        }
        router.put("/api/nodes/:name/parameters/:parameter", use: set)
        router.post("/api/nodes/:name/parameters/:parameter", use: set)
    }

    /// Whether a parameter holds a secret (a token, a password, a key): never shown or returned.
    static func isSecret(_ name: String) -> Bool {
        ["token", "password", "secret", "key"].contains { name == $0 || name.hasSuffix("-" + $0) }
    }

    /// Whether the API may set a parameter of this type: numbers, booleans, durations and
    /// choices; never text (a path, a device, a pipeline) or lists.
    static func isSettable(_ typeName: String) -> Bool {
        ["number", "integer", "boolean", "duration"].contains(typeName) || typeName.hasPrefix("one of ")
    }

    // MARK: - Sending

    /// The focus node gestures go to.
    func focusNode() throws -> String {
        if !settings.focusNode.isEmpty { return settings.focusNode }
        let all = graph.nodes(ofKind: "focus")
        guard let first = all.first else { throw APIError(.conflict, "this graph has no focus node (kind focus)") }
        return first
    }

    func toFocus(_ name: String, _ arguments: [String: String]) async throws -> Response {
        try await command(NodeCommand(name, arguments: arguments), to: try focusNode())
    }

    func setAperture(_ value: Double) async throws -> Response {
        let text = String(value)
        if let focus = try? focusNode() {
            return try await command(NodeCommand("aperture", arguments: ["value": text]), to: focus)
        }
        guard let node = graph.nodes.first(where: { $0.description.parameters.contains { $0.name == "aperture" } })
        else {
            throw APIError(.conflict, "this graph has no node with an aperture (focus or bokeh)")
        }
        let reply = try await ask(.set(parameter: "aperture", value: text), node: node.name)
        return JSONResponse.make(CommandReply(node: node.name, command: "aperture=\(text)", reply: reply))
    }

    func command(_ command: NodeCommand, to node: String) async throws -> Response {
        let reply = try await ask(.command(command), node: node)
        let text = ([command.name] + command.arguments.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
            .joined(separator: " ")
        return JSONResponse.make(CommandReply(node: node, command: text, reply: reply))
    }

    /// Sends `message` and waits up to ``replyTimeout`` for the node's answer. A node's refusal
    /// is a 422 with its words; a node that does not answer in time, a 504.
    func ask(_ message: ControlMessage, node: String) async throws -> String {
        let result: Result<String, any Error> = await withCheckedContinuation { c in
            let box = OnceBox()
            graph.send(message, to: node) { r in if box.claim() { c.resume(returning: r) } }
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.replyTimeout) {
                if box.claim() {
                    c.resume(
                        returning: .failure(
                            APIError(.gatewayTimeout, "node '\(node)' did not answer within \(Self.replyTimeout) s")))
                }
            }
        }
        switch result {
        case .success(let reply): return reply
        case .failure(let e as APIError): throw e
        case .failure(let e as NodeParameterError):
            switch e {
            case .unknown: throw APIError(.notFound, "node '\(node)': \(e)")
            case .invalid: throw APIError(.badRequest, "node '\(node)': \(e)")
            }
        case .failure(let e as ControlError):
            // The runtime refuses a parameter value (type, range) or a node that has finished.
            throw APIError(e.description.hasSuffix("has finished") ? .conflict : .badRequest, e.description)
        case .failure(let e): throw APIError(.unprocessableContent, "\(e)")  // the node's own words, naming the command
        }
    }

    // MARK: - Reading the graph

    func nodes(withCommand name: String) -> [String] {
        graph.nodes.filter { $0.description.commands.contains { $0.name == name } }.map(\.name)
    }

    /// The node named `name` and its declaration, or a 404 that suggests the nearest name.
    func node(_ name: String?) throws -> (String, NodeDescription) {
        guard let name, let node = graph.nodes.first(where: { $0.name == name }) else {
            let near = name.flatMap { closestMatch(to: $0, in: graph.nodes.map(\.name)) }
            throw APIError(.notFound, "no node named '\(name ?? "")'" + (near.map { "; did you mean '\($0)'?" } ?? ""))
        }
        return (name, node.description)
    }

    func parameter(_ context: BasicWebSocketRequestContext) throws -> (String, ParameterDescription) {
        let (node, description) = try node(context.parameters.get("name"))
        let name = context.parameters.get("parameter") ?? ""
        guard let p = description.parameters.first(where: { $0.name == name }) else {
            let near = closestMatch(to: name, in: description.parameters.map(\.name))
            let error = NodeParameterError.unknown(kind: description.kind, name: name, suggestion: near)
            throw APIError(.notFound, "node '\(node)': \(error)")
        }
        return (node, p)
    }

    func nodeList() -> [NodeInfo] {
        graph.nodes.map { n in
            NodeInfo(
                name: n.name, kind: n.description.kind, summary: n.description.summary,
                commands: n.description.commands.map(CommandSchema.init),
                parameters: n.description.parameters.map { p in
                    NodeInfo.Parameter(
                        name: p.name, type: p.typeName,
                        value: Self.isSecret(p.name) ? "(hidden)" : n.parameterTexts[p.name] ?? p.defaultText,
                        settable: Self.isSettable(p.typeName), range: p.rangeText)
                })
        }
    }

    func state(_ server: ViewfinderServer) async -> StateReply {
        let frame = server.live.frame.map { f in
            FrameMetadata(type: "state", frame: f, size: JPEGEncoder.outputSize(of: f.image, maxWidth: settings.width))
        }
        let focus = try? focusNode()
        var aperture = StateReply.Aperture(min: settings.apertureRange.lowerBound, max: settings.apertureRange.upperBound)
        if let focus {
            aperture.node = focus
            if let v = try? await ask(.get(parameter: "aperture"), node: focus) { aperture.value = Double(v) }
        }
        let taps = focus.map { f in
            graph.nodes.first { $0.name == f }?.description.commands.contains { $0.name == "tap" } ?? false
        }
        return StateReply(
            url: server.url, node: settings.nodeName, scene: server.live.scene, frame: frame, aperture: aperture,
            capabilities: .init(
                focus: focus, still: graph.nodes(ofKind: "still").first, record: nodes(withCommand: "record"),
                tap: taps ?? false),
            recording: server.live.isRecording, stats: server.liveStatistics())
    }
}

// MARK: - Request bodies

/// `POST /api/focus`: a detection (`id`, optionally `strong`) or a `point`.
struct FocusRequest: APIRequest {
    var id: SubjectID?
    var strong: Bool?
    var point: UnitPoint?
    enum CodingKeys: String, CodingKey, CaseIterable { case id, strong, point }
}

/// `POST /api/tap`, `POST /api/press`: a point.
struct PointRequest: APIRequest {
    var point: UnitPoint
    enum CodingKeys: String, CodingKey, CaseIterable { case point }
}

/// `POST /api/fixed`: a point, optionally strong.
struct FixedRequest: APIRequest {
    var point: UnitPoint
    var strong: Bool?
    enum CodingKeys: String, CodingKey, CaseIterable { case point, strong }
}

/// `POST /api/aperture`: an f-number (checked against the node's range by the route).
struct ApertureRequest: APIRequest {
    var value: FiniteNumber
    enum CodingKeys: String, CodingKey, CaseIterable { case value }
}

/// `POST /api/record`: start or stop.
struct RecordRequest: APIRequest {
    enum Action: String, Decodable, Sendable {
        case start, stop
        init(from decoder: any Decoder) throws {
            guard case .string(let s) = try JSONValue(from: decoder), let a = Action(rawValue: s) else {
                throw APIError.badRequest("give action: \"start\" or \"stop\"")
            }
            self = a
        }
    }
    var action: Action
    enum CodingKeys: String, CodingKey, CaseIterable { case action }
}

/// `POST /api/nodes/:name/command`: a command by name, with its arguments (checked against the
/// node's declaration by the route).
struct CommandRequest: APIRequest {
    var name: String
    var arguments: CommandArguments?
    enum CodingKeys: String, CodingKey, CaseIterable { case name, arguments }
}

/// A parameter's new value: a number, `true`/`false`, or short text.
struct ParameterValueRequest: APIRequest {
    var value: ScalarText
    enum CodingKeys: String, CodingKey, CaseIterable { case value }
}

/// A command's arguments: an object of short values (text, number or boolean), keys like `id`
/// or `point`. Values never name files: no `/`, no spaces.
struct CommandArguments: Decodable, Sendable {
    var values: [String: String]

    init(from decoder: any Decoder) throws {
        guard case .object(let dict) = try JSONValue(from: decoder) else {
            throw APIError.badRequest("arguments must be a JSON object")
        }
        guard dict.count <= 16 else { throw APIError.badRequest("at most 16 arguments") }
        var out: [String: String] = [:]
        for (k, v) in dict {
            guard (1...32).contains(k.count), k.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
            else {
                throw APIError.badRequest("argument name '\(k.prefix(40))' must be 1-32 letters, digits or '-'")
            }
            guard let text = JSONRequest.scalarText(v) else {
                throw APIError.badRequest("argument '\(k)' must be text, a number or true/false")
            }
            guard text.count <= 128, !text.contains("/"), !text.contains(where: { $0.isWhitespace || $0.isNewline })
            else {
                throw APIError.badRequest("argument '\(k)' must be at most 128 characters without '/' or spaces")
            }
            out[k] = text
        }
        values = out
    }
}

/// A flag claimed once, from whichever thread gets there first.
private final class OnceBox: Sendable {
    private let flag = Atomic<Bool>(false)
    func claim() -> Bool { !flag.exchange(true, ordering: .acquiringAndReleasing) }
}
