// ImageFormatError: an image reached an input that does not take its pixel format.
import CineMedia

/// An image reached an input in a pixel format the input's declaration does not take. Graphs
/// whose producers declare their formats are checked when they load; this catches the rest (a
/// plugin's output that declares nothing) before the node sees the packet.
public struct ImageFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input's name.
    public var input: String
    /// The format that arrived.
    public var got: PixelFormat
    /// The formats the input takes.
    public var takes: [PixelFormat]

    /// Creates the error for an image in `got` on `input`, which takes `takes`.
    public init(input: String, got: PixelFormat, takes: [PixelFormat]) {
        self.input = input
        self.got = got
        self.takes = takes
    }

    public var description: String {
        "input '\(input)' takes \(formatList(takes)) images, got \(got)"
    }

    /// Throws when `value` is an image in a format not in `formats`.
    static func check(_ value: (any Sendable)?, input: String, takes formats: [PixelFormat]) throws {
        if let image = value as? Image, !formats.contains(image.format) {
            throw ImageFormatError(input: input, got: image.format, takes: formats)
        }
    }
}
