// KeepPairNode: kind `keep-pair` — the stereo pair reduced to what a take keeps for matching
// depth again after it (KeptPair), before a stabilizer holds it with its frames.
import CineGraph
import CineMedia

/// Kind `keep-pair`: both views' luma at a quarter of the size, side by side (``KeptPair``).
public struct KeepPairNode: Node {
    public static let kind = "keep-pair"
    public static let summary = "Reduces the stereo pair to what a take keeps for matching depth again after it."
    public static let details = """
        Both views' luma averaged over 4×4 blocks, side by side, in an I420 frame with neutral \
        chroma (960×270 for 1080p views): the samples the stereo matcher's default scale works \
        on. A stabilized take passes it through the stabilizer (`pair` → `stabilized-pair`), \
        which moves it with its frame, to the asset's `pair` input; `cinegraph render --repair` \
        then matches the depth again where the take carried it (docs/asset.md#repairing-a-take). \
        An unstabilized take needs no node: the asset's `right` input keeps the pair itself.
        """

    @Input("The rectified stereo pair") public var stereo: StereoFrame
    @Output(formats: [.i420], "The kept pair") public var pair: Image

    public init() {}

    public mutating func process(_ ctx: inout NodeContext) throws {
        guard stereo.left.width == stereo.right.width, stereo.left.height == stereo.right.height else {
            throw ParameterError(nil, "the views are \(stereo.left.width)x\(stereo.left.height) and \(stereo.right.width)x\(stereo.right.height): a pair has one size")
        }
        pair = KeptPair.recorded(left: stereo.left, right: stereo.right, pool: ctx.pool)
    }
}
