// TimecodeNode: a custom node — burns the frame's timecode (HH:MM:SS:FF) into the picture.
import CineGraph
import CineMedia

/// Kind `timecode`: draws the timestamp as a timecode in the top-left corner.
struct TimecodeNode: Node {
    static let kind = "timecode"
    static let summary = "Burns the frame's timecode into the picture."

    @Input(formats: [.i420, .gray8], "Frames") var video: Image
    @Output(formatOf: "video", "Frames with the timecode") var out: Image
    @Parameter(default: 4, range: 1...32, "Size of one font pixel in image pixels") var scale: Int
    @Parameter(default: 30, range: 1...240, "Frames per second for the frame count") var fps: Double

    /// 3×5 digits, one row per 3 bits; index 10 is the colon.
    static let glyphs: [[UInt8]] = [
        [7, 5, 5, 5, 7], [2, 6, 2, 2, 7], [7, 1, 7, 4, 7], [7, 1, 7, 1, 7], [5, 5, 7, 1, 1],
        [7, 4, 7, 1, 7], [7, 4, 7, 5, 7], [7, 1, 1, 1, 1], [7, 5, 7, 5, 7], [7, 5, 7, 1, 7], [0, 2, 0, 2, 0],
    ]

    mutating func process(_ ctx: inout NodeContext) throws {
        // Published images are read-only: draw on a pooled copy.
        let frame = video.copy(using: ctx.pool)
        let s = ctx.timestamp.seconds
        let ff = Int((s - s.rounded(.down)) * fps)
        let text = String(format2: Int(s) / 3600) + ":" + String(format2: Int(s) / 60 % 60) + ":"
            + String(format2: Int(s) % 60) + ":" + String(format2: ff)
        let luma = frame.plane(0)
        for (i, ch) in text.enumerated() {
            let glyph = Self.glyphs[ch == ":" ? 10 : Int(String(ch))!]
            for gy in 0..<7 {
                for gx in 0..<5 {
                    let inside = gy >= 1 && gy <= 5 && gx >= 1 && gx <= 3
                    let on = inside && (glyph[gy - 1] >> (3 - gx)) & 1 == 1
                    fill(luma, x: (i * 4 + gx) * scale, y: gy * scale, value: on ? 235 : 16)
                }
            }
        }
        out = frame
    }

    private func fill(_ p: Plane, x: Int, y: Int, value: UInt8) {
        for yy in y..<min(p.height, y + scale) where x < p.width {
            p.row(yy).advanced(by: x).initializeMemory(as: UInt8.self, repeating: value, count: min(scale, p.width - x))
        }
    }
}

extension String {
    init(format2 v: Int) { self = v < 10 ? "0\(v)" : "\(v)" }
}
