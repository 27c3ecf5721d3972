import Foundation
import OpenCombineShim
import ReactiveDiagnostics

/// What global instrumentation needs to know about a publisher type, computed once per type.
struct PublisherTypeInfo: Sendable {
    /// `_typeName(P.self, qualified: false)`, shortened when very long.
    let label: DiagnosticLabel
    /// `.timer` for timer publishers (a leak is an uncancelled timer), else `.subscription`.
    let kind: ResourceKind
    /// A `.diagnosed()` stage, which checks its stream itself.
    let isDiagnosed: Bool

    /// Labels longer than this keep their start and end around an ellipsis.
    static let maximumLabelLength = 200

    init<P: Publisher>(_ type: P.Type) {
        var name = _typeName(type, qualified: false)
        if name.count > Self.maximumLabelLength {
            let half = Self.maximumLabelLength / 2
            name = "\(name.prefix(half))…\(name.suffix(half))"
        }
        label = DiagnosticLabel(name)
        kind = type is Timer.TimerPublisher.Type ? .timer : .subscription
        isDiagnosed = type is any DiagnosedPublisherMarker.Type
    }
}
