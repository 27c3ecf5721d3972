/// Marks the publisher type of a `.diagnosed()` stage, so that global instrumentation skips
/// the stage it already checks instead of counting its stream twice.
@usableFromInline
protocol DiagnosedPublisherMarker {}

/// Marks the subscriber a `.diagnosed()` stage subscribes upstream with (see
/// ``DiagnosedPublisherMarker``).
@usableFromInline
protocol DiagnosedSubscriberMarker {}
