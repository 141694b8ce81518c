import Foundation
import Testing

/// The specification the code cites lives in the repository (docs/): every citation names a rule
/// that is there, and nothing points outside the repository (a clone has nothing beside it).
@Suite("The specification inside the repository")
struct SpecificationTests {
    /// The repository's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every file under `folders` (relative to the root) whose name ends with one of `endings`,
    /// with its text. Bounded by the repository's size; build folders are skipped.
    static func files(in folders: [String], endings: [String]) -> [(path: String, text: String)] {
        var found: [(String, String)] = []
        for folder in folders {
            let base = root.appendingPathComponent(folder)
            guard let walk = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walk {
                if url.lastPathComponent.hasPrefix(".build") { walk.skipDescendants(); continue }
                guard endings.contains(where: url.lastPathComponent.hasSuffix),
                      let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
                found.append((url.path.replacingOccurrences(of: root.path + "/", with: ""), text))
            }
        }
        return found
    }

    /// The rule numbers a specification document defines: its sections ("## 4. …" gives "4") and
    /// rules ("4.1 …" at a line's start gives "4.1").
    static func rules(of document: String) throws -> Set<String> {
        let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
        var numbers = Set<String>()
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            var rest = Substring(line)
            if rest.hasPrefix("## ") { rest = rest.dropFirst(3) }
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, number.first!.isNumber else { continue }
            let trimmed = number.hasSuffix(".") ? number.dropLast() : number
            if rest.dropFirst(number.count).first == " " { numbers.insert(String(trimmed)) }
        }
        return numbers
    }

    /// Every "`name` §N" or "`name` §N.M" citation in `text`.
    static func citations(of name: String, in text: String) -> [String] {
        var cited: [String] = []
        var rest = Substring(text)
        let marker = name + " §"
        while let range = rest.range(of: marker) {   // bounded: each step moves past a match
            rest = rest[range.upperBound...]
            let number = rest.prefix { $0.isNumber || $0 == "." }
            let trimmed = number.hasSuffix(".") ? number.dropLast() : number
            if !trimmed.isEmpty { cited.append(String(trimmed)) }
        }
        return cited
    }

    /// `text` without its code: fenced blocks and inline spans (formulas there are not links).
    static func prose(of text: String) -> String {
        text.components(separatedBy: "```").enumerated().filter { $0.offset % 2 == 0 }
            .map { $0.element.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined() }
            .joined(separator: "\n")
    }

    @Test("every semantics § and lottie § the code cites is a rule of docs/semantics.md or docs/lottie.md",
          arguments: [("semantics", "docs/semantics.md"), ("lottie", "docs/lottie.md")])
    func citationsNameRulesThatExist(name: String, document: String) throws {
        let defined = try Self.rules(of: document)
        #expect(defined.count > 20, "\(document) defines \(defined.count) rules")
        var checked = 0
        for file in Self.files(in: ["Sources", "Tests", "docs"], endings: [".swift", ".md", ".h", ".c"]) {
            for number in Self.citations(of: name, in: file.text) {
                checked += 1
                #expect(defined.contains(number), "\(file.path) cites \(name) §\(number), which \(document) does not define")
            }
        }
        #expect(checked > 5, "found \(checked) citations of \(name) §")
    }

    @Test("nothing in the repository points at a folder beside it, and the docs' links resolve")
    func theRepositoryStandsOnItsOwn() throws {
        let outside = ".." + "/shared"   // spelled in two parts, so that this file does not match itself
        let files = Self.files(in: ["Sources", "Tests", "docs", "Benchmarks", "Fuzz", "Examples", "Tools", "perf-reports"],
                               endings: [".swift", ".md", ".h", ".c", ".cpp", ".sh", ".json", ".py"])
        #expect(files.count > 100)
        for file in files { #expect(!file.text.contains(outside), "\(file.path) points at \(outside)") }
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(!readme.contains(outside), "README.md points at \(outside)")

        // Markdown links `](target)` of the README and docs/, relative to their file.
        var documents = [("README.md", readme)]
        documents += Self.files(in: ["docs"], endings: [".md"])
        var links = 0
        for (path, text) in documents {
            let folder = Self.root.appendingPathComponent(path).deletingLastPathComponent()
            var rest = Substring(Self.prose(of: text))
            while let open = rest.range(of: "](") {   // bounded: each step moves past a match
                rest = rest[open.upperBound...]
                guard let close = rest.firstIndex(of: ")") else { break }
                let target = String(rest[..<close]).split(separator: "#").first.map(String.init) ?? ""
                guard !target.isEmpty, !target.contains("://") else { continue }
                links += 1
                let resolved = folder.appendingPathComponent(target).standardizedFileURL
                #expect(FileManager.default.fileExists(atPath: resolved.path), "\(path) links to \(target), which is not there")
                #expect(resolved.path.hasPrefix(Self.root.standardizedFileURL.path), "\(path) links outside the repository: \(target)")
            }
        }
        #expect(links >= 5, "found \(links) relative links")
    }
}
