import Foundation
import Testing

/// The strict-concurrency and raw-memory audit (issue "Hardening", 6), kept true: every
/// `@unchecked Sendable`, `nonisolated(unsafe)` and raw-memory operation in the package's sources
/// (most of them are this module's kernels and tables) carries a comment saying why it is safe.
@Suite("safety audit")
struct SafetyAuditTests {
    /// Operations whose safety the compiler does not check: reinterpreting memory, owning it by
    /// hand, forcing a base address, loads and stores of raw bytes, unchecked unwraps and casts.
    static let unchecked = [
        "@unchecked Sendable", "nonisolated(unsafe)", "assumingMemoryBound", "bindMemory", "withMemoryRebound",
        "unsafeBitCast", "unsafeDowncast", "Unmanaged", ".allocate(", "deallocate()", "baseAddress!",
        "unsafelyUnwrapped", "UnsafeBufferPointer(start", "UnsafeMutableBufferPointer(start",
        "UnsafeRawBufferPointer(start", "loadUnaligned", "storeBytes", "moveInitialize", "@exclusivity(unchecked)",
        "load(fromByteOffset",
    ]

    /// How far above an operation its proof may sit: a comment on the line, or within this many
    /// lines above (a type's or a function's note covers the operations just below it), or the
    /// proof of an operation one or two lines before (a run of frees in a deinit).
    static let reach = 8

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `file:line: code` for every operation without a proof in reach.
    static func unprovedOperations() throws -> (checked: Int, unproved: [String]) {
        var checked = 0, unproved: [String] = []
        let manager = FileManager.default
        for folder in ["Sources", "Fuzz/Sources"] {
            let root = packageRoot.appendingPathComponent(folder)
            guard let walker = manager.enumerator(at: root, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where url.pathExtension == "swift" {
                let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
                var lastOperation = -10, lastProved = false
                for (i, line) in lines.enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//"), unchecked.contains(where: { line.contains($0) }) else { continue }
                    checked += 1
                    let proved = line.contains("//")
                        || lines[max(0, i - reach)..<i].contains { $0.contains("//") }
                        || (i - lastOperation <= 2 && lastProved)
                    if !proved {
                        unproved.append("\(url.path.dropFirst(packageRoot.path.count + 1)):\(i + 1): \(code)")
                    }
                    (lastOperation, lastProved) = (i, proved)
                }
            }
        }
        return (checked, unproved)
    }

    @Test("every @unchecked Sendable, nonisolated(unsafe) and raw-memory operation has a comment saying why it is safe")
    func everyUncheckedOperationCarriesItsProof() throws {
        let (checked, unproved) = try Self.unprovedOperations()
        // The sources are where the tests expect them: an empty scan would prove nothing.
        #expect(checked > 150, "found only \(checked) unchecked operations under \(Self.packageRoot.path)")
        #expect(unproved.isEmpty, "without a proof in reach:\n\(unproved.joined(separator: "\n"))")
    }
}
