import AnimationCore
import Foundation
import AnimationScene
import LayerTree

private func formatted(_ t: Double) -> String { String(format: "%.3f", t) }

private func ringPath(radius: Double, center: Point) -> Path {
    var path = Path()
    path.addArc(center: center, radius: radius, startAngle: -.pi / 2, endAngle: 1.5 * .pi, clockwise: false)
    return path
}

// MARK: 1. The progress ring, retargeted mid-flight

/// The seed's custom layer: a public `progress` clamped into a hidden animatable key, and a
/// `progressColor`, both redisplaying the layer (semantics §11) and both animating implicitly
/// through an overridden `Layer.action(forKey:)` (§10) — from the presentation value, so a new
/// value mid-flight carries on from where the ring is.
public final class ProgressRingLayer: Layer, SnapshotContent {
    static let progressKey = "ringProgress"
    static let colorKey = "ringProgressColor"

    /// What the last `display()` drew (kept on the model layer: a presentation copy draws it).
    public private(set) var drawnProgress: Double = 0
    public private(set) var drawnColor = Color(red: 0.2, green: 0.55, blue: 0.95)
    /// How many times the ring was drawn.
    public private(set) var displayCount = 0

    /// The progress, clamped to [0, 1] into the animatable key.
    public var progress: Double {
        get { value(forKey: Self.progressKey)?.scalarValue ?? 0 }
        set { setValue(.scalar(min(max(newValue.isNaN ? 0 : newValue, 0), 1)), forKey: Self.progressKey) }
    }

    /// The ring's colour.
    public var progressColor: Color {
        get { value(forKey: Self.colorKey)?.value(as: Color.self) ?? drawnColor }
        set { setValue(.color(newValue), forKey: Self.colorKey) }
    }

    public override class func defaultValue(forKey key: String) -> AnimationValue? {
        switch key {
        case progressKey: 0
        case colorKey: .color(Color(red: 0.2, green: 0.55, blue: 0.95))
        default: super.defaultValue(forKey: key)
        }
    }

    public override class func needsDisplay(forKey key: String) -> Bool {
        key == progressKey || key == colorKey || super.needsDisplay(forKey: key)
    }

    public override func action(forKey event: String) -> LayerAction? {
        guard event == Self.progressKey || event == Self.colorKey else { return super.action(forKey: event) }
        var animation = BasicAnimation(keyPath: event)   // no values: from the presentation value (§10)
        animation.timingFunction = Transaction.animationTimingFunction() ?? .easeInEaseOut
        return .animation(animation)
    }

    /// Draws from the presentation values it is called on (§11).
    public override func display() {
        let model = self.model()
        model.drawnProgress = progress
        model.drawnColor = progressColor
        model.displayCount += 1
        super.display()
    }

    public func contentLayers() -> [SceneLayer] {
        let b = bounds
        let center = Point(x: b.size.width / 2, y: b.size.height / 2)
        let path = ringPath(radius: min(b.size.width, b.size.height) / 2 - 8, center: center)
        let frame: [(name: String, value: AnimationValue)] = [("position", .point(center)), ("bounds", .rect(b)),
                                                              ("fillColor", .color(.clear)), ("lineWidth", .scalar(10))]
        return [
            SceneLayer(id: "track", type: .shape, properties: frame + [("strokeColor", .color(Color(red: 0.9, green: 0.9, blue: 0.92)))],
                       path: path),
            SceneLayer(id: "ring", type: .shape,
                       properties: frame + [("strokeColor", .color(drawnColor)), ("strokeEnd", .scalar(drawnProgress))], path: path),
        ]
    }
}

/// Seed 1: a progress ring set to 35 %, retargeted to 85 % mid-flight (it carries on from where
/// it is, no jump), then told 150 % (clamped to 100 %) with a colour change.
public final class ProgressRingSeed: SeedProgram {
    public static let name = "progress-ring"
    public static let title = "A custom animatable progress, retargeted mid-flight"
    public let context = LayerContext()
    public let ring = ProgressRingLayer()
    public let canvas = Size(width: 240, height: 240)
    public let duration = 3.5
    public private(set) var log: [String] = []
    private var script = Script()

    public init() {
        ring.name = "progress-ring"
        ring.position = Point(x: 120, y: 120)
        ring.bounds = Rect(x: 0, y: 0, width: 200, height: 200)
        context.rootLayer.addSublayer(ring)
        script.at(0) { [unowned self] in
            Transaction.begin()
            Transaction.setAnimationDuration(1.2)
            ring.progress = 0.35
            Transaction.commit()
            log.append("\(formatted(context.currentTime)) progress = 0.35 over 1.2 s")
        }
        script.at(0.6) { [unowned self] in
            let shown = ring.presentation()?.progress ?? .nan
            Transaction.begin()
            Transaction.setAnimationDuration(1.2)
            ring.progress = 0.85
            ring.progressColor = Color(red: 0.2, green: 0.75, blue: 0.4)
            Transaction.commit()
            log.append("\(formatted(context.currentTime)) retarget to 0.85 from the presentation value \(formatted(shown))")
        }
        script.at(2.0) { [unowned self] in
            ring.progress = 1.5
            log.append("\(formatted(context.currentTime)) progress = 1.5 → clamped to \(formatted(ring.progress))")
        }
    }

    public func advance(to time: Double) { script.advance(to: time) }
}

// MARK: 2. The transaction experiments

/// Seed 2: implicit animations and why a view's layer has none. Five squares, one experiment
/// each: (a) a standalone layer animates a change implicitly (0.25 s); (b) a view's layer does
/// not (its view answers `.null`); (c) inside `View.animate(withDuration:)` it does; (d) with its
/// delegate set to nil it does again; (e) a transaction of 2 s with a completion block, which
/// changes the colour when the move is done.
public final class TransactionSeed: SeedProgram {
    public static let name = "transactions"
    public static let title = "Transactions, implicit animations and why a view's layer has none"
    public let context = LayerContext()
    public let standalone = Layer()
    public let view = View(), animatedView = View(), detachedView = View()
    public let timed = Layer()
    public let canvas = Size(width: 560, height: 220)
    public let duration = 3.0
    public private(set) var log: [String] = []
    private var script = Script()

    public var squares: [Layer] { [standalone, view.layer, animatedView.layer, detachedView.layer, timed] }

    public init() {
        let names = ["a-standalone", "b-view", "c-view-animate", "d-delegate-nil", "e-transaction"]
        for (i, layer) in squares.enumerated() {
            layer.name = names[i]
            layer.bounds = Rect(x: 0, y: 0, width: 80, height: 80)
            layer.position = Point(x: 60 + Double(i) * 110, y: 60)
            layer.backgroundColor = Color(red: 0.25, green: 0.45, blue: 0.85)
            layer.cornerRadius = 8
            context.rootLayer.addSublayer(layer)
        }
        detachedView.layer.delegate = nil
        script.at(0.5) { [unowned self] in
            let down = { (layer: Layer) in layer.position = Point(x: layer.position.x, y: 150) }
            down(standalone)
            down(view.layer)
            View.animate(withDuration: 1, animations: { down(self.animatedView.layer) }, completion: { [unowned self] finished in
                log.append("\(formatted(context.currentTime)) (c) View.animate completion, finished: \(finished)")
            })
            down(detachedView.layer)
            Transaction.begin()
            Transaction.setAnimationDuration(2)
            Transaction.setCompletionBlock { [unowned self] in
                log.append("\(formatted(context.currentTime)) (e) completion block")
                // Inside the block the outer (default 0.25 s) settings apply (§9.3).
                timed.backgroundColor = Color(red: 0.9, green: 0.35, blue: 0.3)
            }
            down(timed)
            Transaction.commit()
            for layer in squares {
                let keys = layer.animationKeys() ?? []
                log.append("\(formatted(context.currentTime)) \(layer.name ?? "") animations: \(keys.isEmpty ? "none" : keys.joined(separator: ", "))")
            }
        }
    }

    public func advance(to time: Double) { script.advance(to: time) }
}

// MARK: 3. The border drawing itself

/// Seed 3: a shape layer's border drawing itself (`strokeEnd` 0 → 1, the model set first and an
/// explicit animation added), then erasing itself from the start (an implicit `strokeStart`).
public final class BorderSeed: SeedProgram {
    public static let name = "border"
    public static let title = "A shape layer's border drawing itself with strokeEnd"
    public let context = LayerContext()
    public let border = ShapeLayer()
    public let canvas = Size(width: 260, height: 180)
    public let duration = 4.0
    public private(set) var log: [String] = []
    private var script = Script()

    public init() {
        border.name = "border"
        border.position = Point(x: 130, y: 90)
        border.bounds = Rect(x: 0, y: 0, width: 220, height: 140)
        var path = Path()
        path.addRoundedRect(in: Rect(x: 10, y: 10, width: 200, height: 120), cornerWidth: 16, cornerHeight: 16)
        border.path = path
        border.fillColor = .clear
        border.strokeColor = Color(red: 0.95, green: 0.4, blue: 0.2)
        border.lineWidth = 6
        border.strokeEnd = 0
        context.rootLayer.addSublayer(border)
        script.at(0.25) { [unowned self] in
            // The idiom: set the model, then add the animation (§8.5), with actions disabled.
            Transaction.begin()
            Transaction.setDisableActions(true)
            border.strokeEnd = 1
            Transaction.commit()
            try? border.add(BasicAnimation(keyPath: "strokeEnd", from: 0.0, to: 1.0, duration: 2, timingFunction: .easeInEaseOut),
                            forKey: "draw")
            log.append("\(formatted(context.currentTime)) strokeEnd 0 → 1 over 2 s")
        }
        script.at(2.75) { [unowned self] in
            Transaction.begin()
            Transaction.setAnimationDuration(1)
            border.strokeStart = 1
            Transaction.commit()
            log.append("\(formatted(context.currentTime)) strokeStart → 1 (implicit, 1 s)")
        }
    }

    public func advance(to time: Double) { script.advance(to: time) }
}

// MARK: 4. The ring with its didStop

/// Seed 4: a ring filled by an animation whose delegate writes the model in
/// `animationDidStop(_:finished:)` — so that the ring stays full when the animation is removed —
/// and then starts the next animation (a colour pulse) from inside the callback.
public final class RingDidStopSeed: SeedProgram, AnimationDelegate {
    public static let name = "ring-did-stop"
    public static let title = "animationDidStop writes the model"
    public let context = LayerContext()
    public let ring = ShapeLayer()
    public let canvas = Size(width: 240, height: 240)
    public let duration = 3.0
    public private(set) var log: [String] = []
    private var script = Script()

    public init() {
        ring.name = "ring"
        ring.position = Point(x: 120, y: 120)
        ring.bounds = Rect(x: 0, y: 0, width: 200, height: 200)
        ring.path = ringPath(radius: 80, center: Point(x: 100, y: 100))
        ring.fillColor = .clear
        ring.strokeColor = Color(red: 0.55, green: 0.3, blue: 0.85)
        ring.lineWidth = 14
        ring.strokeEnd = 0
        context.rootLayer.addSublayer(ring)
        script.at(0.2) { [unowned self] in
            var fill = BasicAnimation(keyPath: "strokeEnd", from: 0.0, to: 0.75, duration: 1.5, timingFunction: .easeOut)
            fill.fillMode = .forwards   // no flash between the end and the model write
            try? ring.add(fill, forKey: "fill", delegate: self)
            log.append("\(formatted(context.currentTime)) fill 0 → 0.75 over 1.5 s, delegate set")
        }
    }

    public func animationDidStart(_ animation: any Animation) {
        log.append("\(formatted(context.currentTime)) didStart")
    }

    public func animationDidStop(_ animation: any Animation, finished: Bool) {
        log.append("\(formatted(context.currentTime)) didStop finished: \(finished)")
        guard finished, let basic = animation as? BasicAnimation, let to = basic.toValue else { return }
        Transaction.begin()
        Transaction.setDisableActions(true)
        ring.setValue(to, forKey: basic.keyPath)   // the model now holds the end value
        Transaction.commit()
        var pulse = BasicAnimation(keyPath: "strokeColor", to: Color(red: 0.2, green: 0.75, blue: 0.4), duration: 0.5)
        pulse.autoreverses = true
        try? ring.add(pulse, forKey: "pulse")
        log.append("\(formatted(context.currentTime)) model strokeEnd = \(formatted(ring.strokeEnd)); pulse added")
    }

    public func advance(to time: Double) { script.advance(to: time) }
}

// MARK: 5. The arc flight, stopped mid-way

/// Seed 5: a layer flying along an arc (a keyframe path, paced, rotation mode auto), stopped
/// mid-way the way the article does it: read the presentation layer, write its position and
/// transform into the model with actions disabled, remove the animation — it stays exactly where
/// it was, turned along the arc.
public final class ArcFlightSeed: SeedProgram {
    public static let name = "arc-flight"
    public static let title = "A flight along an arc, stopped mid-way from its presentation layer"
    public let context = LayerContext()
    public let plane = Layer()
    public let canvas = Size(width: 320, height: 220)
    public let duration = 3.0
    public let stopTime = 1.0
    public private(set) var log: [String] = []
    /// The presentation position and transform read when the flight was stopped.
    public private(set) var stoppedAt: (position: Point, transform: Transform3D)?
    private var script = Script()

    public init() {
        plane.name = "plane"
        plane.bounds = Rect(x: 0, y: 0, width: 36, height: 14)
        plane.backgroundColor = Color(red: 0.2, green: 0.25, blue: 0.35)
        plane.cornerRadius = 4
        plane.position = Point(x: 40, y: 180)
        context.rootLayer.addSublayer(plane)
        script.at(0.2) { [unowned self] in
            var arc = Path()
            arc.move(to: Point(x: 40, y: 180))
            arc.addCurve(to: Point(x: 280, y: 180), control1: Point(x: 80, y: 10), control2: Point(x: 240, y: 10))
            Transaction.begin()
            Transaction.setDisableActions(true)
            plane.position = Point(x: 280, y: 180)   // the model at the end, then the animation
            Transaction.commit()
            let flight = KeyframeAnimation(keyPath: "position", path: arc, calculationMode: .paced, rotationMode: .auto, duration: 2.4)
            try? plane.add(flight, forKey: "flight")
            log.append("\(formatted(context.currentTime)) flight added (2.4 s)")
        }
        script.at(stopTime) { [unowned self] in
            guard let shown = plane.presentation() else { return }
            Transaction.begin()
            Transaction.setDisableActions(true)
            plane.position = shown.position
            plane.transform = shown.transform
            Transaction.commit()
            plane.removeAnimation(forKey: "flight")
            stoppedAt = (shown.position, shown.transform)
            let angle = atan2(shown.transform.m12, shown.transform.m11) * 180 / .pi
            log.append("\(formatted(context.currentTime)) stopped at (\(formatted(shown.position.x)), \(formatted(shown.position.y))), "
                       + "turned \(formatted(angle))°")
        }
    }

    public func advance(to time: Double) { script.advance(to: time) }
}
