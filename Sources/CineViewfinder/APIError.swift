// APIError: a refused or failed control-API request — an HTTP status and a message that says
// what was wrong and what to send instead, returned as `{"error": "..."}`.
import Foundation
import Hummingbird

/// An error the control API answers with: `{"error": message}` and a 4xx/5xx status.
public struct APIError: Error, Sendable, CustomStringConvertible, HTTPResponseError {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// What was wrong, in a sentence.
    public var message: String

    /// Creates an error.
    public init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(status.code) \(message)" }

    /// The JSON response.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        JSONResponse.make(ErrorReply(error: message), status: status)
    }

    package static func badRequest(_ m: String) -> APIError { APIError(.badRequest, m) }
}

/// Builds JSON responses.
package enum JSONResponse {
    /// A response with `value` encoded as its body (sorted keys; a non-finite number as the
    /// text `inf`, `-inf` or `nan`).
    package static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        make(data: (try? encoder.encode(value)) ?? Data("{}".utf8), status: status)
    }

    /// `value` as JSON text (the event stream's messages).
    package static func text(_ value: some Encodable) -> String {
        (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    private static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return e
    }

    /// A response with encoded JSON as its body.
    package static func make(data: Data, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
