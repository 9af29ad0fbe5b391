// StereoRectification: the `calibration` parameters of the stereo sources — load the file, and
// rectify each pair (both views, in colour) before it leaves the source.
import CineGraph
import CineMedia
import CineVision

/// Rectifies a source's stereo pairs with a calibration file, building the maps for the first
/// pair's size. Shared by the `camera` and `file` nodes.
struct StereoRectification {
    /// OpenCV FileStorage YAML/XML (K1 D1 K2 D2 R T, or R1 R2 P1 P2), or the left camera's ROS
    /// `camera_info` when `rightPath` is set.
    var path = ""
    /// The right camera's ROS `camera_info`.
    var rightPath = ""
    private var rectifier: StereoRectifier?

    init(path: String = "", rightPath: String = "") {
        self.path = path
        self.rightPath = rightPath
    }

    /// Whether a calibration was given.
    var isEnabled: Bool { !path.isEmpty }

    /// Loads the calibration, naming the parameter and the file on failure.
    static func load(path: String, rightPath: String) throws -> StereoCalibration {
        do {
            return rightPath.isEmpty ? try StereoCalibration.load(contentsOf: path)
                : try StereoCalibration.load(rosLeft: path, rosRight: rightPath)
        } catch {
            throw ParameterError(rightPath.isEmpty ? "calibration" : "calibration-right", "\(error)")
        }
    }

    /// Checks the files before a run.
    func preflight() throws {
        guard isEnabled else {
            if !rightPath.isEmpty { throw ParameterError("calibration-right", "needs calibration (the left camera_info)") }
            return
        }
        _ = try Self.load(path: path, rightPath: rightPath)
    }

    /// The rectified pair (I420, the views' size); the views unchanged without a calibration.
    mutating func apply(_ left: Image, _ right: Image, pool: ImagePool) throws -> (Image, Image) {
        guard isEnabled else { return (left, right) }
        guard left.format == .i420, right.format == .i420 else {
            throw ParameterError("calibration", "rectification takes I420 views, got \(left.format)")
        }
        if rectifier == nil || rectifier!.width != left.width || rectifier!.height != left.height {
            let calibration = try Self.load(path: path, rightPath: rightPath)
            do {
                rectifier = try StereoRectifier(calibration: calibration, width: left.width, height: left.height, file: path)
            } catch {
                throw ParameterError("calibration", "\(error)")
            }
        }
        let out = rectifier!.rectifyColor(StereoFrame(left: left, right: right), pool: pool)
        return (out.left, out.right)
    }
}
