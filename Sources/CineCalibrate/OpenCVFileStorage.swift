// OpenCVFileStorage: a matrix read back with OpenCV's own FileStorage — the check that what
// cinegraph writes is what OpenCV reads.
import COpenCVCalib

/// OpenCV's reader for YAML and XML calibration files.
public enum OpenCVFileStorage {
    /// The matrix `key` of the file at `path`, row-major.
    public static func read(_ path: String, key: String) throws(CalibrateError) -> [Double] {
        var values = [Double](repeating: 0, count: 64)
        var error = [CChar](repeating: 0, count: 512)
        let n = cgcv_read_matrix(path, key, &values, Int32(values.count), &error, Int32(error.count))
        guard n >= 0 else { throw CalibrateError("\(path): \(key): \(message(error))") }
        return Array(values.prefix(Int(n)))
    }
}
