// PathTemplate: output paths with placeholders, expanded once when a file is opened.
import Foundation

/// Expands `{time}` (local time, `20261122-143005`), `{date}` and `{node}` in an output path,
/// and creates the folders it needs.
enum PathTemplate {
    static func expand(_ template: String, node: String, at date: Date = Date()) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyyMMdd-HHmmss"
        let time = f.string(from: date)
        f.dateFormat = "yyyy-MM-dd"
        return template.replacingOccurrences(of: "{time}", with: time)
            .replacingOccurrences(of: "{date}", with: f.string(from: date))
            .replacingOccurrences(of: "{node}", with: node)
    }

    /// Creates the parent folder of `path` if missing.
    static func prepareFolder(for path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }
}
