import AnimationScene
import Testing

@Suite("JSON")
struct JSONTests {
    @Test("values, order, escapes and numbers")
    func parsesDocuments() throws {
        let json = try JSON.parse(#" { "b": [1, -2.5e3, 0, true, false, null], "a": "x\"\\\/\n\u00e9\ud83d\ude00" } "#)
        guard case .object(let members) = json else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["b", "a"])   // document order
        #expect(json["b"] == .array([.number(1), .number(-2500), .number(0), .bool(true), .bool(false), .null]))
        #expect(json["a"] == .string("x\"\\/\né😀"))
    }

    @Test("malformed documents name the line and column")
    func malformed() {
        let cases: [(String, String)] = [
            ("", "malformed JSON at line 1, column 1: unexpected end of input"),
            ("{", "malformed JSON at line 1, column 2: expected a member name in quotes"),
            ("{\"a\" 1}", "malformed JSON at line 1, column 6: expected ':' after a member name"),
            ("[1,]", "malformed JSON at line 1, column 4: unexpected character"),
            ("[1 2]", "malformed JSON at line 1, column 4: expected ',' or ']' in an array"),
            ("{\"a\": 1,\n \"b\": tru}", "malformed JSON at line 2, column 7: unexpected character"),
            ("01", "malformed JSON at line 1, column 2: unexpected text after the document"),
            ("1.", "malformed JSON at line 1, column 3: invalid number: digits must follow '.'"),
            ("1e999", "malformed JSON at line 1, column 1: number out of range: 1e999"),
            ("\"abc", "malformed JSON at line 1, column 5: unterminated string"),
            ("\"\\x\"", "malformed JSON at line 1, column 4: invalid escape in a string"),
            ("\"\\ud800\"", "malformed JSON at line 1, column 8: unpaired surrogate in a \\u escape"),
            ("NaN", "malformed JSON at line 1, column 1: unexpected character"),
        ]
        for (text, message) in cases {
            do {
                _ = try JSON.parse(text)
                Issue.record("\(text) parsed")
            } catch {
                #expect("\(error)" == message, "\(text)")
            }
        }
    }

    @Test("nesting is bounded: deep input is rejected, never a stack overflow")
    func deepNesting() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try JSON.parse(deep) }
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect((try? JSON.parse(fine)) != nil)
    }

    @Test("writing round-trips")
    func writes() throws {
        let value: JSON = .object([("t", .number(0.1)), ("n", .number(3)), ("s", .string("a\"b\n")), ("l", .array([.null, .bool(true)]))])
        #expect(value.text == #"{"t":0.1,"n":3,"s":"a\"b\n","l":[null,true]}"#)
        #expect(try JSON.parse(value.prettyText) == value)
        #expect(JSON.number(.nan).text == "null")
    }
}
