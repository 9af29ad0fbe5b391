// APIResponses: what the control API and the event stream answer, as Swift types — a node's
// reply to a command, the node list with each command's schema, the live state and statistics.
// Encoded with sorted keys; docs/control.md shows each body.
import CineGraph
import Foundation

/// A node's answer to a command: `{"node", "command", "reply"}`.
struct CommandReply: Encodable, Sendable {
    var node: String
    /// The command as text: its name, then `key=value` arguments in key order.
    var command: String
    var reply: String
}

/// `POST /api/record`: every recorder's answer.
struct RecordReply: Encodable, Sendable {
    struct Answer: Encodable, Sendable {
        var node: String
        var reply: String
    }
    var command: String
    var replies: [Answer]
}

/// A parameter read or set: `{"node", "parameter", "value"[, "reply"]}`.
struct ParameterReply: Encodable, Sendable {
    var node: String
    var parameter: String
    var value: String
    var reply: String?
}

/// `GET /api/nodes`: one node, its commands' schemas and its parameters.
struct NodeInfo: Encodable, Sendable {
    struct Parameter: Encodable, Sendable {
        var name: String
        var type: String
        /// The value as configured (`(hidden)` for a secret).
        var value: String
        /// Whether `PUT /api/nodes/:name/parameters/:parameter` may set it.
        var settable: Bool
        var range: String?
    }
    var name: String
    var kind: String
    var summary: String
    var commands: [CommandSchema]
    var parameters: [Parameter]
}

/// A command's declaration as `GET /api/nodes` gives it: its usage, and each argument's name,
/// type (point, integer, number, boolean, choice), bounds or words.
struct CommandSchema: Encodable, Sendable {
    struct Argument: Encodable, Sendable {
        var name: String
        var type: String
        var required: Bool
        var doc: String
        /// `[low, high]` for integer and number arguments.
        var range: [JSONValue]?
        /// The words a choice takes.
        var choices: [String]?
    }
    var name: String
    var usage: String
    var arguments: [Argument]
    var doc: String

    init(_ c: CommandDescription) {
        name = c.name
        usage = c.usage
        doc = c.doc
        arguments = c.arguments.map { a in
            var out = Argument(name: a.name, type: a.typeName, required: a.isRequired, doc: a.doc)
            switch a.value {
            case .integer(let r): out.range = [.integer(Int64(r.lowerBound)), .integer(Int64(r.upperBound))]
            case .number(let r): out.range = [.number(r.lowerBound), .number(r.upperBound)]
            case .choice(let words): out.choices = words
            case .point, .box, .flag: break
            }
            return out
        }
    }
}

/// `GET /api/state`: what the page needs to draw its controls.
struct StateReply: Encodable, Sendable {
    struct Aperture: Encodable, Sendable {
        var min: Double
        var max: Double
        /// The focus node the aperture is set on, and its value now.
        var node: String?
        var value: Double?
    }
    /// Which controls this graph supports: the focus node, the still node, the recorders, and
    /// whether the focus node takes taps.
    struct Capabilities: Encodable, Sendable {
        var focus: String?
        var still: String?
        var record: [String]
        var tap: Bool
    }
    var url: String
    var node: String
    var scene: [String]
    var frame: FrameMetadata?
    var aperture: Aperture
    var capabilities: Capabilities
    var recording: Bool
    var stats: LiveStatistics
}

/// fps, drops and latency: the `stats` message of `/ws/events`, and `stats` in `/api/state`.
struct LiveStatistics: Encodable, Sendable {
    var type = "stats"
    var viewers: Int
    var eventClients: Int
    var framesSent: Int
    var framesEncoded: Int
    var encodeMs: Double
    var sendDelayMs: Double
    /// From the graph's run summary (absent before the graph runs).
    var fps: Double?
    var sourceFps: Double?
    var drops: Int?
    var takeDrops: Int?
    var previewDrops: Int?
    var loadLevel: Int?
    var wallSeconds: Double?
    /// Capture to send, in milliseconds.
    var latencyMs: Double?
    var viewerFpsCap: Double?
    /// Camera to screen, as the pages measure it.
    var screenLatencyP50Ms: Double?
    var screenLatencyP99Ms: Double?
    var screenLatencySamples: Int?
    var pageLatencyP50Ms: Double?
}

/// A graph event as `/ws/events` sends it.
struct EventMessage: Encodable, Sendable {
    var type = "event"
    var node: String
    var name: String
    var timestamp: Double
    var fields: [String: String]
}

/// The scene statuses now (`/ws/events`).
struct SceneMessage: Encodable, Sendable {
    var type = "scene"
    var statuses: [String]
}

/// `{"error": …}`, the body of every refusal.
struct ErrorReply: Encodable, Sendable {
    var error: String
}
