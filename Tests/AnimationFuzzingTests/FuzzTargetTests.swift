import AnimationFuzzing
import AnimationWorkloads
import Foundation
import Testing

/// The fuzz targets as tests: every committed corpus input and every input a fuzzer once failed
/// on (Fuzz/Regressions) is replayed, and a few hundred seeded random inputs (thousands in release
/// builds) run through each target, so that the targets' checks hold in every `swift test`.
@Suite("fuzz targets")
struct FuzzTargetTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz")

    static func inputs(_ folder: String, _ target: FuzzTarget) throws -> [(name: String, bytes: [UInt8])] {
        let directory = fuzzFolder.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        return try names.sorted().filter { !$0.hasPrefix(".") }.map { name in
            (name, [UInt8](try Data(contentsOf: directory.appendingPathComponent(name))))
        }
    }

    @Test("every committed corpus input passes its target's checks (an even sample of 60 per target in debug builds)",
          arguments: FuzzTarget.allCases)
    func corpusReplays(_ target: FuzzTarget) throws {
        let corpus = try Self.inputs("Corpus", target)
        #expect(!corpus.isEmpty, "Fuzz/Corpus/\(target.rawValue) holds the target's seeds")
        #if DEBUG
        // Unoptimised code runs a LayerTree program in tens of milliseconds: a thousand would
        // take minutes. The release test run replays them all.
        let step = max(1, corpus.count / 60)
        let replayed = stride(from: 0, to: corpus.count, by: step).map { corpus[$0] }
        #else
        let replayed = corpus
        #endif
        for (name, bytes) in replayed {
            #expect(throws: Never.self, "\(target.rawValue)/\(name)") { try target.run(bytes) }
        }
    }

    @Test("every input a fuzzer failed on stays fixed", arguments: FuzzTarget.allCases)
    func regressionsStayFixed(_ target: FuzzTarget) throws {
        for (name, bytes) in try Self.inputs("Regressions", target) {
            #expect(throws: Never.self, "\(target.rawValue)/\(name)") { try target.run(bytes) }
        }
    }

    @Test("seeded random inputs pass every target's checks", arguments: FuzzTarget.allCases)
    func randomInputsPass(_ target: FuzzTarget) throws {
        var random = SplitMix64(seed: 0xF022 ^ UInt64(target.rawValue.count))
        #if DEBUG
        let count = target == .layerTree || target == .cInterface ? 60 : 200
        #else
        let count = 3_000
        #endif
        for k in 0..<count {
            let bytes = (0..<Int(random.next() % 600)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            #expect(throws: Never.self, "\(target.rawValue) input \(k): \(bytes)") { try target.run(bytes) }
        }
    }

    @Test("the input decoder is total: reading past the end gives zeros, ranges are kept")
    func inputDecoderIsTotal() {
        var input = FuzzInput([200, 7])
        #expect(input.byte() == 200)
        #expect(input.int(in: 3...5) == 3 + (7 << 8) % 3)
        #expect(input.isExhausted)
        #expect(input.byte() == 0)
        #expect(input.choice(7) == 0)
        #expect(input.number(edges: true).isNaN)   // selector 0 is the first edge value
        #expect(input.sawUnusual)
        var ordinary = FuzzInput([255, 255, 255])
        #expect(ordinary.number(scale: 10) == 10)
        #expect(!ordinary.sawUnusual)
    }
}
