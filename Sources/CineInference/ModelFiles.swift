// ModelFiles: where the learned models and the LiteRT library are found — the project-local
// .models/ folder that scripts/fetch-models.sh fills, or a folder the user names.
import Foundation

/// Finds model files (`face_detection_short_range.tflite`, …) and `libLiteRt.so`.
///
/// Looked up in order: `$CINEGRAPH_MODELS`; `.models/` of the checkout the running binary was
/// built in (`.build/<triple>/release/cinegraph` → the checkout); `share/cinegraph/models` beside
/// an installed binary (`<prefix>/bin/cinegraph` → `<prefix>/share/cinegraph/models`, what
/// `make install` and the Debian package lay out); `.models/` in the working directory. An absolute or `./`-relative path is used as it is.
public enum ModelFiles {
    /// The command that installs the files.
    public static let installHint = "run scripts/fetch-models.sh (make setup does it) or set CINEGRAPH_MODELS to a folder holding it"

    /// Folders searched, in order.
    public static var searchDirectories: [String] {
        var dirs: [String] = []
        if let env = ProcessInfo.processInfo.environment["CINEGRAPH_MODELS"], !env.isEmpty { dirs.append(env) }
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let bin = URL(fileURLWithPath: exe).deletingLastPathComponent()
            var url = bin
            for _ in 0..<4 {
                url = url.deletingLastPathComponent()
                dirs.append(url.appendingPathComponent(".models").path)
            }
            dirs.append(bin.deletingLastPathComponent().appendingPathComponent("share/cinegraph/models").path)
        }
        dirs.append(FileManager.default.currentDirectoryPath + "/.models")
        return dirs
    }

    /// The path of `name`, or an ``InferenceError`` saying where it was looked for and how to install it.
    public static func resolve(_ name: String) throws -> String {
        if name.contains("/") {
            guard FileManager.default.isReadableFile(atPath: name) else {
                throw InferenceError(file: name, message: "no such file, or it is not readable")
            }
            return name
        }
        for dir in searchDirectories {
            let path = dir + "/" + name
            if FileManager.default.isReadableFile(atPath: path) { return path }
        }
        throw InferenceError(file: name, message: "not found in \(searchDirectories.joined(separator: ", ")); \(installHint)")
    }
}

/// A model that could not be loaded or run: the file and what went wrong.
public struct InferenceError: Error, Sendable, CustomStringConvertible {
    /// The model or library file.
    public var file: String
    /// What went wrong, and what to do.
    public var message: String
    /// Creates an error.
    public init(file: String, message: String) {
        self.file = file
        self.message = message
    }
    public var description: String { "\(file): \(message)" }
}
