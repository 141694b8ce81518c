import AnimationCore

/// A layer's model values by key (semantics §1.1, §11).
///
/// Cataloged keys (``LayerProperty/all``) are found by their catalog index: a bit says whether
/// the key has a value, and the bits below it count its place in a packed array, kept in catalog
/// order. A host reads and sets a property at least twice per change, and hashing the key into a
/// dictionary, then reaching three of its cache lines, was 0.15 µs of an implicit change. Other
/// keys (a subclass's custom properties) live in a dictionary.
struct LayerValues {
    /// Bit `i`: the cataloged property at index `i` has a value (the catalog has 24 of 64).
    private var present: UInt64 = 0
    /// The values of the cataloged properties that have one, in catalog order.
    private var packed: [AnimationValue] = []
    /// Values of keys outside the catalog.
    private var custom: [String: AnimationValue] = [:]

    /// The value of `key`, or nil when it has none.
    subscript(key: String) -> AnimationValue? {
        get {
            if let i = LayerProperty.index(named: key) { return self[catalog: i] }
            return custom[key]
        }
        set {
            if let i = LayerProperty.index(named: key) { self[catalog: i] = newValue } else { custom[key] = newValue }
        }
    }

    /// The value of a key outside the catalog.
    subscript(custom key: String) -> AnimationValue? { custom[key] }

    /// The value of the cataloged property at index `i` (an index of ``LayerProperty/all``).
    subscript(catalog i: Int) -> AnimationValue? {
        @inline(__always) get {
            let bit = Self.bit(i)
            guard present & bit != 0 else { return nil }
            return packed[(present & (bit &- 1)).nonzeroBitCount]
        }
        set {
            let bit = Self.bit(i)
            let at = (present & (bit &- 1)).nonzeroBitCount
            if present & bit != 0 {
                if let newValue {
                    packed[at] = newValue
                } else {
                    packed.remove(at: at)
                    present &= ~bit
                }
            } else if let newValue {
                packed.insert(newValue, at: at)
                present |= bit
            }
        }
    }

    /// The bit of catalog index `i`; the catalog fits in 64 bits (a test checks it).
    private static func bit(_ i: Int) -> UInt64 { 1 << UInt64(i) }

    /// Every key with a value and its value, sorted by key.
    var sorted: [(key: String, value: AnimationValue)] {
        var all: [(key: String, value: AnimationValue)] = custom.map { ($0.key, $0.value) }
        var rest = present
        var k = 0
        while rest != 0 {   // bounded: one step per set bit
            let i = rest.trailingZeroBitCount
            all.append((LayerProperty.all[i].name, packed[k]))
            rest &= rest &- 1
            k += 1
        }
        return all.sorted { $0.key < $1.key }
    }
}
