// RequestGuard: the checks every request passes before any handler runs — the token (when one
// is configured) and the origin (a page on another site must not drive the camera), and JSON
// for every request that changes something.
import Foundation
import Hummingbird
import HummingbirdWebSocket

/// Middleware that refuses requests without the token, from other origins, or posting anything
/// but JSON.
package struct RequestGuard<Context: RequestContext>: RouterMiddleware {
    /// The shared secret; empty = none (loopback only).
    package let token: String
    package init(token: String) { self.token = token }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        if !token.isEmpty {
            let presented = Self.presentedToken(request)
            guard let presented else {
                throw APIError(
                    .unauthorized,
                    "this viewfinder needs its token: send 'Authorization: Bearer TOKEN' or add ?token=TOKEN")
            }
            guard Self.constantTimeEqual(presented, token) else { throw APIError(.unauthorized, "wrong token") }
        }
        // Browsers send Origin on cross-site requests and WebSocket upgrades: it must be this server.
        if let origin = request.headers[.origin], let host = request.head.authority {
            let originHost = origin.components(separatedBy: "://").last ?? origin
            guard originHost == host else {
                throw APIError(.forbidden, "requests from other sites are refused (origin \(origin))")
            }
        }
        if request.method == .post || request.method == .put {
            let type = request.headers[.contentType] ?? ""
            guard type.lowercased().hasPrefix("application/json") else {
                throw APIError(.unsupportedMediaType, "send a JSON body with 'Content-Type: application/json'")
            }
        }
        return try await next(request, context)
    }

    /// The token in the Authorization header (`Bearer T`) or the `token` query parameter.
    static func presentedToken(_ request: Request) -> String? {
        if let auth = request.headers[.authorization] {
            let parts = auth.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return String(parts[1]) }
            return nil
        }
        return request.uri.queryParameters.get("token")
    }

    /// Compares without stopping at the first difference (no timing hint about the secret).
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<min(x.count, y.count) { diff |= x[i] ^ y[i] }
        return diff == 0
    }
}
