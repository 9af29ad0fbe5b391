// The load controller's decision alone: up quickly under pressure, down slowly when calm, no
// flapping in between.
import CineGraph
import Testing

@Suite struct LoadPolicyTests {
    func run(_ policy: LoadPolicy, _ ticks: [(shed: Double, depth: Double)]) -> [Int] {
        var s = LoadPolicy.State()
        return ticks.map { t in
            s = policy.tick(s, shed: t.shed, takeDepth: t.depth)
            return s.level
        }
    }

    @Test func pressureRaisesTheLevelAfterTwoTicksUpToTheMaximum() {
        let levels = run(LoadPolicy(maxLevel: 2), Array(repeating: (0.5, 0.0), count: 7))
        #expect(levels == [0, 1, 1, 2, 2, 2, 2])
        // A take queue filling up is pressure too, with no preview shedding at all.
        #expect(run(LoadPolicy(maxLevel: 2), [(0, 0.7), (0, 0.7)]) == [0, 1])
    }

    @Test func calmLowersTheLevelOneStepPerTenTicks() {
        let policy = LoadPolicy(maxLevel: 2)
        let levels = run(policy, Array(repeating: (0.5, 0.0), count: 4) + Array(repeating: (0.0, 0.0), count: 20))
        #expect(levels[3] == 2)
        #expect(levels[12] == 2 && levels[13] == 1)
        #expect(levels[22] == 1 && levels[23] == 0)
    }

    @Test func inBetweenOrAlternatingLoadDoesNotFlap() {
        let policy = LoadPolicy(maxLevel: 2)
        // Between the thresholds: nothing moves.
        #expect(run(policy, Array(repeating: (0.1, 0.3), count: 30)).allSatisfy { $0 == 0 })
        // Pressure every other tick never reaches two in a row.
        let alternating = (0..<30).map { i in i % 2 == 0 ? (0.5, 0.0) : (0.0, 0.0) }
        #expect(run(policy, alternating).allSatisfy { $0 == 0 })
    }
}
