/// What a Lottie file holds, counted as an instance draws it (precompositions expanded once per
/// layer that shows them): the figures a benchmark report lists beside each file's tick.
public struct LottieStatistics: Sendable, Equatable {
    /// Layers of every type, each precomposition's layers counted once per layer showing it.
    public var layers: Int
    /// Shape items that draw a path: paths, rectangles, ellipses (and each solid layer).
    public var paths: Int
    /// Fills and strokes.
    public var paints: Int
    /// Trim paths.
    public var trims: Int
    /// Keyframes of every animated property (transforms, shapes, paints, trims, time remaps).
    public var keyframes: Int

    /// Counts given directly (``LottieAnimation/statistics`` counts a file).
    public init(layers: Int, paths: Int, paints: Int, trims: Int, keyframes: Int) {
        (self.layers, self.paths, self.paints, self.trims, self.keyframes) = (layers, paths, paints, trims, keyframes)
    }
}

extension LottieAnimation {
    /// The file's ``LottieStatistics``. Linear in the expanded file (at most
    /// ``maximumExpandedLayers`` layers, which the reader checked); no recursion deeper than the
    /// nesting of groups, which the reader bounds.
    public var statistics: LottieStatistics {
        var counts = LottieStatistics(layers: 0, paths: 0, paints: 0, trims: 0, keyframes: 0)
        func keys(_ p: LottieProperty?) -> Int { p.map { $0.segments.isEmpty ? 0 : $0.segments.count + 1 } ?? 0 }
        func keys(_ t: LottieTransform) -> Int {
            keys(t.anchor) + keys(t.position) + keys(t.positionX) + keys(t.positionY) + keys(t.scale) + keys(t.rotation) + keys(t.opacity)
        }
        func count(_ items: [LottieShapeItem]) {
            for item in items {
                switch item {
                case .group(let inner, let transform, _):
                    counts.keyframes += keys(transform)
                    count(inner)
                case .path(let shape, _):
                    counts.paths += 1
                    counts.keyframes += shape.keys.count
                case .rectangle(let position, let size, let roundness, _, _):
                    counts.paths += 1
                    counts.keyframes += keys(position) + keys(size) + keys(roundness)
                case .ellipse(let position, let size, _, _):
                    counts.paths += 1
                    counts.keyframes += keys(position) + keys(size)
                case .fill(let color, let opacity, _):
                    counts.paints += 1
                    counts.keyframes += keys(color) + keys(opacity)
                case .stroke(let color, let opacity, let width, _, _):
                    counts.paints += 1
                    counts.keyframes += keys(color) + keys(opacity) + keys(width)
                case .trim(let start, let end, let offset, _, _):
                    counts.trims += 1
                    counts.keyframes += keys(start) + keys(end) + keys(offset)
                }
            }
        }
        // An explicit stack of the layer lists still to count (a precomposition's once per layer
        // showing it); references were checked when read: no cycles, the expansion bounded.
        var pending: [[LottieLayer]] = [layers]
        while let list = pending.popLast() {
            for layer in list {
                counts.layers += 1
                counts.keyframes += keys(layer.transform)
                switch layer.content {
                case .shapes(let items): count(items)
                case .solid:
                    counts.paths += 1
                    counts.paints += 1
                case .precomposition(let id, let remap):
                    counts.keyframes += keys(remap)
                    if let inner = precompositions[id] { pending.append(inner) }
                case .null:
                    break
                }
            }
        }
        return counts
    }
}
