// PageResponse: a self-contained page served with a strict Content-Security-Policy — inline
// script and style allowed only with a nonce fresh for each response, images only from blobs,
// connections only back to this server — assembled from a page's HTML, CSS and JavaScript files.
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

    /// `html` with each `<link rel="stylesheet" href="NAME">` and `<script src="NAME"></script>`
    /// replaced by the file's content inline (`<style nonce="NONCE">`, `<script nonce="NONCE">`):
    /// the page stays three real files, and is served as one response. A name with no file is a
    /// programming error, caught by the pages' tests.
    package static func assemble(html: [UInt8], files: [String: [UInt8]]) -> String {
        var page = String(decoding: html, as: UTF8.self)
        for (name, bytes) in files.sorted(by: { $0.key < $1.key }) {
            let text = String(decoding: bytes, as: UTF8.self)
            let (tag, inline) =
                name.hasSuffix(".css")
                ? ("<link rel=\"stylesheet\" href=\"\(name)\">", "<style nonce=\"NONCE\">\n\(text)</style>")
                : ("<script src=\"\(name)\"></script>", "<script nonce=\"NONCE\">\n\(text)</script>")
            page = page.replacingOccurrences(of: tag, with: inline)
        }
        return page
    }
}
