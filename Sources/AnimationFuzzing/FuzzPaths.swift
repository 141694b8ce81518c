import AnimationCore

/// Target `path`: a path built by every builder method from fuzz input (arcs of radius 0 and
/// negative, singular transforms, empty and one-point paths, NaN), measured and trimmed.
/// Whatever the input: nothing crashes or hangs. When `validate()` accepts the path and every
/// number was ordinary: the length is finite and at least the distance between any two
/// consecutive on-curve points' chord (a curve is never shorter than its chord); points and
/// tangents along it are finite; a trim keeps at most the fraction it names of the length (within
/// the measurer's 1e-9 relative accuracy, semantics §14.3) and lies within the path's control box;
/// the tangent-angle table gives finite angles.
public func fuzzPath(_ bytes: [UInt8]) throws {
    var input = FuzzInput(bytes)
    let edges = input.bool()
    let path = input.path(maximumElements: 24, edges: edges)
    let cuts = (0..<4).map { _ in input.fraction(edges: edges) }
    let measure = PathMeasure(path)
    _ = path.boundingBox
    _ = path.boundingBoxOfPath
    for s in cuts { _ = measure.point(atLength: s * measure.length); _ = measure.tangent(atLength: s * measure.length) }
    let trims = [measure.trimmed(from: cuts[0], to: cuts[1]), measure.trimmed(from: cuts[2], to: cuts[3])]
    let table = TangentAngleTable(measure: measure, sampleCount: 1 + input.choice(64))
    let angles = cuts.map { table.angle(atFraction: $0) }

    guard (try? path.validate()) != nil, !input.sawUnusual else { return }
    let length = measure.length
    try check(length.isFinite && length >= 0, "length \(length) of an ordinary path")
    var previous: Point?
    var chords = 0.0
    for element in path.elements {
        guard let end = element.endPoint else { previous = nil; continue }
        if case .move = element { previous = end; continue }
        if let p = previous { chords += ((end.x - p.x) * (end.x - p.x) + (end.y - p.y) * (end.y - p.y)).squareRoot() }
        previous = end
    }
    try check(length >= chords * (1 - 1e-9) - 1e-9, "length \(length) shorter than its chords \(chords)")
    for s in cuts {
        let p = measure.point(atLength: s * length), d = measure.tangent(atLength: s * length)
        try check(p.x.isFinite && p.y.isFinite && d.x.isFinite && d.y.isFinite, "point \(p) / tangent \(d) at \(s)")
    }
    let box = path.boundingBox
    let slack = 1e-9 * (1 + abs(box.minX) + abs(box.minY) + box.width + box.height)
    for (k, trim) in trims.enumerated() {
        let (a, b) = (cuts[2 * k], cuts[2 * k + 1])
        let kept = PathMeasure(trim).length
        let named = max(0, min(max(b, 0), 1) - min(max(a, 0), 1)) * length
        try check(kept <= named * (1 + 1e-6) + 1e-6 * (1 + length),
                  "trim \(a)…\(b) keeps \(kept) of \(length) (named \(named)): \(path.elements) → \(trim.elements)")
        for element in trim.elements {
            for p in element.points {
                try check(p.x >= box.minX - slack && p.x <= box.maxX + slack && p.y >= box.minY - slack && p.y <= box.maxY + slack,
                          "trim point \(p) outside the path's control box \(box)")
            }
        }
    }
    for (s, angle) in zip(cuts, angles) { try check(angle.isFinite, "tangent angle \(angle) at \(s)") }
}
