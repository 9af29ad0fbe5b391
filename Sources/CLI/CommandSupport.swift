// What every command shares: how it writes to the terminal, how it fails, and the enumerated
// options it parses (swift-argument-parser lists and checks their values from the enum itself).
import ArgumentParser
import CineNodes
import CineVision
import Foundation
import Logging

/// Writes a line to stderr in one `write` (events arrive from several node threads at once;
/// `print(_:terminator:to:)` writes the text and the newline separately, so lines interleaved).
func printError(_ s: String, terminator: String = "\n") {
    var stderr = StandardError()
    stderr.write(s + terminator)
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}

/// A command that failed for a reason other than its usage: printed as `Error: …`, exit status 1.
struct ToolError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A point `x,y` on the command line (two numbers; what they measure is the option's to say).
struct PointArgument: ExpressibleByArgument, CustomStringConvertible {
    var x: Double
    var y: Double
    init?(argument: String) {
        let parts = argument.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, parts.allSatisfy(\.isFinite) else { return nil }
        (x, y) = (parts[0], parts[1])
    }
    var description: String { "\(x),\(y)" }
}

// Options whose values are an enum's cases: help lists them, parsing rejects anything else.
extension BokehQuality: ExpressibleByArgument {}
extension BokehNode.Quality: ExpressibleByArgument {}
extension StabilizerMode: ExpressibleByArgument {}
extension FocusFollow: ExpressibleByArgument {}
extension StereoSafety: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Where a graph named on the command line is: the path as given when it exists; else, for a
/// bare name (`viewfinder`, `webcam.conf`), the example graphs of a checkout (`graphs/`) or of
/// an installed cinegraph (`<prefix>/share/cinegraph/graphs`, beside `<prefix>/bin/cinegraph`).
enum GraphFiles {
    /// The folder of example graphs that ships with this binary, when there is one.
    static var installed: String? {
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let dir = URL(fileURLWithPath: exe).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/cinegraph/graphs").path
        return FileManager.default.fileExists(atPath: dir) ? dir : nil
    }

    static func resolve(_ path: String) -> String {
        if FileManager.default.fileExists(atPath: path) || path.contains("/") { return path }
        let name = path.hasSuffix(".conf") ? path : path + ".conf"
        for dir in ["graphs", installed].compactMap({ $0 }) where FileManager.default.fileExists(atPath: dir + "/" + name) {
            return dir + "/" + name
        }
        return path
    }

    /// How to name an example graph in a hint: `graphs/NAME.conf` in a checkout, else its installed path.
    static func hint(_ name: String) -> String {
        if FileManager.default.fileExists(atPath: "graphs/\(name).conf") { return "graphs/\(name).conf" }
        return installed.map { "\($0)/\(name).conf" } ?? "graphs/\(name).conf"
    }
}
