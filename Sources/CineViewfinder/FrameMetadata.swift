// FrameMetadata: the per-frame JSON the viewfinder streams — detections with focus modes, the
// focus state, the scene statuses — as the video stream's frame header and the event stream's
// `metadata` message.
import CineMedia
import Foundation

/// One frame's metadata as sent to viewers (see docs/control.md).
struct FrameMetadata: Codable, Sendable {
    /// `frame` before a JPEG on `/ws/video`; `metadata` on `/ws/events`.
    var type: String
    /// The frame's instant in seconds.
    var timestamp: Double
    /// The frame's index at the viewfinder.
    var frame: Int
    /// Size of the JPEG that follows (video stream only).
    var width: Int?
    var height: Int?
    var detections: [Detection]
    var focus: FocusState?
    /// Scene statuses by name; empty = normal.
    var scene: [String]

    init(type: String, frame f: ViewfinderFrame, size: (width: Int, height: Int)? = nil) {
        self.type = type
        timestamp = f.timestamp.seconds
        frame = f.index
        width = size?.width
        height = size?.height
        detections = f.detections ?? []
        focus = f.focus
        scene = f.scene?.names ?? []
    }

    /// The JSON text.
    func json() -> String { JSONResponse.text(self) }
}
