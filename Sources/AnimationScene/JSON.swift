/// A JSON value, with object members in document order (scene files list layers, properties and
/// animations in an order that means something: add order).
public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(key: String, value: JSON)])

    /// Structural equality (member order included; NaN equals NaN).
    public static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case let (.bool(x), .bool(y)): x == y
        case let (.number(x), .number(y)): x == y || (x.isNaN && y.isNaN)
        case let (.string(x), .string(y)): x == y
        case let (.array(x), .array(y)): x == y
        case let (.object(x), .object(y)): x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The member named `key` of an object (the last one, if repeated), or nil.
    public subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// What the value is, for error messages ("a number", "an object", …).
    public var typeDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Malformed JSON: where (line and column, from 1) and what.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line of the problem, from 1.
    public var line: Int
    /// The column (in characters), from 1.
    public var column: Int
    /// What is wrong.
    public var reason: String
    /// `malformed JSON at line L, column C: reason`.
    public var description: String { "malformed JSON at line \(line), column \(column): \(reason)" }
}

extension JSON {
    /// The deepest nesting a document may have: deeper input is rejected, never a stack overflow.
    public static let maximumDepth = 512

    /// Parses a complete JSON document (RFC 8259). Numbers become Doubles.
    ///
    /// - Throws: ``JSONSyntaxError`` naming the line and column of the first problem.
    public static func parse(_ text: String) throws -> JSON {
        var parser = Parser(bytes: Array(text.utf8))
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the document") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        func error(_ reason: String) -> JSONSyntaxError {
            var line = 1, column = 1
            for b in bytes[..<min(index, bytes.count)] {
                if b == UInt8(ascii: "\n") { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
            }
            return JSONSyntaxError(line: line, column: column, reason: reason)
        }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func expect(_ literal: String, _ value: JSON) throws -> JSON {
            let l = Array(literal.utf8)
            guard index + l.count <= bytes.count, Array(bytes[index..<(index + l.count)]) == l else {
                throw error("unexpected character")
            }
            index += l.count
            return value
        }

        mutating func value(depth: Int) throws -> JSON {
            guard depth < JSON.maximumDepth else { throw error("nested deeper than \(JSON.maximumDepth) levels") }
            guard index < bytes.count else { throw error("unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try expect("true", .bool(true))
            case UInt8(ascii: "f"): return try expect("false", .bool(false))
            case UInt8(ascii: "n"): return try expect("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw error("unexpected character")
            }
        }

        mutating func object(depth: Int) throws -> JSON {
            index += 1
            var members: [(key: String, value: JSON)] = []
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
                let key = try string()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
                index += 1
                skipWhitespace()
                members.append((key, try value(depth: depth + 1)))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of input in an object") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                throw error("expected ',' or '}' in an object")
            }
        }

        mutating func array(depth: Int) throws -> JSON {
            index += 1
            var elements: [JSON] = []
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            while true {
                skipWhitespace()
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of input in an array") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                throw error("expected ',' or ']' in an array")
            }
        }

        mutating func string() throws -> String {
            index += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() { scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars); raw.removeAll() }
            while true {
                guard index < bytes.count else { throw error("unterminated string") }
                let b = bytes[index]
                if b == UInt8(ascii: "\"") { index += 1; break }
                if b < 0x20 { throw error("control character in a string") }
                if b != UInt8(ascii: "\\") { raw.append(b); index += 1; continue }
                flush()
                index += 1
                guard index < bytes.count else { throw error("unterminated string") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        // A surrogate pair: the low half must follow.
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("unpaired surrogate in a \\u escape")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in a \\u escape") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                    scalars.append(scalar)
                default: throw error("invalid escape in a string")
                }
            }
            flush()
            return String(scalars)
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("incomplete \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let b = bytes[index]
                let d: UInt32
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
                default: throw error("invalid \\u escape")
                }
                v = v * 16 + d
                index += 1
            }
            return v
        }

        mutating func number() throws -> Double {
            let start = index
            func digits() -> Int {
                let s = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                return index - s
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count else { throw error("incomplete number") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else if digits() == 0 {
                throw error("invalid number")
            }
            if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw error("invalid number: digits must follow '.'") }
            }
            if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
                index += 1
                if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) { index += 1 }
                guard digits() > 0 else { throw error("invalid number: digits must follow the exponent") }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let value = Double(text) else { throw error("invalid number") }
            guard value.isFinite else { index = start; throw error("number out of range: \(text)") }
            return value
        }
    }
}

extension JSON {
    /// Compact JSON text (numbers in their shortest round-tripping form; non-finite numbers, which
    /// JSON cannot hold, as null).
    public var text: String {
        var out = ""
        write(to: &out, indent: nil, level: 0)
        return out
    }

    /// JSON text indented by two spaces per level.
    public var prettyText: String { prettyText(level: 0) }

    /// ``prettyText`` as it reads nested `level` levels deep: lines after the first indented by
    /// two spaces per level (a part of a document written piece by piece).
    func prettyText(level: Int) -> String {
        var out = ""
        write(to: &out, indent: "  ", level: level)
        return out
    }

    static func escape(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(u.value, radix: 16).count) + String(u.value, radix: 16)
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    /// A number as JSON writes it: integers without a fraction, others in Swift's shortest form.
    static func format(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        if v == v.rounded() && abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }

    private func write(to out: inout String, indent: String?, level: Int) {
        let newline = indent == nil ? "" : "\n"
        let pad = { (n: Int) in indent.map { String(repeating: $0, count: n) } ?? "" }
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let v): out += JSON.format(v)
        case .string(let s): out += JSON.escape(s)
        case .array(let a):
            if a.isEmpty { out += "[]"; return }
            // Arrays of plain values (a point, a colour, a transform) stay on one line.
            if indent != nil && a.allSatisfy({ if case .array = $0 { return false }; if case .object = $0 { return false }; return true }) {
                out += "[" + a.map(\.text).joined(separator: ", ") + "]"
                return
            }
            out += "[" + newline
            for (i, e) in a.enumerated() {
                out += pad(level + 1)
                e.write(to: &out, indent: indent, level: level + 1)
                out += (i + 1 < a.count ? "," : "") + newline
            }
            out += pad(level) + "]"
        case .object(let m):
            if m.isEmpty { out += "{}"; return }
            out += "{" + newline
            for (i, member) in m.enumerated() {
                out += pad(level + 1) + JSON.escape(member.key) + (indent == nil ? ":" : ": ")
                member.value.write(to: &out, indent: indent, level: level + 1)
                out += (i + 1 < m.count ? "," : "") + newline
            }
            out += pad(level) + "}"
        }
    }
}
