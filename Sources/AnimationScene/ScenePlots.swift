import AnimationCore

extension SVGChart {
    /// A timing function's curve over x in [0, 1] (201 samples of
    /// `TimingFunction.value(at:)`), with its control polygon dashed and its four
    /// control points marked (semantics §3).
    public static func timingFunction(_ function: TimingFunction, title: String? = nil,
                                      width: Double = 320, height: Double = 340) -> SVGChart {
        let curve = (0...200).map { k -> (x: Double, y: Double) in
            let x = Double(k) / 200
            return (x, function.value(at: x))
        }
        let p = (0...3).map { try! function.controlPoint(at: $0) }   // 0...3 never throws
        let name = title ?? function.name?.rawValue
            ?? "(\(SVG.number(p[1].x)), \(SVG.number(p[1].y)), \(SVG.number(p[2].x)), \(SVG.number(p[2].y)))"
        return SVGChart(title: name, xLabel: "time fraction x", yLabel: "progress y",
                        series: [Series(name: "y(x)", points: curve),
                                 // Two handles: the NaN point lifts the pen between them.
                                 Series(name: "control polygon", points: [(p[0].x, p[0].y), (p[1].x, p[1].y), (.nan, .nan),
                                                                          (p[2].x, p[2].y), (p[3].x, p[3].y)], style: .dashed),
                                 Series(name: "control points", points: p.map { ($0.x, $0.y) }, style: .points)],
                        width: width, height: height, xRange: 0...1, yRange: 0...1)
    }
}

extension SceneEvaluation {
    /// The index in ``layers`` of the layer named `id`.
    ///
    /// - Throws: ``SceneError`` at `layer` naming the scene's layers when there is none.
    public func layerIndex(_ id: String) throws -> Int {
        guard let i = layers.firstIndex(where: { $0.id == id }) else {
            throw SceneError(path: "layer", reason: "no layer '\(id)' in the scene (layers: \(layers.map(\.id).joined(separator: ", ")))")
        }
        return i
    }

    /// A property of one layer over `times`: one series per component (`position.x`,
    /// `position.y`, …), leaving out components that never change when others do (a transform's
    /// sixteen numbers usually vary in two or three). `property` is a reported property
    /// (``SceneLayer/reportedProperties``), or one of its components (`position.y`,
    /// `backgroundColor.alpha`, `transform.m41`).
    ///
    /// - Throws: ``SceneError`` at `layer` or `property` naming what the layer has.
    public func series(layer id: String, property: String, times: [Double], engine: SceneEngine = .batch) throws -> [SVGChart.Series] {
        let index = try layerIndex(id)
        let layer = layers[index]
        let reported = layer.reportedProperties
        var name = property, component: String?
        if !reported.contains(property), let dot = property.lastIndex(of: "."),
           reported.contains(String(property[..<dot])) {
            name = String(property[..<dot])
            component = String(property[property.index(after: dot)...])
        }
        guard reported.contains(name) else {
            throw SceneError(path: "property", reason: "layer '\(id)' neither sets nor animates '\(property)' (it has: \(reported.joined(separator: ", ")))")
        }
        var columns: [[(x: Double, y: Double)]] = []
        var names: [String] = []
        for t in times {
            let shown = frame(at: t, engine: engine, layers: index..<index + 1).layers[0].values
            guard let value = shown.first(where: { $0.keyPath == name })?.value else { continue }
            if names.isEmpty {
                names = value.componentNames.isEmpty ? [name] : value.componentNames.map { "\(name).\($0)" }
                columns = Array(repeating: [], count: names.count)
                if let component, !value.componentNames.contains(component) {
                    throw SceneError(path: "property", reason: "'\(name)' has no component '\(component)' (it has: \(value.componentNames.joined(separator: ", ")))")
                }
            }
            for (c, v) in value.components.enumerated() where c < columns.count { columns[c].append((t, v)) }
        }
        // A colour's channels drawn in their own colours (alpha in grey): the palette's order had
        // drawn red in blue, green in red and blue in green.
        let channelColors = ["red": "#d62728", "green": "#2ca02c", "blue": "#1f77b4", "alpha": "#7f7f7f"]
        var result = zip(names, columns).map { name, points in
            SVGChart.Series(name: name, points: points, color: channelColors[String(name.split(separator: ".").last ?? "")])
        }
        if let component { result = result.filter { $0.name == "\(name).\(component)" } }
        // Varying: a spread beyond Float rounding (the batch engine computes in Float).
        let varying = result.filter { s in
            let ys = s.points.map(\.y).filter(\.isFinite)
            guard let low = ys.min(), let high = ys.max() else { return false }
            return high - low > 1e-6 * (1 + abs(high))
        }
        return varying.isEmpty ? result : varying
    }

    /// Where the animations of layer `id` end: the latest active end (semantics §2.4), or two
    /// iterations past the begin time of one that repeats forever; at least 0.1 s and at most 600 s
    /// (2 s when the layer has no animation).
    public func plotDuration(layer id: String) throws -> Double {
        Self.plotDuration(of: layers[try layerIndex(id)])
    }

    /// ``plotDuration(layer:)`` of a layer in hand (no lookup by name).
    static func plotDuration(of layer: SceneLayer) -> Double {
        guard !layer.animations.isEmpty else { return 2 }
        var end = 0.1
        for a in layer.animations {
            let t = a.timing
            let finish = t.activeEndTimeInParent.isFinite ? t.activeEndTimeInParent
                : t.beginTime + 2 * t.effectiveDuration * (t.autoreverses ? 2 : 1) / max(abs(t.speed), 1e-3)
            if finish.isFinite { end = max(end, finish) }
        }
        return min(end, 600)
    }
}
