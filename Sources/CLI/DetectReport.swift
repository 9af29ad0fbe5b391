// DetectReport: what `cinegraph detect --json` prints — per image its size, the time it took and
// each object found, as Swift types (keys sorted; a field a detector does not give is left out).
import Foundation

/// One image's findings.
struct DetectedImage: Encodable {
    var image: String
    var width: Int
    var height: Int
    /// Decoding and detection, once the models are loaded.
    var milliseconds: Double
    var objects: [DetectedObject]
}

/// One object, in the image's pixels.
struct DetectedObject: Encodable {
    var type: String
    var facing: String
    /// The learned model's file, or the cascade's source.
    var model: String?
    var cascade: String?
    var confidence: Double?
    var x: Int
    var y: Int
    var width: Int
    var height: Int
    /// The face landmark model's face presence and head pose (degrees).
    var presence: Double?
    var yaw: Double?
    var pitch: Double?
    var roll: Double?
    /// The 468 landmark points `[x, y, z]` (`--mesh`).
    var mesh: [[Double]]?
    /// A body's head box `[x, y, width, height]` and its keypoints `[x, y]`.
    var head: [Double]?
    var keypoints: [[Double]]?

    init(type: String, facing: String, x: Int, y: Int, width: Int, height: Int) {
        (self.type, self.facing, self.x, self.y, self.width, self.height) = (type, facing, x, y, width, height)
    }

    /// The report as pretty-printed JSON with sorted keys.
    static func json(_ images: [DetectedImage]) throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try e.encode(images), as: UTF8.self)
    }
}
