import AnimationCore

/// Reading and writing values in columns without intermediate arrays.
enum ValueStorage {
    /// Stores `value` in single precision, each component held within ±`Float.greatestFiniteMagnitude`
    /// (NaN stays NaN). A whole transform past Float's range would otherwise hold ±∞, and the
    /// products that compose it with a model or another transform would meet ∞ − ∞ and 0 · ∞:
    /// NaN from finite input (the fuzzer's case: a cumulative transform repeated into 1e57).
    static func store(_ value: AnimationValue, into columns: VectorColumns, at i: Int) {
        let p = columns.pointers
        let largest = Double(Float.greatestFiniteMagnitude)
        value.forEachComponent { c, v in p[c][i] = Float(Swift.min(Swift.max(v, -largest), largest)) }
    }

    static func load(_ kind: ValueKind, from columns: VectorColumns, at i: Int) -> AnimationValue {
        let p = columns.pointers
        return AnimationValue(kind: kind) { c in Double(p[c][i]) }
    }

    /// `value` into Double columns, exactly.
    static func store(_ value: AnimationValue, into columns: ColumnSet<Double>, at i: Int) {
        let p = columns.pointers
        value.forEachComponent { c, v in p[c][i] = v }
    }

    static func load(_ kind: ValueKind, from columns: ColumnSet<Double>, at i: Int) -> AnimationValue {
        let p = columns.pointers
        return AnimationValue(kind: kind) { c in p[c][i] }
    }

    /// The value's components as Floats (compile time only: this allocates).
    static func floats(_ value: AnimationValue) -> [Float] { value.components.map(Float.init) }
}
