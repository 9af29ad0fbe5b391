// JPEGEncoder: a small baseline JPEG encoder (4:2:0, standard Huffman tables) for the preview
// stream, with a box-filter scale-down on the way in. Pure Swift: no GStreamer pipeline per
// frame, no OpenCV. The float AAN DCT and the bit writer follow the public-domain
// stb_image_write encoder.
import CineMedia

/// Encodes frames as baseline JPEG (YCbCr 4:2:0), scaling them down to a width first.
///
/// Cost model: the scale touches each source byte once; the encode does one 8×8 float DCT
/// (~80 multiplies) and a Huffman pass per block, i.e. 1.5 blocks per 64 output pixels.
/// About 3–5 ms for 960×540 on one core of this machine (see `make bench`).
public struct JPEGEncoder: Sendable {
    /// Quality 1…100, as in libjpeg.
    public let quality: Int
    private let lumaTable: [UInt8]
    private let chromaTable: [UInt8]
    private let lumaDivisors: [Float]
    private let chromaDivisors: [Float]

    /// Creates an encoder with libjpeg's quality scale (75 is a good preview).
    public init(quality: Int = 75) {
        let q = min(100, max(1, quality))
        self.quality = q
        let scale = q < 50 ? 5000 / q : 200 - q * 2
        var lt = [UInt8](repeating: 0, count: 64), ct = [UInt8](repeating: 0, count: 64)
        for i in 0..<64 {
            lt[Tables.zigzag[i]] = UInt8(min(255, max(1, (Tables.lumaQuant[i] * scale + 50) / 100)))
            ct[Tables.zigzag[i]] = UInt8(min(255, max(1, (Tables.chromaQuant[i] * scale + 50) / 100)))
        }
        var ld = [Float](repeating: 0, count: 64), cd = [Float](repeating: 0, count: 64)
        for row in 0..<8 {
            for col in 0..<8 {
                let k = row * 8 + col
                let s = Tables.aanScale[row] * Tables.aanScale[col]
                ld[k] = 1 / (Float(lt[Tables.zigzag[k]]) * s)
                cd[k] = 1 / (Float(ct[Tables.zigzag[k]]) * s)
            }
        }
        lumaTable = lt
        chromaTable = ct
        lumaDivisors = ld
        chromaDivisors = cd
    }

    /// The size `image` is encoded at: at most `maxWidth` wide, aspect kept, both sides even.
    public static func outputSize(of image: Image, maxWidth: Int) -> (width: Int, height: Int) {
        let w = max(2, min(image.width, maxWidth) & ~1)
        let h = max(2, Int((Double(image.height) * Double(w) / Double(image.width)).rounded()) & ~1)
        return (w, h)
    }

    /// Encodes `image` (I420, NV12, RGBA or gray8), scaled down to at most `maxWidth` pixels wide.
    /// Other formats give `nil`.
    public func encode(_ image: Image, maxWidth: Int = .max) -> [UInt8]? {
        guard let planes = YCbCrPlanes(image, maxWidth: maxWidth) else { return nil }
        return encode(planes)
    }

    /// Encodes planes already at the output size (padded to whole 16×16 blocks).
    func encode(_ p: YCbCrPlanes) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(p.width * p.height / 4 + 1024)
        writeHeaders(&out, width: p.width, height: p.height)
        var bits = BitWriter(out: out)
        out = []
        var dcY = 0, dcCb = 0, dcCr = 0
        var block = [Float](repeating: 0, count: 64)
        let t = EntropyTables.shared
        p.y.withUnsafeBufferPointer { y in
            p.cb.withUnsafeBufferPointer { cb in
                p.cr.withUnsafeBufferPointer { cr in
                    lumaDivisors.withUnsafeBufferPointer { ld in
                        chromaDivisors.withUnsafeBufferPointer { cd in
                            block.withUnsafeMutableBufferPointer { blk in
                                for my in stride(from: 0, to: p.paddedHeight, by: 16) {
                                    for mx in stride(from: 0, to: p.paddedWidth, by: 16) {
                                        for b in 0..<4 {  // the four luma blocks, row by row
                                            let bx = (b & 1) * 8, by = (b >> 1) * 8
                                            Self.load(blk, from: y, stride: p.paddedWidth, x: mx + bx, y: my + by)
                                            dcY = Self.encodeBlock(blk, ld, dc: dcY, t, EntropyTables.luma, &bits)
                                        }
                                        let cx = mx / 2, cy = my / 2, cs = p.paddedWidth / 2
                                        Self.load(blk, from: cb, stride: cs, x: cx, y: cy)
                                        dcCb = Self.encodeBlock(blk, cd, dc: dcCb, t, EntropyTables.chroma, &bits)
                                        Self.load(blk, from: cr, stride: cs, x: cx, y: cy)
                                        dcCr = Self.encodeBlock(blk, cd, dc: dcCr, t, EntropyTables.chroma, &bits)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        bits.write(code: 0x7F, length: 7)  // pad the last byte with ones
        var result = bits.out
        result.append(contentsOf: [0xFF, 0xD9])
        return result
    }

    @inline(__always)
    private static func load(
        _ blk: UnsafeMutableBufferPointer<Float>, from plane: UnsafeBufferPointer<UInt8>,
        stride: Int, x: Int, y: Int
    ) {
        for r in 0..<8 {
            let row = (y + r) * stride + x
            for c in 0..<8 { blk[r * 8 + c] = Float(plane[row + c]) - 128 }
        }
    }

    /// DCT, quantisation, zigzag and Huffman coding of one 8×8 block; returns its DC value.
    @inline(__always)
    private static func encodeBlock(
        _ d: UnsafeMutableBufferPointer<Float>, _ divisors: UnsafeBufferPointer<Float>,
        dc previous: Int, _ t: EntropyTables, _ table: Int, _ bits: inout BitWriter
    ) -> Int {
        let zigzag = t.zigzag, codes = t.codes, lengths = t.lengths
        let dc = table, ac = table + 256
        let p = d.baseAddress!
        for r in 0..<8 { dct(p + r * 8, step: 1) }
        for c in 0..<8 { dct(p + c, step: 8) }
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 64) { z -> Int in
            for k in 0..<64 {
                let v = d[k] * divisors[k]
                z[zigzag[k]] = Int(v < 0 ? v - 0.5 : v + 0.5)
            }
            let diff = z[0] - previous
            if diff == 0 {
                bits.write(code: codes[dc], length: lengths[dc])
            } else {
                let (value, size) = magnitude(diff)
                bits.write(code: codes[dc + size], length: lengths[dc + size])
                bits.write(code: value, length: size)
            }
            var end = 63
            while end > 0 && z[end] == 0 { end -= 1 }
            var i = 1
            while i <= end {
                let start = i
                while z[i] == 0 && i <= end { i += 1 }
                var zeros = i - start
                while zeros >= 16 {
                    bits.write(code: codes[ac + 0xF0], length: lengths[ac + 0xF0])
                    zeros -= 16
                }
                let (value, size) = magnitude(z[i])
                let symbol = ac + (zeros << 4) + size
                bits.write(code: codes[symbol], length: lengths[symbol])
                bits.write(code: value, length: size)
                i += 1
            }
            if end != 63 { bits.write(code: codes[ac], length: lengths[ac]) }
            return z[0]
        }
    }

    /// The JPEG "magnitude category" of a coefficient and the bits that follow it.
    @inline(__always)
    private static func magnitude(_ v: Int) -> (UInt32, Int) {
        var a = v < 0 ? -v : v
        var size = 1
        while a > 1 {
            a >>= 1
            size += 1
        }
        let bitsValue = v < 0 ? v - 1 : v
        return (UInt32(bitsValue & ((1 << size) - 1)), size)
    }

    /// The float AAN forward DCT of 8 values `step` apart (scaled; the divisors undo the scale).
    @inline(__always)
    private static func dct(_ p: UnsafeMutablePointer<Float>, step s: Int) {
        let d0 = p[0], d1 = p[s], d2 = p[2 * s], d3 = p[3 * s], d4 = p[4 * s], d5 = p[5 * s], d6 = p[6 * s],
            d7 = p[7 * s]
        let t0 = d0 + d7, t7 = d0 - d7, t1 = d1 + d6, t6 = d1 - d6
        let t2 = d2 + d5, t5 = d2 - d5, t3 = d3 + d4, t4 = d3 - d4
        let t10 = t0 + t3, t13 = t0 - t3, t11 = t1 + t2, t12 = t1 - t2
        p[0] = t10 + t11
        p[4 * s] = t10 - t11
        let z1 = (t12 + t13) * 0.707106781
        p[2 * s] = t13 + z1
        p[6 * s] = t13 - z1
        let o10 = t4 + t5, o11 = t5 + t6, o12 = t6 + t7
        let z5 = (o10 - o12) * 0.382683433
        let z2 = o10 * 0.541196100 + z5
        let z4 = o12 * 1.306562965 + z5
        let z3 = o11 * 0.707106781
        let z11 = t7 + z3, z13 = t7 - z3
        p[5 * s] = z13 + z2
        p[3 * s] = z13 - z2
        p[s] = z11 + z4
        p[7 * s] = z11 - z4
    }

    private func writeHeaders(_ out: inout [UInt8], width: Int, height: Int) {
        out += [0xFF, 0xD8]  // SOI
        out += [0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]  // APP0 JFIF 1.1
        out += [0xFF, 0xDB, 0, 132, 0]  // DQT: two 8-bit tables
        out += lumaTable
        out.append(1)
        out += chromaTable
        out += [
            0xFF, 0xC0, 0, 17, 8, UInt8(height >> 8), UInt8(height & 255), UInt8(width >> 8), UInt8(width & 255), 3,
            1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1,
        ]  // SOF0: Y 2×2, Cb and Cr 1×1
        let tables: [(UInt8, [UInt8], [UInt8])] = [
            (0x00, Tables.dcLumaBits, Tables.dcValues), (0x10, Tables.acLumaBits, Tables.acLumaValues),
            (0x01, Tables.dcChromaBits, Tables.dcValues), (0x11, Tables.acChromaBits, Tables.acChromaValues),
        ]
        for (id, bits, values) in tables {
            let length = 2 + 1 + 16 + values.count
            out += [0xFF, 0xC4, UInt8(length >> 8), UInt8(length & 255), id]
            out += bits
            out += values
        }
        out += [0xFF, 0xDA, 0, 12, 3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]  // SOS
    }
}

/// Appends Huffman codes to the entropy-coded segment, stuffing a zero after every 0xFF.
struct BitWriter {
    var out: [UInt8]
    private var buffer: UInt32 = 0
    private var count = 0

    init(out: [UInt8]) { self.out = out }

    @inline(__always) mutating func write(code: UInt32, length: Int) {
        count += length
        buffer |= code << UInt32(24 - count)
        while count >= 8 {
            let c = UInt8((buffer >> 16) & 255)
            out.append(c)
            if c == 255 { out.append(0) }
            buffer <<= 8
            count -= 8
        }
    }
}

/// The zigzag order and the Huffman codes, in memory the hot loop reads without bounds checks
/// or lazy-initialisation checks. Built once; never freed (a process-wide constant).
final class EntropyTables: @unchecked Sendable {
    /// Natural index → zigzag position.
    let zigzag: UnsafeMutablePointer<Int>
    /// Code and length per symbol: luma DC at 0, luma AC at 256, chroma DC at 512, chroma AC at 768.
    let codes: UnsafeMutablePointer<UInt32>
    let lengths: UnsafeMutablePointer<Int>
    /// Offsets of the luma and chroma tables (DC; AC follows 256 later).
    static let luma = 0, chroma = 512

    static let shared = EntropyTables()

    private init() {
        zigzag = .allocate(capacity: 64)
        codes = .allocate(capacity: 1024)
        lengths = .allocate(capacity: 1024)
        codes.initialize(repeating: 0, count: 1024)
        lengths.initialize(repeating: 0, count: 1024)
        for i in 0..<64 { zigzag[i] = Tables.zigzag[i] }
        let specs: [(Int, [UInt8], [UInt8])] = [
            (0, Tables.dcLumaBits, Tables.dcValues), (256, Tables.acLumaBits, Tables.acLumaValues),
            (512, Tables.dcChromaBits, Tables.dcValues), (768, Tables.acChromaBits, Tables.acChromaValues),
        ]
        for (base, bits, values) in specs {
            // Canonical codes from the counts per length (JPEG Annex C).
            var code: UInt32 = 0, k = 0
            for length in 1...16 {
                for _ in 0..<Int(bits[length - 1]) {
                    codes[base + Int(values[k])] = code
                    lengths[base + Int(values[k])] = length
                    code += 1
                    k += 1
                }
                code <<= 1
            }
        }
    }
}

/// The standard tables of JPEG Annex K.
enum Tables {
    static let zigzag: [Int] = [
        0, 1, 5, 6, 14, 15, 27, 28, 2, 4, 7, 13, 16, 26, 29, 42, 3, 8, 12, 17, 25, 30, 41, 43, 9, 11, 18, 24, 31, 40,
        44, 53, 10, 19, 23, 32, 39, 45, 52, 54, 20, 22, 33, 38, 46, 51, 55, 60, 21, 34, 37, 47, 50, 56, 59, 61, 35, 36,
        48, 49, 57, 58, 62, 63,
    ]
    static let lumaQuant: [Int] = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29,
        51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121,
        120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    ]
    static let chromaQuant: [Int] =
        [
            17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99,
            99,
            99, 99, 99, 99,
        ] + [Int](repeating: 99, count: 32)
    static let aanScale: [Float] = [
        1.0, 1.387039845, 1.306562965, 1.175875602, 1.0, 0.785694958, 0.541196100,
        0.275899379,
    ].map { $0 * 2.828427125 }
    static let dcLumaBits: [UInt8] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    static let dcChromaBits: [UInt8] = [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    static let dcValues: [UInt8] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    static let acLumaBits: [UInt8] = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d]
    static let acLumaValues: [UInt8] = [
        0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
        0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0,
        0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28,
        0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
        0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
        0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
        0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
        0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5,
        0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
        0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
        0xf9, 0xfa,
    ]
    static let acChromaBits: [UInt8] = [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77]
    static let acChromaValues: [UInt8] = [
        0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71,
        0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0,
        0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26,
        0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
        0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
        0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
        0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5,
        0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3,
        0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
        0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
        0xf9, 0xfa,
    ]
}
