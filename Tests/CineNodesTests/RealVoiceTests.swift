// The voice detector on real recorded speech: the words of the ALSA speaker-test recordings
// (alsa-utils, installed by scripts/setup.sh) in a room's hiss, with their pink-noise test
// signal between them, read through GStreamer as `render --follow speaker` reads a take.
import CineGStreamer
import CineMedia
import CineVision
import Foundation
import Testing

@Suite struct RealVoiceTests {
    static let folder = "/usr/share/sounds/alsa"

    /// A recording's samples at 48 kHz, one channel.
    static func read(_ name: String) throws -> [Float] {
        let path = "\(folder)/\(name).wav"
        let block = try #require(try AudioTrackReader.readMono(path: path, sampleRate: 48_000), "\(path) has no sound")
        return block.samples
    }

    @Test func realWordsAreHeardAndPinkNoiseIsNot() throws {
        let rate = 48_000, hop = 960
        // The room: hiss at about −58 dB of full scale under everything.
        var state: UInt64 = 11
        func hiss(_ count: Int, from n: Int) -> [Float] {
            (0..<count).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Float(Double(state >> 11) / Double(1 << 53) * 2 - 1) * 0.0022
            }
        }
        var sound: [Float] = []
        /// Per 20 ms hop: a word's loud part (over a tenth of its loudest hop), pink noise, or neither.
        var truth: [Character] = []
        func add(_ samples: [Float], kind: Character) {
            let loudest = stride(from: 0, to: samples.count - hop, by: hop).map { i in
                samples[i..<(i + hop)].map { $0 * $0 }.reduce(0, +) / Float(hop)
            }.max() ?? 0
            for i in stride(from: 0, to: samples.count - hop + 1, by: hop) {
                let energy = samples[i..<(i + hop)].map { $0 * $0 }.reduce(0, +) / Float(hop)
                truth.append(kind == "w" ? (energy > 0.01 * loudest ? "w" : " ") : kind)
            }
            let room = hiss(samples.count, from: sound.count)
            sound += zip(samples, room).map { $0 + $1 }
        }
        add([Float](repeating: 0, count: rate), kind: " ")
        for name in ["Front_Center", "Rear_Left", "Side_Right", "Front_Left"] {
            add(try Self.read(name), kind: "w")
            add([Float](repeating: 0, count: rate / 2), kind: " ")
            add(try Self.read("Noise").map { $0 * 0.7 }, kind: "n")
            add([Float](repeating: 0, count: rate / 2), kind: " ")
        }
        var vad = VoiceActivityDetector()
        // In blocks of a frame, as a camera's microphone sends them.
        for start in stride(from: 0, to: sound.count, by: 1600) {
            vad.feed(Array(sound[start..<min(sound.count, start + 1600)]), sampleRate: rate, start: Double(start) / Double(rate))
        }
        var words = 0, heardWords = 0, noise = 0, heardNoise = 0
        for (k, kind) in truth.enumerated() {
            let heard = vad.activity(at: (Double(k) + 0.5) * 0.02)?.active == true
            if kind == "w" { words += 1; if heard { heardWords += 1 } }
            // Pink noise from 0.25 s in: the hangover of the word before may still run.
            if kind == "n" && k > 0 && truth[max(0, k - 13)] == "n" { noise += 1; if heard { heardNoise += 1 } }
        }
        #expect(words > 100 && noise > 150)
        #expect(Double(heardWords) >= 0.9 * Double(words), "heard \(heardWords) of \(words) hops of real words")
        #expect(Double(heardNoise) <= 0.05 * Double(noise), "heard a voice in \(heardNoise) of \(noise) hops of pink noise")
    }
}
