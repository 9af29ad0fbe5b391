// PortableFloatMap: reads and writes one-channel PFM files (the Middlebury disparity format).
import Foundation

/// A one-channel Portable Float Map (`Pf`), the format of Middlebury stereo disparities.
///
/// Convention (Middlebury): 32-bit floats, a negative scale in the header for little-endian
/// data, rows stored bottom-to-top, `+inf` for invalid samples. ``values`` holds the samples
/// top-to-bottom as a `float32` ``Image``, so row 0 is the top of the picture.
public struct PortableFloatMap: Sendable {
    /// The samples, top row first.
    public var values: Image

    /// Wraps `values`, which must be `float32`.
    public init(values: Image) {
        precondition(values.format == .float32, "a PFM holds float32 samples")
        self.values = values
    }

    /// Reads a PFM file; three-channel (`PF`) files are rejected.
    /// - Throws: ``PortableFloatMapError`` naming the file and what is wrong with it.
    public init(contentsOf path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PortableFloatMapError(path: path, message: "cannot read the file")
        }
        try self.init(data: data, path: path)
    }

    /// Parses PFM bytes; `path` only names the source in errors.
    public init(data: Data, path: String = "<data>") throws {
        let bytes = [UInt8](data)
        var cursor = 0
        func token() -> String? {
            while cursor < bytes.count, bytes[cursor] == 0x20 || bytes[cursor] == 0x0A || bytes[cursor] == 0x0D
                || bytes[cursor] == 0x09 { cursor += 1 }
            let start = cursor
            while cursor < bytes.count, !(bytes[cursor] == 0x20 || bytes[cursor] == 0x0A || bytes[cursor] == 0x0D
                || bytes[cursor] == 0x09) { cursor += 1 }
            return cursor > start ? String(decoding: bytes[start..<cursor], as: UTF8.self) : nil
        }
        guard let magic = token() else { throw PortableFloatMapError(path: path, message: "empty file") }
        if magic == "PF" { throw PortableFloatMapError(path: path, message: "three-channel PFM; expected one channel (Pf)") }
        guard magic == "Pf" else { throw PortableFloatMapError(path: path, message: "not a PFM file (magic '\(magic)')") }
        guard let w = token().flatMap({ Int($0) }), let h = token().flatMap({ Int($0) }), w > 0, h > 0,
              let scale = token().flatMap({ Double($0) }), scale != 0 else {
            throw PortableFloatMapError(path: path, message: "bad header (width, height, scale)")
        }
        cursor += 1  // the single whitespace byte after the scale
        let count = w * h
        guard bytes.count - cursor >= count * 4 else {
            throw PortableFloatMapError(path: path, message: "truncated: \(w)x\(h) needs \(count * 4) bytes of samples")
        }
        let littleEndian = scale < 0
        let image = Image(width: w, height: h, format: .float32)
        let plane = image.plane(0)
        bytes.withUnsafeBytes { raw in
            // Cost: one pass, 4 bytes read and written per sample.
            for fileRow in 0..<h {
                let dst = plane.row(h - 1 - fileRow, as: UInt32.self)
                let src = cursor + fileRow * w * 4
                for x in 0..<w {
                    let v = raw.loadUnaligned(fromByteOffset: src + x * 4, as: UInt32.self)
                    dst[x] = littleEndian ? UInt32(littleEndian: v) : UInt32(bigEndian: v)
                }
            }
        }
        values = image
    }

    /// The header: little-endian (scale −1), width and height.
    private var header: [UInt8] { Array("Pf\n\(values.width) \(values.height)\n-1.0\n".utf8) }

    /// The file bytes: little-endian, scale −1, rows bottom-to-top.
    public func encoded() -> Data {
        let w = values.width, h = values.height
        let header = header
        let plane = values.plane(0)
        // Cost: one pass, 4 bytes read and written per sample, into one allocation.
        var data = Data(count: header.count + w * h * 4)
        data.withUnsafeMutableBytes { raw in
            raw.copyBytes(from: header)
            var at = header.count
            for y in stride(from: h - 1, through: 0, by: -1) {
                let src = plane.row(y, as: UInt32.self)
                for x in 0..<w { raw.storeBytes(of: src[x].littleEndian, toByteOffset: at + 4 * x, as: UInt32.self) }
                at += 4 * w
            }
        }
        return data
    }

    /// Writes the map to `path`. On a little-endian machine the plane's rows are the file's
    /// bytes: they go out from where they are, bottom row first, gathered into a few `writev`
    /// calls (no copy of the map, no fsync — `Data.write(to:)` syncs, which cost more than the
    /// rest of the write).
    public func write(to path: String) throws {
        guard 1.littleEndian == 1 else {
            // A big-endian machine swaps every sample: the encoded copy.
            let bytes = encoded()
            guard FileManager.default.createFile(atPath: path, contents: bytes) else {
                throw PortableFloatMapError(path: path, message: "cannot write the file")
            }
            return
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw PortableFloatMapError(path: path, message: "cannot write the file: \(String(cString: strerror(errno)))")
        }
        let header = header
        let plane = values.plane(0)
        let rowBytes = values.width * 4
        var failure: Int32? = nil
        header.withUnsafeBytes { head in
            var pieces = [iovec(iov_base: UnsafeMutableRawPointer(mutating: head.baseAddress), iov_len: head.count)]
            for y in stride(from: values.height - 1, through: 0, by: -1) {
                pieces.append(iovec(iov_base: UnsafeMutableRawPointer(plane.base + y * plane.stride), iov_len: rowBytes))
            }
            // At most IOV_MAX (1024) pieces a call; a short write (a full disk) is an error.
            var at = 0
            while at < pieces.count && failure == nil {
                let n = min(1024, pieces.count - at)
                let expected = pieces[at..<at + n].reduce(0) { $0 + $1.iov_len }
                let written = pieces[at..<at + n].withUnsafeBufferPointer { writev(fd, $0.baseAddress, Int32(n)) }
                if written != expected { failure = written < 0 ? errno : ENOSPC }
                at += n
            }
        }
        if close(fd) != 0, failure == nil { failure = errno }
        if let failure {
            throw PortableFloatMapError(path: path, message: "cannot write the file: \(String(cString: strerror(failure)))")
        }
    }
}

/// A PFM file that could not be read or written (the error of every image file reader).
public typealias PortableFloatMapError = ImageFileError

/// An image file that could not be read or written: which file, and what is wrong with it.
public struct ImageFileError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// What went wrong.
    public var message: String
    /// Creates an error.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { "\(path): \(message)" }
}
