// EditorPage: the editor's single self-contained page — the frame at the playhead with its
// rectangles, the timeline (focus plot, subject lanes, decision markers), aperture, undo / redo,
// save, render. Its HTML, CSS and JavaScript are the files in Pages/, compiled into the module
// (no build step, nothing fetched from the internet).
import CineViewfinder
import Foundation
import Hummingbird

/// The editor page.
enum EditorPage {
    /// The page, with a fresh nonce for its inline script and style (Content-Security-Policy).
    static func response() -> Response { PageResponse.html(template) }

    /// The page as served: editor.html with editor.css and editor.js inlined (one response, a
    /// nonce on each; the three are real files of this module, linted by `make test`).
    static let template = PageResponse.assemble(
        html: PackageResources.editor_html,
        files: ["editor.css": PackageResources.editor_css, "editor.js": PackageResources.editor_js])
}
