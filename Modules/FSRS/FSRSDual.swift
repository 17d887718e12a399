import Foundation

/// A number carried with its derivatives by each of FSRS-6's 21 parameters (forward-mode
/// automatic differentiation): every operation on it applies the chain rule to the 21 partials at
/// once, so one pass over a card's reviews gives its loss and the loss's gradient.
///
/// The partials sit in three `SIMD8`s (21 used, the rest zero) so that each operation is a few
/// vector instructions.
struct FSRSDual: FSRSNumber {
    var value: Double
    var partials: FSRSPartials

    @inline(__always)
    init(_ value: Double) {
        self.value = value
        partials = .zero
    }

    @inline(__always)
    init(_ value: Double, partials: FSRSPartials) {
        self.value = value
        self.partials = partials
    }

    /// Parameter `index` as a variable: its own partial is 1.
    @inline(__always) static func variable(_ value: Double, index: Int) -> FSRSDual {
        var partials = FSRSPartials.zero
        partials[index] = 1
        return FSRSDual(value, partials: partials)
    }

    @inline(__always) static func + (a: FSRSDual, b: FSRSDual) -> FSRSDual { FSRSDual(a.value + b.value, partials: a.partials + b.partials) }
    @inline(__always) static func - (a: FSRSDual, b: FSRSDual) -> FSRSDual { FSRSDual(a.value - b.value, partials: a.partials - b.partials) }
    @inline(__always) static func * (a: FSRSDual, b: FSRSDual) -> FSRSDual {
        FSRSDual(a.value * b.value, partials: a.partials * b.value + b.partials * a.value)
    }
    @inline(__always) static func / (a: FSRSDual, b: FSRSDual) -> FSRSDual {
        FSRSDual(a.value / b.value, partials: (a.partials * b.value - b.partials * a.value) / (b.value * b.value))
    }
    @inline(__always) static func + (a: FSRSDual, b: Double) -> FSRSDual { FSRSDual(a.value + b, partials: a.partials) }
    @inline(__always) static func - (a: FSRSDual, b: Double) -> FSRSDual { FSRSDual(a.value - b, partials: a.partials) }
    @inline(__always) static func - (a: Double, b: FSRSDual) -> FSRSDual { FSRSDual(a - b.value, partials: -b.partials) }
    @inline(__always) static func * (a: FSRSDual, b: Double) -> FSRSDual { FSRSDual(a.value * b, partials: a.partials * b) }
    @inline(__always) static func * (a: Double, b: FSRSDual) -> FSRSDual { b * a }
    @inline(__always) static func / (a: FSRSDual, b: Double) -> FSRSDual { FSRSDual(a.value / b, partials: a.partials / b) }
    @inline(__always) static prefix func - (a: FSRSDual) -> FSRSDual { FSRSDual(-a.value, partials: -a.partials) }

    @inline(__always)
    func exp() -> FSRSDual {
        let e = Foundation.exp(value)
        return FSRSDual(e, partials: partials * e)
    }

    @inline(__always)
    func log() -> FSRSDual { FSRSDual(Foundation.log(value), partials: partials / value) }

    /// `self` to the power `exponent`, both carrying partials (`self` > 0).
    @inline(__always)
    func pow(_ exponent: FSRSDual) -> FSRSDual {
        let lnBase = Foundation.log(value)
        let result = Foundation.exp(exponent.value * lnBase)
        return FSRSDual(result, partials: (exponent.partials * lnBase + partials * (exponent.value / value)) * result)
    }

    /// Kept within `low...high`; a bound's value has no partials (as a clamp's gradient is zero
    /// outside its range).
    @inline(__always)
    func clamped(_ low: Double, _ high: Double) -> FSRSDual {
        if value < low { return FSRSDual(low) }
        if value > high { return FSRSDual(high) }
        return self
    }

    /// The same partials with the value replaced (a guard against log(0) that keeps the gradient).
    @inline(__always)
    func withValue(_ newValue: Double) -> FSRSDual { FSRSDual(newValue, partials: partials) }

    @inline(__always)
    func atLeast(_ low: Double) -> FSRSDual { value < low ? FSRSDual(low) : self }
}

/// 24 partials as three vectors (FSRS-6 uses 21).
struct FSRSPartials {
    var a: SIMD8<Double>
    var b: SIMD8<Double>
    var c: SIMD8<Double>

    static let zero = FSRSPartials(a: .zero, b: .zero, c: .zero)

    subscript(index: Int) -> Double {
        get { index < 8 ? a[index] : index < 16 ? b[index - 8] : c[index - 16] }
        set {
            if index < 8 { a[index] = newValue } else if index < 16 { b[index - 8] = newValue } else { c[index - 16] = newValue }
        }
    }

    @inline(__always) static func + (x: FSRSPartials, y: FSRSPartials) -> FSRSPartials { FSRSPartials(a: x.a + y.a, b: x.b + y.b, c: x.c + y.c) }
    @inline(__always) static func - (x: FSRSPartials, y: FSRSPartials) -> FSRSPartials { FSRSPartials(a: x.a - y.a, b: x.b - y.b, c: x.c - y.c) }
    @inline(__always) static func += (x: inout FSRSPartials, y: FSRSPartials) { x = x + y }
    @inline(__always) static prefix func - (x: FSRSPartials) -> FSRSPartials { FSRSPartials(a: -x.a, b: -x.b, c: -x.c) }
    @inline(__always) static func * (x: FSRSPartials, k: Double) -> FSRSPartials { FSRSPartials(a: x.a * k, b: x.b * k, c: x.c * k) }
    @inline(__always) static func / (x: FSRSPartials, k: Double) -> FSRSPartials { x * (1 / k) }
}

/// What FSRS's model computes with: plain `Double`s to evaluate, ``FSRSDual``s to differentiate.
protocol FSRSNumber {
    init(_ value: Double)
    var value: Double { get }
    static func + (a: Self, b: Self) -> Self
    static func - (a: Self, b: Self) -> Self
    static func * (a: Self, b: Self) -> Self
    static func / (a: Self, b: Self) -> Self
    static func + (a: Self, b: Double) -> Self
    static func - (a: Self, b: Double) -> Self
    static func - (a: Double, b: Self) -> Self
    static func * (a: Self, b: Double) -> Self
    static func / (a: Self, b: Double) -> Self
    static prefix func - (a: Self) -> Self
    func exp() -> Self
    func log() -> Self
    func pow(_ exponent: Self) -> Self
    func clamped(_ low: Double, _ high: Double) -> Self
    func atLeast(_ low: Double) -> Self
    func withValue(_ newValue: Double) -> Self
}

extension Double: FSRSNumber {
    var value: Double { self }
    @inline(__always) func exp() -> Double { Foundation.exp(self) }
    @inline(__always) func log() -> Double { Foundation.log(self) }
    @inline(__always) func pow(_ exponent: Double) -> Double { Foundation.exp(exponent * Foundation.log(self)) }
    @inline(__always) func clamped(_ low: Double, _ high: Double) -> Double { Swift.min(Swift.max(self, low), high) }
    @inline(__always) func atLeast(_ low: Double) -> Double { Swift.max(self, low) }
    @inline(__always) func withValue(_ newValue: Double) -> Double { newValue }
}
