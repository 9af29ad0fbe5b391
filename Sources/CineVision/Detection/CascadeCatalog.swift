// CascadeCatalog: which OpenCV cascade files find which object type — the documented table
// from DetectionType to XML, the search path, and user-added types.
import CineMedia
import Foundation

/// The mapping from object types to cascade files.
///
/// | type | primary cascade | secondary |
/// |---|---|---|
/// | humanFace | haarcascade_frontalface_default.xml | haarcascade_profileface.xml (looking away) |
/// | humanBody | haarcascade_upperbody.xml | haarcascade_fullbody.xml |
/// | catFace | haarcascade_frontalcatface.xml | — |
///
/// Files are looked up in ``searchDirectories`` (Debian's `opencv-data` locations, then
/// `$CINEGRAPH_CASCADES`); absolute or relative paths are used as they are.
public struct CascadeCatalog: Sendable {
    /// One cascade used for a type, and what a hit means.
    public struct Entry: Sendable, Hashable {
        /// File name or path.
        public var file: String
        /// Whether a hit of this cascade means the object faces the camera (frontal) or not (profile).
        public var facing: Facing
        /// Creates an entry.
        public init(file: String, facing: Facing = .towards) {
            self.file = file
            self.facing = facing
        }
    }

    /// Cascades per type, primary first.
    public var entries: [DetectionType: [Entry]]

    /// The built-in table.
    public static let standard = CascadeCatalog(entries: [
        .humanFace: [Entry(file: "haarcascade_frontalface_default.xml", facing: .towards),
                     Entry(file: "haarcascade_profileface.xml", facing: .away)],
        .humanBody: [Entry(file: "haarcascade_upperbody.xml", facing: .unknown),
                     Entry(file: "haarcascade_fullbody.xml", facing: .unknown)],
        .catFace: [Entry(file: "haarcascade_frontalcatface.xml", facing: .towards)],
    ])

    /// Creates a catalog.
    /// The same types with OpenCV's LBP cascades where Debian ships one (frontal and profile
    /// faces, cat faces; bodies stay Haar): integer features, several times cheaper per window
    /// than Haar, for live graphs on small CPUs.
    public static let lbp = CascadeCatalog(entries: [
        .humanFace: [Entry(file: "lbpcascade_frontalface_improved.xml", facing: .towards),
                     Entry(file: "lbpcascade_profileface.xml", facing: .away)],
        .humanBody: [Entry(file: "haarcascade_upperbody.xml", facing: .unknown),
                     Entry(file: "haarcascade_fullbody.xml", facing: .unknown)],
        .catFace: [Entry(file: "lbpcascade_frontalcatface.xml", facing: .towards)],
    ])

    public init(entries: [DetectionType: [Entry]]) {
        self.entries = entries
    }

    /// Where bare file names are looked up.
    public static var searchDirectories: [String] {
        var d = ["/usr/share/opencv4/haarcascades", "/usr/share/opencv4/lbpcascades",
                 "/usr/share/opencv/haarcascades", "/usr/share/opencv/lbpcascades"]
        if let extra = ProcessInfo.processInfo.environment["CINEGRAPH_CASCADES"] {
            d.insert(contentsOf: extra.split(separator: ":").map(String.init), at: 0)
        }
        return d
    }

    /// The path of `file`: itself if it contains a `/` or exists, else the first search directory holding it.
    /// - Throws: ``CascadeError`` listing where it looked.
    public static func resolve(_ file: String) throws -> String {
        if file.contains("/") || FileManager.default.fileExists(atPath: file) { return file }
        for d in searchDirectories where FileManager.default.fileExists(atPath: d + "/" + file) { return d + "/" + file }
        throw CascadeError(file: file, "not found in \(searchDirectories.joined(separator: ", ")); install Debian's opencv-data (scripts/setup.sh) or pass a path")
    }

    /// Parses a type name (`humanFace`, `catFace`, …).
    /// - Throws: ``CascadeError`` naming the known types.
    public func type(named name: String) throws -> DetectionType {
        guard let t = DetectionType(rawValue: name), entries[t] != nil || t == .salientObject else {
            let known = entries.keys.map(\.rawValue).sorted().joined(separator: ", ")
            throw CascadeError(file: name, "unknown object type '\(name)'; known: \(known)")
        }
        return t
    }
}
