/// An error thrown at the API edge when an animation, a timing function or a value is invalid.
///
/// Every error names the field that is wrong, as a path from the value that was checked
/// (`duration`, `animations[2].repeatCount`, `controlPoints.x1`), and says why. Its
/// `description` is `"<field>: <reason>"`, the form the command-line tool prints after the
/// JSON path of a scene file (`layers[3].animations[0].keyTimes: must be non-decreasing`).
///
/// Inside the engine nothing throws: invalid input is rejected once, where it enters.
public struct AnimationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path of the offending field, for example `"animations[1].duration"`.
    public var field: String
    /// Why the field is invalid, for example `"must be finite (got nan)"`.
    public var reason: String

    /// Creates an error for `field` with a human-readable `reason`.
    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    /// `"<field>: <reason>"`.
    public var description: String { field.isEmpty ? reason : "\(field): \(reason)" }

    /// The same error seen from an enclosing value: `animations[2]` + `duration` →
    /// `animations[2].duration`.
    public func prefixed(by outer: String) -> AnimationError {
        if outer.isEmpty { return self }
        if field.isEmpty { return AnimationError(field: outer, reason: reason) }
        let joiner = field.hasPrefix("[") ? "" : "."
        return AnimationError(field: outer + joiner + field, reason: reason)
    }
}

extension AnimationError {
    /// Checks that `value` is finite, naming `field` if it is not.
    static func requireFinite(_ value: Double, _ field: String) throws(AnimationError) {
        guard value.isFinite else {
            throw AnimationError(field: field, reason: "must be finite (got \(value))")
        }
    }

    /// Checks that no component of `value` is beyond ``AnimationValue/largestMagnitude``, naming
    /// `field` if one is.
    static func requireWithinRange(_ value: AnimationValue?, _ field: String) throws(AnimationError) {
        if let v = value?.componentBeyondRange { throw beyondRange(v, field: field) }
    }

    /// The error for component `v` beyond ±``AnimationValue/largestMagnitude``, naming `field`:
    /// the words every check of that rule uses (adding, retargeting).
    package static func beyondRange(_ v: Double, field: String) -> AnimationError {
        AnimationError(field: field, reason: "has \(v), beyond ±1e38 (the engine holds values in single precision)")
    }

    /// Checks that `value` is not NaN, naming `field` if it is.
    static func requireNotNaN(_ value: Double, _ field: String) throws(AnimationError) {
        guard !value.isNaN else {
            throw AnimationError(field: field, reason: "must be a number (got nan)")
        }
    }
}
