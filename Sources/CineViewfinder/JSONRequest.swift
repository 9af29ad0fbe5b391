// JSONRequest: reading a JSON request body field by field — unknown fields refused, numbers,
// whole numbers, booleans and text told apart by ``JSONValue``'s cases — for the control API and
// the editor's API.
import Foundation
import Hummingbird
import NIOCore

/// Reads JSON request bodies; every refusal is an ``APIError`` (400 or 413) saying what to send.
package enum JSONRequest {
    /// Largest request body accepted unless a route says otherwise.
    package static let bodyLimit = 16 * 1024

    /// The JSON object in the request body (empty body = `{}`), refusing unknown fields; read
    /// once, its bytes kept for the route's ``APIRequest`` to decode.
    package static func body(_ request: Request, allowed: Set<String>, limit bodyLimit: Int = bodyLimit) async throws -> RequestBody {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > bodyLimit {
            throw APIError(.contentTooLarge, "the body is \(length) bytes; the limit is \(bodyLimit)")
        }
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: bodyLimit) } catch {
            throw APIError(.contentTooLarge, "the body is larger than \(bodyLimit) bytes")
        }
        if buffer.readableBytes == 0 { return RequestBody(fields: [:], data: Data("{}".utf8)) }
        let data = Data(buffer.readableBytesView)
        let object: JSONValue
        do { object = try JSONDecoder().decode(JSONValue.self, from: data) } catch {
            throw APIError.badRequest("the body is not valid JSON")
        }
        guard case .object(let dict) = object else { throw APIError.badRequest("the body must be a JSON object") }
        let unknown = Set(dict.keys).subtracting(allowed).sorted()
        if let first = unknown.first {
            throw APIError.badRequest(
                "unknown field '\(first)'"
                    + (allowed.isEmpty
                        ? "; this request takes no fields" : "; expected \(allowed.sorted().joined(separator: ", "))"))
        }
        return RequestBody(fields: dict, data: data)
    }

    /// A short value as the text a node's command or parameter takes: a number, `true`/`false`,
    /// or text; `nil` for anything else (null, a list, an object).
    package static func scalarText(_ v: JSONValue) -> String? {
        switch v {
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .number(let d): return d.isFinite ? String(d) : nil
        case .string(let s): return s
        case .null, .array, .object: return nil
        }
    }
}
