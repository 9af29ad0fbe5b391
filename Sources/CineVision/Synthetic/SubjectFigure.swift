// SubjectFigure: a person-like figure (body, neck, head) for one pose, in left-view pixels,
// with the layers that draw it and the face/body bounds reported to callers.

/// The figure of one subject at one instant: a rounded-rectangle torso (shoulders up; it runs
/// off the bottom of the frame), a neck, and an elliptical head showing the face or the back
/// of the head. All three share one depth, hence one disparity.
struct SubjectFigure {
    /// Half the torso's width, metres.
    static let bodyHalfWidth = 0.22
    /// Half the head's width, metres.
    static let headHalfWidth = 0.085
    /// Half the head's height, metres.
    static let headHalfHeight = 0.115
    /// Half the neck's width, metres.
    static let neckHalfWidth = 0.05
    /// Radius of the shoulders' rounding, metres.
    static let shoulderRadius = 0.1

    let pose: SubjectPose
    let disparity: Double
    /// The head ellipse's bounding box.
    let head: PixelRect
    let neck: PixelRect
    let body: PixelRect
    /// The face region of the head: cheek to cheek (85 % of the head's width), hairline to chin.
    let face: PixelRect
    let shoulderRadius: Double
    /// A walking figure's legs and arms (``WalkerLimbs``); `nil` for a close figure.
    let limbs: WalkerLimbs?

    init(pose: SubjectPose, camera: StereoCameraModel) {
        self.pose = pose
        let z = pose.depth, x = pose.x, headY = pose.headHeight
        let shoulders = headY - SubjectFigure.headHalfHeight - 0.05
        disparity = camera.disparity(atDepth: z)
        head = camera.rect(
            x0: x - SubjectFigure.headHalfWidth, x1: x + SubjectFigure.headHalfWidth,
            bottom: headY - SubjectFigure.headHalfHeight, top: headY + SubjectFigure.headHalfHeight,
            depth: z)
        neck = camera.rect(
            x0: x - SubjectFigure.neckHalfWidth, x1: x + SubjectFigure.neckHalfWidth,
            bottom: shoulders - 0.03, top: headY - 0.06, depth: z)
        if let gait = pose.gait {
            let stature = headY + SubjectFigure.headHalfHeight
            let walker = WalkerLimbs(x: x, depth: z, stature: stature, shoulders: shoulders, gait: gait, camera: camera)
            limbs = walker
            body = camera.rect(
                x0: x - WalkerLimbs.torsoHalfWidth, x1: x + WalkerLimbs.torsoHalfWidth,
                bottom: walker.hips - 0.04, top: shoulders, depth: z)
        } else {
            limbs = nil
            body = camera.rect(
                x0: x - SubjectFigure.bodyHalfWidth, x1: x + SubjectFigure.bodyHalfWidth,
                bottom: -1, top: shoulders, depth: z)
        }
        shoulderRadius = (pose.gait == nil ? SubjectFigure.shoulderRadius : 0.05) * camera.focalLength / z
        // In head coordinates (-1…1, y down) the face spans x ±0.85 and y from the hairline (-0.5) to the chin (1).
        let cx = (head.left + head.right) / 2, cy = (head.top + head.bottom) / 2
        let a = head.width / 2, b = head.height / 2
        face = PixelRect(left: cx - 0.85 * a, top: cy - 0.5 * b, right: cx + 0.85 * a, bottom: cy + b)
    }

    /// Whether any part of the figure is inside a `width` × `height` image.
    func isVisible(width: Int, height: Int) -> Bool {
        body.intersects(width: width, height: height) || head.intersects(width: width, height: height)
            || (limbs?.bounds.intersects(width: width, height: height) ?? false)
    }

    /// The whole figure's bounding box: head, body and limbs.
    var whole: PixelRect {
        var r = PixelRect(left: min(body.left, head.left), top: head.top, right: max(body.right, head.right), bottom: body.bottom)
        if let b = limbs?.bounds {
            r = PixelRect(left: min(r.left, b.left), top: min(r.top, b.top), right: max(r.right, b.right), bottom: max(r.bottom, b.bottom))
        }
        return r
    }

    /// Whether the figure is drawn at pixel position (`x`, `y`): inside its head (an ellipse),
    /// neck or body (the shoulders' rounding ignored).
    func covers(x: Double, y: Double) -> Bool {
        func inside(_ r: PixelRect) -> Bool { x >= r.left && x < r.right && y >= r.top && y < r.bottom }
        if inside(body) || inside(neck) { return true }
        if let limbs, inside(limbs.bounds), (0..<WalkerLimbs.count).contains(where: { inside(limbs.rects[$0]) }) { return true }
        guard head.width > 0, head.height > 0 else { return false }
        let u = (x - (head.left + head.right) / 2) / (head.width / 2)
        let v = (y - (head.top + head.bottom) / 2) / (head.height / 2)
        return u * u + v * v <= 1
    }

    /// The open mouth drawn over the face of a talking subject: a dark ellipse between the lips
    /// (upper teeth at its top) that grows with ``SubjectPose/mouthOpening``; `nil` when the
    /// mouth is closed or the face is turned away.
    func mouth(library: SceneTextureLibrary) -> SceneLayer? {
        let open = pose.mouthOpening
        guard open > 0.02, pose.facingCamera, head.width > 0 else { return nil }
        let cx = (head.left + head.right) / 2, cy = (head.top + head.bottom) / 2
        let a = head.width / 2, b = head.height / 2
        let halfWidth = (0.15 + 0.04 * open) * a, halfHeight = (0.012 + 0.085 * open) * b
        let centreY = cy + (0.56 + 0.02 * open) * b
        let bounds = PixelRect(left: cx - halfWidth, top: centreY - halfHeight, right: cx + halfWidth, bottom: centreY + halfHeight)
        let texture = library.mouth
        return SceneLayer(
            shape: .ellipse, bounds: bounds, depth: pose.depth, disparity: disparity, texture: texture.view,
            wrapsHorizontally: false, wrapsVertically: false,
            horizontal: .stretched(from: bounds.left, to: bounds.right, size: texture.size),
            vertical: .stretched(from: bounds.top, to: bounds.bottom, size: texture.size))
    }

    /// The figure's three layers, in drawing order (body, neck, head).
    func layers(library: SceneTextureLibrary) -> (body: SceneLayer, neck: SceneLayer, head: SceneLayer) {
        let character = library.characters[pose.character % library.characters.count]
        let clothing = library.clothing[pose.clothing % library.clothing.count]
        let across = SceneLayer.Axis.stretched(from: body.left, to: body.right, size: 256)
        let bodyLayer = SceneLayer(
            shape: .roundedRectangle, bounds: body, cornerRadius: shoulderRadius, depth: pose.depth,
            disparity: disparity, texture: clothing.view, wrapsHorizontally: false, wrapsVertically: true,
            horizontal: across, vertical: .scaled(from: body.top, step: across.step))
        let neckLayer = SceneLayer(
            shape: .rectangle, bounds: neck, depth: pose.depth, disparity: disparity, texture: character.neck.view,
            wrapsHorizontally: false, wrapsVertically: false,
            horizontal: .stretched(from: neck.left, to: neck.right, size: character.neck.size),
            vertical: .stretched(from: neck.top, to: neck.bottom, size: character.neck.size))
        let headTexture = pose.facingCamera ? character.face : character.backOfHead
        let headLayer = SceneLayer(
            shape: .ellipse, bounds: head, depth: pose.depth, disparity: disparity, texture: headTexture.view,
            wrapsHorizontally: false, wrapsVertically: false,
            horizontal: .stretched(from: head.left, to: head.right, size: headTexture.size),
            vertical: .stretched(from: head.top, to: head.bottom, size: headTexture.size))
        return (bodyLayer, neckLayer, headLayer)
    }
}
