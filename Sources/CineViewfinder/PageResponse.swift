// PageResponse: a self-contained page served with a strict Content-Security-Policy — inline
// script and style allowed only with a nonce fresh for each response, images only from blobs,
// connections only back to this server.
import Foundation
import Hummingbird
import NIOCore

/// Serves the viewfinder's and the editor's pages.
package enum PageResponse {
    /// `template` with every `NONCE` replaced by a fresh nonce, and the policy that allows it.
    package static func html(_ template: String) -> Response {
        let nonce = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; "
            + "img-src blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        let html = template.replacingOccurrences(of: "NONCE", with: nonce)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
