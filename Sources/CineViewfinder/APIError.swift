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
        JSONResponse.make(["error": message], status: status)
    }

    package static func badRequest(_ m: String) -> APIError { APIError(.badRequest, m) }
}

/// Builds JSON responses.
package enum JSONResponse {
    /// A response with `object` (anything `JSONSerialization` takes) as its body.
    package static func make(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return make(data: data, status: status)
    }

    /// A response with encoded JSON as its body.
    package static func make(data: Data, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
