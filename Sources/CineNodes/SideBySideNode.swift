// SideBySideNode: packs the two views of a stereo frame into one image, to record or
// stream both views the way a stereo camera delivers them.
import CineGraph
import CineMedia

/// Kind `side-by-side`: one image holding both views.
public struct SideBySideNode: Node {
    public static let kind = "side-by-side"
    public static let summary = "Packs the two views of a stereo frame into one image (side by side or top-bottom)."
    public static let details = """
        The inverse of a stereo source's `layout`: record the packed image with a `movie` sink \
        and read it back later with `kind: file, layout: side-by-side`. Costs one copy of both views.
        """

    @Input("Both views") public var stereo: StereoFrame
    @Output("Left and right views in one image") public var video: Image
    @Parameter(default: .sideBySide, "side-by-side or top-bottom") public var layout: StereoLayout

    public init() {}

    public func validate() throws {
        if layout == .mono { throw ParameterError("layout", "mono holds one view; use side-by-side or top-bottom") }
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        video = Image.packed(stereo.left, stereo.right, vertical: layout == .topBottom, pool: ctx.pool)
    }
}
