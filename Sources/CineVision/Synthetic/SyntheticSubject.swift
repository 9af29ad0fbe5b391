// SyntheticSubject: the ground truth about one person in the synthetic scene at one instant —
// what a face or body detector should report.
import CineMedia

/// A subject visible at some instant of a ``SyntheticScene``, as a perfect detector would see it
/// in the left (reference) view.
public struct SyntheticSubject: Sendable, Hashable {
    /// Stable across the scene: the subject's index in the schedule (0 ..< `subjectCount`).
    public var id: Int
    /// The face region (cheek to cheek, hairline to chin), clipped to the frame; zero-sized when
    /// the head is outside the frame. Reported whether or not the subject faces the camera.
    public var face: NormalizedRect
    /// The whole figure, head to the bottom of the frame, clipped to the frame.
    public var body: NormalizedRect
    /// Disparity of the subject (body and head alike), full-resolution pixels.
    public var disparity: Double
    /// Depth of the subject, metres.
    public var depth: Double
    /// Whether the face is towards the camera; `false` while the subject shows the back of its head.
    public var facingCamera: Bool
    /// The share of the whole face (0 ... 1) that the camera sees: inside the frame and not
    /// behind a nearer subject's head, neck or body.
    public var faceVisibleFraction: Double
    /// Whether the subject is talking (inside one of its turns of a talk scene, the pauses
    /// between words included); always `false` outside talk scenes.
    public var speaking: Bool
    /// How far the mouth is open, 0 (closed) … 1.
    public var mouthOpening: Double

    /// Creates a subject record.
    public init(
        id: Int, face: NormalizedRect, body: NormalizedRect, disparity: Double, depth: Double,
        facingCamera: Bool, faceVisibleFraction: Double = 1, speaking: Bool = false, mouthOpening: Double = 0
    ) {
        self.speaking = speaking
        self.mouthOpening = mouthOpening
        self.id = id
        self.face = face
        self.body = body
        self.disparity = disparity
        self.depth = depth
        self.facingCamera = facingCamera
        self.faceVisibleFraction = faceVisibleFraction
    }
}
