// CalibrationFiles: a stereo calibration written as OpenCV FileStorage YAML (what the camera
// node, OpenCV's FileStorage and most stereo tools read) and as a ROS camera_info pair.
import CineVision
import Foundation

/// Writers for the calibration formats cinegraph reads.
public enum CalibrationFiles {
    /// OpenCV FileStorage YAML: `imageSize`, `K1 D1 K2 D2 R T`, `R1 R2 P1 P2 Q`, and the RMS error.
    public static func openCVYAML(_ report: StereoCalibrationReport) -> String {
        let c = report.calibration
        var out = "%YAML:1.0\n---\n"
        out += "# cinegraph calibrate: board \(report.board) of \(number(report.board.square)) squares, \(report.pairs.count) pairs\n"
        out += "imageSize: [ \(c.imageWidth ?? 0), \(c.imageHeight ?? 0) ]\n"
        func matrix(_ name: String, _ values: [Double], rows: Int, cols: Int) {
            out += "\(name): !!opencv-matrix\n   rows: \(rows)\n   cols: \(cols)\n   dt: d\n"
            out += "   data: [ " + values.map(number).joined(separator: ", ") + " ]\n"
        }
        matrix("K1", c.left.matrix, rows: 3, cols: 3)
        matrix("D1", c.left.distortion, rows: 1, cols: c.left.distortion.count)
        matrix("K2", c.right.matrix, rows: 3, cols: 3)
        matrix("D2", c.right.distortion, rows: 1, cols: c.right.distortion.count)
        matrix("R", c.rotation ?? identity, rows: 3, cols: 3)
        matrix("T", c.translation ?? [0, 0, 0], rows: 3, cols: 1)
        matrix("R1", c.left.rectification ?? identity, rows: 3, cols: 3)
        matrix("R2", c.right.rectification ?? identity, rows: 3, cols: 3)
        matrix("P1", c.left.projection ?? [], rows: 3, cols: 4)
        matrix("P2", c.right.projection ?? [], rows: 3, cols: 4)
        matrix("Q", report.q, rows: 4, cols: 4)
        out += "rms: \(number(report.rms.stereo))\n"
        return out
    }

    /// ROS `camera_info` YAML for each camera (left, right): plumb_bob distortion, the
    /// rectification and projection of the pair.
    public static func rosCameraInfo(_ report: StereoCalibrationReport) -> (left: String, right: String) {
        let c = report.calibration
        func info(_ name: String, _ cam: StereoCalibration.Camera) -> String {
            func matrix(_ key: String, _ values: [Double], rows: Int, cols: Int) -> String {
                "\(key):\n  rows: \(rows)\n  cols: \(cols)\n  data: [" + values.map(number).joined(separator: ", ") + "]\n"
            }
            return "image_width: \(c.imageWidth ?? 0)\nimage_height: \(c.imageHeight ?? 0)\ncamera_name: \(name)\n"
                + matrix("camera_matrix", cam.matrix, rows: 3, cols: 3)
                + "distortion_model: plumb_bob\n"
                + matrix("distortion_coefficients", cam.distortion, rows: 1, cols: cam.distortion.count)
                + matrix("rectification_matrix", cam.rectification ?? identity, rows: 3, cols: 3)
                + matrix("projection_matrix", cam.projection ?? [], rows: 3, cols: 4)
        }
        return (info("left", c.left), info("right", c.right))
    }

    static let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]

    /// Enough digits to round-trip a double; integers without a fraction; OpenCV's `.` for 1e-5.
    static func number(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(format: "%.1f", v) }
        return "\(v)"
    }
}
