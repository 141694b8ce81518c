/// A structure field of a property value that a key path can animate on its own
/// (semantics §4.6, "Key Path Support for Structure Fields").
///
/// Reading a field extracts it; writing it changes only that field of the accumulated value
/// (§8.4). Transform fields read and write the transform's decomposition
/// (``Transform3D/fields``, §15.3): rotation as Euler angles (x, then y, then z), `scale` as the
/// mean of the three factors (writing it sets all three), `translation` as a ``Size`` (x, y).
/// Because a field animation interpolates the number, not the matrix, `transform.rotation.z`
/// from 0 to 2π turns a full circle (§15.4).
public enum ValueField: String, Sendable, CaseIterable, CustomStringConvertible {
    // Point
    case x, y
    // Size
    case width, height
    // Rect
    case origin, originX = "origin.x", originY = "origin.y"
    case size, sizeWidth = "size.width", sizeHeight = "size.height"
    // Transform3D
    case rotation, rotationX = "rotation.x", rotationY = "rotation.y", rotationZ = "rotation.z"
    case scale, scaleX = "scale.x", scaleY = "scale.y", scaleZ = "scale.z"
    case translation, translationX = "translation.x", translationY = "translation.y", translationZ = "translation.z"

    /// The field named `path` of a value of `kind`.
    ///
    /// - Throws: ``AnimationError`` naming `keyPath` when `kind` has no such field.
    public init(path: String, of kind: ValueKind) throws {
        guard let field = ValueField(rawValue: path), field.ownerKind == kind else {
            let valid = ValueField.allCases.filter { $0.ownerKind == kind }.map(\.rawValue)
            let list = valid.isEmpty ? "it has no fields" : "valid fields: " + valid.joined(separator: ", ")
            throw AnimationError(field: "keyPath", reason: "a \(kind) has no field '\(path)' (\(list))")
        }
        self = field
    }

    /// The kind of value that has this field.
    public var ownerKind: ValueKind {
        switch self {
        case .x, .y: .point
        case .width, .height: .size
        case .origin, .originX, .originY, .size, .sizeWidth, .sizeHeight: .rect
        default: .transform
        }
    }

    /// The kind of the field's own value.
    public var kind: ValueKind {
        switch self {
        case .origin: .point
        case .size, .translation: .size
        default: .scalar
        }
    }

    public var description: String { rawValue }

    /// The field's value in `value`. A value of another kind than ``ownerKind`` gives the field's
    /// zero.
    public func get(from value: AnimationValue) -> AnimationValue {
        switch (self, value) {
        case (.x, .point(let p)): return .scalar(p.x)
        case (.y, .point(let p)): return .scalar(p.y)
        case (.width, .size(let s)): return .scalar(s.width)
        case (.height, .size(let s)): return .scalar(s.height)
        case (.origin, .rect(let r)): return .point(r.origin)
        case (.originX, .rect(let r)): return .scalar(r.origin.x)
        case (.originY, .rect(let r)): return .scalar(r.origin.y)
        case (.size, .rect(let r)): return .size(r.size)
        case (.sizeWidth, .rect(let r)): return .scalar(r.size.width)
        case (.sizeHeight, .rect(let r)): return .scalar(r.size.height)
        case (_, .transform(let t)):
            let f = t.fields
            switch self {
            case .rotation, .rotationZ: return .scalar(f.rotation.eulerAngles.z)
            case .rotationX: return .scalar(f.rotation.eulerAngles.x)
            case .rotationY: return .scalar(f.rotation.eulerAngles.y)
            case .scale: return .scalar((f.scale.x + f.scale.y + f.scale.z) / 3)
            case .scaleX: return .scalar(f.scale.x)
            case .scaleY: return .scalar(f.scale.y)
            case .scaleZ: return .scalar(f.scale.z)
            case .translation: return .size(Size(width: f.translation.x, height: f.translation.y))
            case .translationX: return .scalar(f.translation.x)
            case .translationY: return .scalar(f.translation.y)
            case .translationZ: return .scalar(f.translation.z)
            default: break
            }
        default: break
        }
        return AnimationValue.additiveIdentity(of: kind)
    }

    /// `value` with this field replaced by `fieldValue`. Mismatched kinds leave `value` unchanged.
    ///
    /// A transform's field (scale, translation, angle) is held within
    /// ±``Transform3D/largestRepeatedElement`` before it is recomposed: a value that overflowed
    /// to ±∞ (a cumulative animation read at the largest time) would meet the rotation's zeros
    /// as ∞ · 0 and make the matrix NaN; held, the matrix is finite (docs/bad-input.md).
    public func set(_ fieldValue: AnimationValue, in value: AnimationValue) -> AnimationValue {
        switch (self, value, fieldValue) {
        case (.x, .point(var p), .scalar(let v)): p.x = v; return .point(p)
        case (.y, .point(var p), .scalar(let v)): p.y = v; return .point(p)
        case (.width, .size(var s), .scalar(let v)): s.width = v; return .size(s)
        case (.height, .size(var s), .scalar(let v)): s.height = v; return .size(s)
        case (.origin, .rect(var r), .point(let v)): r.origin = v; return .rect(r)
        case (.originX, .rect(var r), .scalar(let v)): r.origin.x = v; return .rect(r)
        case (.originY, .rect(var r), .scalar(let v)): r.origin.y = v; return .rect(r)
        case (.size, .rect(var r), .size(let v)): r.size = v; return .rect(r)
        case (.sizeWidth, .rect(var r), .scalar(let v)): r.size.width = v; return .rect(r)
        case (.sizeHeight, .rect(var r), .scalar(let v)): r.size.height = v; return .rect(r)
        case (.translation, .transform(let t), .size(let v)):
            var f = t.fields
            f.translation.x = Transform3D.heldElement(v.width)
            f.translation.y = Transform3D.heldElement(v.height)
            return .transform(f.recomposed())
        case (_, .transform(let t), .scalar(let v)) where ownerKind == .transform && kind == .scalar:
            let v = Transform3D.heldElement(v)
            var f = t.fields
            switch self {
            case .rotation, .rotationZ, .rotationX, .rotationY:
                var angles = f.rotation.eulerAngles
                switch self {
                case .rotationX: angles.x = v
                case .rotationY: angles.y = v
                default: angles.z = v
                }
                f.rotation = Quaternion(eulerAngles: angles)
            case .scale: f.scale = Vector3(x: v, y: v, z: v)
            case .scaleX: f.scale.x = v
            case .scaleY: f.scale.y = v
            case .scaleZ: f.scale.z = v
            case .translationX: f.translation.x = v
            case .translationY: f.translation.y = v
            case .translationZ: f.translation.z = v
            default: return value
            }
            return .transform(f.recomposed())
        default:
            return value
        }
    }
}

/// A parsed animation key path: the layer property it animates and, optionally, a structure field
/// of it (semantics §4.6, §8.4): `"position"`, `"position.x"`, `"transform.rotation.z"`.
public struct AnimationKeyPath: Sendable, Hashable, CustomStringConvertible {
    /// The property name: the key path's first component.
    public var property: String
    /// The field of the property's value, if the key path names one.
    public var field: ValueField?

    /// Parses `keyPath` for a property whose values are of `propertyKind`.
    ///
    /// - Throws: ``AnimationError`` naming `keyPath` when it is empty or names a field that
    ///   `propertyKind` does not have.
    public init(_ keyPath: String, propertyKind: ValueKind) throws {
        let (property, rest) = Self.split(keyPath)
        guard !property.isEmpty else {
            throw AnimationError(field: "keyPath", reason: "must name a property (got '\(keyPath)')")
        }
        self.property = property
        self.field = try rest.map { try ValueField(path: $0, of: propertyKind) }
    }

    /// The property name and the field path of a key path string, split at the first dot.
    public static func split(_ keyPath: String) -> (property: String, field: String?) {
        guard let dot = keyPath.firstIndex(of: ".") else { return (keyPath, nil) }
        return (String(keyPath[..<dot]), String(keyPath[keyPath.index(after: dot)...]))
    }

    /// The kind of value an animation on this key path interpolates.
    public func valueKind(propertyKind: ValueKind) -> ValueKind { field?.kind ?? propertyKind }

    public var description: String { field.map { "\(property).\($0.rawValue)" } ?? property }
}
