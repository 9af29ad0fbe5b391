// SceneProp: the synthetic scene's props — a ball rolled along the sideboard and a cup carried
// by the first subject — for tracking what a user taps, with their true boxes.
import CineMedia

/// A prop of a ``SyntheticScene`` at one instant, as a perfect tracker would see it in the left
/// (reference) view. Scenes have props when ``SyntheticScene/Configuration/props`` is on.
public struct SyntheticProp: Sendable, Hashable {
    /// What the prop is.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A red and white ball on the sideboard, rolled from one end to the other and back.
        case ball
        /// A mug in the first subject's hand, carried across the room with them.
        case cup
    }

    /// Stable across the scene: 100 for the ball, 101 for the cup (never a subject's id).
    public var id: Int
    /// What the prop is.
    public var kind: Kind
    /// The prop's box, clipped to the frame (zero-sized when it is outside). Not reduced by
    /// occlusion: ``visibleFraction`` says how much of it the camera sees.
    public var bounds: NormalizedRect
    /// Disparity of the prop, full-resolution pixels.
    public var disparity: Double
    /// Depth of the prop, metres.
    public var depth: Double
    /// The share of the prop's whole outline (0 ... 1) the camera sees: inside the frame and
    /// not behind anything nearer (a column, a person, the other prop).
    public var visibleFraction: Double

    /// Creates a prop record.
    public init(id: Int, kind: Kind, bounds: NormalizedRect, disparity: Double, depth: Double, visibleFraction: Double) {
        self.id = id
        self.kind = kind
        self.bounds = bounds
        self.disparity = disparity
        self.depth = depth
        self.visibleFraction = visibleFraction
    }
}

/// Where a prop is at one instant, in left-view pixels.
struct ScenePropPlacement {
    let kind: SyntheticProp.Kind
    let bounds: PixelRect
    let depth: Double
    let disparity: Double
    /// The cup's holder's character (their skin) when a hand is drawn holding it (showcase
    /// scenes, ``SceneHand``); `nil` when the cup floats.
    var hand: SceneHand? = nil

    /// The prop's id in the truth.
    var id: Int { kind == .ball ? 100 : 101 }

    /// Whether the prop is drawn at pixel (`x`, `y`): the ball is a disc, the cup a rectangle.
    func covers(x: Double, y: Double) -> Bool {
        guard x >= bounds.left, x < bounds.right, y >= bounds.top, y < bounds.bottom else { return false }
        guard kind == .ball else { return true }
        let u = (x - (bounds.left + bounds.right) / 2) / (bounds.width / 2)
        let v = (y - (bounds.top + bounds.bottom) / 2) / (bounds.height / 2)
        return u * u + v * v <= 1
    }

    /// The layer that draws the prop.
    func layer(library: SceneTextureLibrary) -> SceneLayer {
        let texture = kind == .ball ? library.ball : library.cup
        return SceneLayer(
            shape: kind == .ball ? .ellipse : .roundedRectangle, bounds: bounds,
            cornerRadius: kind == .ball ? 0 : bounds.width * 0.08, depth: depth, disparity: disparity,
            texture: texture.view, wrapsHorizontally: false, wrapsVertically: false,
            horizontal: .stretched(from: bounds.left, to: bounds.right, size: texture.size),
            vertical: .stretched(from: bounds.top, to: bounds.bottom, size: texture.size))
    }
}

/// The props' motion: the ball rests at the left end of the stretch of sideboard the columns
/// leave in view, rolls to its right end (15–33 % of the scene), rests, and rolls back
/// (55–73 %), passing behind the people walking in front; the cup is in the first subject's hand, 30 cm to the right of their centre line, at
/// chest height and 25 cm nearer the camera, bobbing with their step. Raised (`raise` 1: a
/// showcase scene's showing, ``ShowcaseScript``), it is held 70 cm nearer the camera than the
/// carrier, on the camera's line of sight to the lower half of their face.
struct SceneProps {
    /// The ball's radius, metres.
    static let ballRadius = 0.09
    /// The cup's width and height, metres.
    static let cupSize = (width: 0.09, height: 0.11)

    /// Calls `body` with each prop placed at scene time `t`, far first. Allocates nothing.
    static func forEach(
        at t: Double, duration: Double, camera: StereoCameraModel, set: SceneSet, carrier: SubjectScript?,
        raise: Double = 0, hand: Bool = false, _ body: (ScenePropPlacement) -> Void
    ) {
        let board = set.sideboard
        let r = ballRadius
        let ballDepth = board.depth + 0.09
        // The stretch of the sideboard the columns leave in view (at the ball's depth), less a margin.
        var lo = board.left + r + 0.05, hi = board.right - r - 0.05
        for c in set.columns {
            let cl = c.left * ballDepth / c.depth, cr = c.right * ballDepth / c.depth
            if cr < 0 { lo = max(lo, cr + r + 0.05) } else { hi = min(hi, cl - r - 0.05) }
        }
        if hi - lo < 0.4 { hi = lo + 0.4 }
        let p = t / duration
        let out = SceneTexturePatterns.smoothstep(0.15, 0.33, p), back = SceneTexturePatterns.smoothstep(0.55, 0.73, p)
        let along = out - back  // 0 at the left end, 1 at the right
        let x = lo + along * (hi - lo)
        let ball = ScenePropPlacement(
            kind: .ball,
            bounds: camera.rect(x0: x - r, x1: x + r, bottom: board.top, top: board.top + 2 * r, depth: ballDepth),
            depth: ballDepth, disparity: camera.disparity(atDepth: ballDepth))
        var cup: ScenePropPlacement?
        if let pose = carrier?.pose(at: t, camera: camera) {
            // At rest: 30 cm right, chest height, 25 cm nearer. Raised: 70 cm nearer, on the
            // camera's line of sight to the lower half of the face (so it passes in front of it).
            let raisedDepth = pose.depth - 0.7, k = raisedDepth / pose.depth
            let raisedX = (pose.x + 0.03) * k
            let raisedY = camera.cameraHeight + (pose.headHeight - 0.06 - camera.cameraHeight) * k
            let restY = pose.headHeight - 0.45 + cupSize.height / 2
            let depth = pose.depth - 0.25 + (raisedDepth - (pose.depth - 0.25)) * raise
            let cx = pose.x + 0.3 + (raisedX - pose.x - 0.3) * raise
            let bottom = restY + (raisedY - restY) * raise - cupSize.height / 2
            cup = ScenePropPlacement(
                kind: .cup,
                bounds: camera.rect(
                    x0: cx - cupSize.width / 2, x1: cx + cupSize.width / 2, bottom: bottom,
                    top: bottom + cupSize.height, depth: depth),
                depth: depth, disparity: camera.disparity(atDepth: depth),
                hand: hand ? SceneHand(character: pose.character, cupLeft: cx - cupSize.width / 2,
                                       cupMiddle: bottom + cupSize.height / 2, depth: depth) : nil)
        }
        body(ball)
        if let cup { body(cup) }
    }
}

/// A hand holding the cup from its left side (the holder's right hand): a forearm rising from
/// below, the palm at the cup's edge, four fingers wrapped across its front and the thumb up its
/// side — rounded rectangles in the holder's skin, at the cup's depth (the fingers 2 cm nearer),
/// an adult's size (palm 6.4 cm wide, the fingers 10 cm from first to last). Drawn in showcase
/// scenes, so that a palm detector finds the hand that shows the cup.
struct SceneHand: Sendable, Hashable {
    /// The holder's character (the skin the hand takes).
    let character: Int
    /// The cup's left edge, metres across the scene.
    let cupLeft: Double
    /// The height of the cup's middle, metres.
    let cupMiddle: Double
    /// The cup's depth, metres.
    let depth: Double

    /// The hand's scale, metres: about a palm's length.
    static let size = 0.085
    /// The pieces as (left, top, right, bottom, corner radius) in ``size`` units from the cup's
    /// left edge and middle (down is +), and depth offsets, metres: forearm, palm, thumb (in the
    /// neck's skin), then the fingers (``SceneCharacter/finger``).
    static let pieces: [(box: (Double, Double, Double, Double), radius: Double, depth: Double)] = [
        ((-0.62, 0.3, -0.02, 2.8), 0.3, 0.03),
        ((-0.6, -0.55, 0.15, 0.6), 0.3, -0.01),
        ((-0.25, -1.0, 0, -0.3), 0.12, -0.01),
    ] + [(0.63, 0.13), (0.7, 0.135), (0.65, 0.13), (0.52, 0.11)].enumerated().map { k, finger in
        // Index, middle, ring and little finger: their reach across the cup and half-thickness.
        let y = -0.45 + 0.3 * Double(k)
        return ((-0.23, y - finger.1, finger.0, y + finger.1), finger.1, -0.02)
    }

    /// Calls `body` with each piece's layer, far to near. Allocates nothing.
    func forEachLayer(camera: StereoCameraModel, library: SceneTextureLibrary, _ body: (SceneLayer) -> Void) {
        let character = library.characters[character % library.characters.count]
        let s = Self.size
        for (k, piece) in Self.pieces.enumerated() {
            let texture = k < 3 ? character.neck : character.finger
            let (l, t, r, b) = piece.box
            let d = depth + piece.depth
            let rect = camera.rect(x0: cupLeft + l * s, x1: cupLeft + r * s, bottom: cupMiddle - b * s,
                                   top: cupMiddle - t * s, depth: d)
            let radius = piece.radius * s * rect.width / ((r - l) * s)
            body(SceneLayer(
                shape: .roundedRectangle, bounds: rect, cornerRadius: radius, depth: d,
                disparity: camera.disparity(atDepth: d), texture: texture.view,
                wrapsHorizontally: false, wrapsVertically: false,
                horizontal: .stretched(from: rect.left, to: rect.right, size: texture.size),
                vertical: .stretched(from: rect.top, to: rect.bottom, size: texture.size)))
        }
    }
}
