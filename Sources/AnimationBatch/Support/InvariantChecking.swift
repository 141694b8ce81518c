/// A structure whose parts must agree with one another — records and their free lists, a tree and
/// its registry, buffers and the regions handed out in them. What must hold is
/// ``invariantViolations(limit:)``'s to say; ``checkInvariants()`` stops the program on it.
/// ``TrackStore``, LayerTree's `LayerContext` and AnimationLottie's `LottieBatch` check
/// themselves this way before every frame or tick in debug and fuzzing builds, and the fuzz
/// targets call the checks after every step.
public protocol InvariantChecking {
    /// Every broken invariant, each described (at most `limit`); empty when the structure is
    /// consistent. Compiled in every configuration, so that tests can call it in release builds;
    /// it walks the whole structure and may allocate, so no release frame calls it.
    func invariantViolations(limit: Int) -> [String]
}

extension InvariantChecking {
    /// Stops the program with the first broken invariants (``invariantViolations(limit:)``, at
    /// most ten), naming the type. Debug builds and fuzzing builds (`-DFUZZING`) only: in release
    /// builds it is compiled to nothing.
    @inlinable
    public func checkInvariants() {
        #if DEBUG || FUZZING
        let broken = invariantViolations(limit: 10)
        precondition(broken.isEmpty, "\(Self.self) invariants broken:\n" + broken.joined(separator: "\n"))
        #endif
    }
}
