import AnimationCore
import AnimationLottie
import Foundation
import Testing

/// A Lottie file of `Files/`, written for these tests (one per feature of L1).
func lottieFile(_ name: String, lenient: Bool = false) throws -> LottieAnimation {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Files/\(name).json")
    return try LottieAnimation(json: String(contentsOf: url, encoding: .utf8), lenient: lenient)
}

/// A path's elements as the geometry format spells them, numbers rounded to `digits` places.
func spelled(_ path: AnimationCore.Path, digits: Double = 1e6) -> [String] {
    func r(_ x: Double) -> String {
        let v = (x * digits).rounded() / digits
        return v == v.rounded() ? String(Int(v)) : "\(v)"
    }
    return path.elements.map { element in
        switch element {
        case .move(let p): "M \(r(p.x)) \(r(p.y))"
        case .line(let p): "L \(r(p.x)) \(r(p.y))"
        case .curve(let p, let c1, let c2): "C \(r(c1.x)) \(r(c1.y)) \(r(c2.x)) \(r(c2.y)) \(r(p.x)) \(r(p.y))"
        case .quadCurve(let p, let c): "Q \(r(c.x)) \(r(c.y)) \(r(p.x)) \(r(p.y))"
        case .closeSubpath: "Z"
        }
    }
}

/// The first move's point of a node (where a small marker rectangle starts).
func start(_ node: LottieNode) -> Point? {
    if case .move(let p)? = node.path.elements.first { return p }
    return nil
}

func near(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }
