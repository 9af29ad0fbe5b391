// ViewfinderPage: the single self-contained page — preview, rectangles, gestures, aperture,
// banner, still/record buttons and statistics. Its HTML, CSS and JavaScript are the files in
// Pages/, compiled into the module (no build step, nothing fetched from the internet).
import Foundation
import Hummingbird

/// The viewfinder page.
enum ViewfinderPage {
    /// The page, with a fresh nonce for its inline script and style (Content-Security-Policy).
    static func response() -> Response { PageResponse.html(template) }

    /// The page as served: viewfinder.html with viewfinder.css and viewfinder.js inlined (one
    /// response, a nonce on each; the three are real files of this module, linted by `make test`).
    static let template = PageResponse.assemble(
        html: PackageResources.viewfinder_html,
        files: ["viewfinder.css": PackageResources.viewfinder_css, "viewfinder.js": PackageResources.viewfinder_js])
}
