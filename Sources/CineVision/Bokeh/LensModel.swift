// LensModel: the simulated camera — how far a point's disparity is from the focal plane's
// becomes the radius of its circle of confusion, for a given f-number.

/// The thin-lens model behind the synthetic depth of field.
///
/// A thin lens of focal length `F` and aperture diameter `A = F / N` (`N` the f-number),
/// focused at depth `Z_f`, images a point at depth `Z` as a disk whose diameter on the sensor,
/// in pixels, is `b = f_px · A · |1/Z − 1/Z_f|` (for `Z_f ≫ F`). A rectified stereo pair with
/// baseline `B` measures disparity `d = f_px · B / Z`, so `1/Z = d / (f_px · B)` and
///
/// ```
/// b = (A / B) · |d − d_f|            radius  c = (F / (2·B)) · (d − d_f) / N
/// ```
///
/// The circle of confusion is therefore **linear in the disparity difference and inversely
/// proportional to the f-number**, and needs neither the focal length nor the baseline in
/// metres — only their ratio, the ``apertureConstant`` `K = F / (2·B)`:
///
/// ```
/// c(d) = K · (d − d_f) / N          (pixels; K = 0.7 by default)
/// ```
///
/// `c` is signed: positive in front of the focal plane (nearer, larger disparity), negative
/// behind it. With the default `K = 0.7` the simulated lens is a 91 mm lens on a 65 mm stereo
/// baseline; a subject at 1.5 m in front of a wall at 6 m (1080p, 60° field of view:
/// disparities 72 px and 18 px) blurs the wall with a radius of 27 px at f/1.4, 8.4 px at
/// f/4.5 and 2.4 px at f/16. Disparities and radii are in pixels of the same image, so the
/// model is independent of resolution.
public struct LensModel: Sendable, Hashable {
    /// The widest simulated aperture (shallowest depth of field).
    public static let minimumFNumber = 1.4
    /// The narrowest simulated aperture.
    public static let maximumFNumber = 16.0
    /// The aperture used when nothing else is asked for.
    public static let defaultFNumber = 4.5
    /// The range of valid f-numbers.
    public static var fNumberRange: ClosedRange<Double> { minimumFNumber...maximumFNumber }

    /// `K = F / (2·B)`: simulated focal length over twice the stereo baseline.
    public var apertureConstant: Double

    /// Creates a lens model with aperture constant `K`.
    public init(apertureConstant: Double = 0.7) {
        self.apertureConstant = apertureConstant
    }

    /// The signed circle-of-confusion radius, in pixels, of a point with disparity `disparity`
    /// when focus lies at `focusDisparity` and the aperture is `fNumber`:
    /// `K · (disparity − focusDisparity) / fNumber`. Positive in front of the focal plane.
    public func circleOfConfusion(disparity: Double, focusDisparity: Double, fNumber: Double) -> Double {
        apertureConstant * (disparity - focusDisparity) / fNumber
    }

    /// Circle-of-confusion radius per pixel of disparity difference at `fNumber`: `K / N`.
    public func radiusPerDisparity(fNumber: Double) -> Double { apertureConstant / fNumber }
}
