// NormalizedPoint: a point of the frame in normalised coordinates, as gestures and focus
// commands give it (`point=X,Y`).
import Foundation

/// A point in normalised frame coordinates: 0…1 on both axes, origin at the top left.
public struct NormalizedPoint: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 0 = left edge, 1 = right edge.
    public var x: Double
    /// 0 = top edge, 1 = bottom edge.
    public var y: Double

    /// Creates a point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// Parses `"X,Y"` (for example `0.5,0.25`); `nil` when it is not two numbers.
    public init?(parsing text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let x = parts[0], let y = parts[1] else { return nil }
        self.init(x: x, y: y)
    }

    /// Whether both coordinates lie in 0…1 (and are numbers).
    public var isInsideFrame: Bool { (0...1).contains(x) && (0...1).contains(y) }

    /// `x,y` with three decimals.
    public var description: String { "\(Self.format(x)),\(Self.format(y))" }

    private static func format(_ v: Double) -> String {
        let r = (v * 1000).rounded() / 1000
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}
