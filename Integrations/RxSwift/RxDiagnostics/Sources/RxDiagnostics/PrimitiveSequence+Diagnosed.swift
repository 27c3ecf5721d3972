#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
public import ReactiveDiagnostics
@preconcurrency public import RxSwift

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// Checks every subscription to this `Single`; see ``DiagnosedObservable``.
    ///
    /// ```swift
    /// api.profile(id: id)
    ///     .diagnosed("profile request")        // exactly one value, then completion
    ///     .subscribe(onSuccess: { [weak self] in self?.profile = $0 })
    ///     .disposed(by: disposeBag)
    /// ```
    ///
    /// - Parameters:
    ///   - label: The name findings and the report show.
    ///   - contract: By default `StreamContract.single`.
    ///   - engine: Where findings go.
    /// - Returns: A `Single` that behaves exactly like this one.
    public func diagnosed(
        _ label: String, contract: StreamContract = .single, engine: DiagnosticsEngine = .shared
    ) -> Single<Element> {
        primitiveSequence.asObservable().diagnosed(label, contract: contract, engine: engine).asSingle()
    }
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// Checks every subscription to this `Maybe`; see ``DiagnosedObservable``.
    ///
    /// ```swift
    /// cache.cachedAvatar(for: user).diagnosed("cached avatar").subscribe(onSuccess: show).disposed(by: bag)
    /// ```
    ///
    /// - Parameters:
    ///   - label: The name findings and the report show.
    ///   - contract: By default at most one value, then termination.
    ///   - engine: Where findings go.
    /// - Returns: A `Maybe` that behaves exactly like this one.
    public func diagnosed(
        _ label: String, contract: StreamContract = StreamContract(values: 0...1, termination: .required),
        engine: DiagnosticsEngine = .shared
    ) -> Maybe<Element> {
        primitiveSequence.asObservable().diagnosed(label, contract: contract, engine: engine).asMaybe()
    }
}

extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Never {
    /// Checks every subscription to this `Completable`; see ``DiagnosedObservable``.
    ///
    /// ```swift
    /// store.save(draft).diagnosed("save draft").subscribe(onCompleted: close).disposed(by: bag)
    /// ```
    ///
    /// - Parameters:
    ///   - label: The name findings and the report show.
    ///   - contract: By default `StreamContract.completable`.
    ///   - engine: Where findings go.
    /// - Returns: A `Completable` that behaves exactly like this one.
    public func diagnosed(
        _ label: String, contract: StreamContract = .completable, engine: DiagnosticsEngine = .shared
    ) -> Completable {
        primitiveSequence.asObservable().diagnosed(label, contract: contract, engine: engine).asCompletable()
    }
}

extension InfallibleType {
    /// Checks every subscription to this `Infallible`; see ``DiagnosedObservable``.
    ///
    /// ```swift
    /// relay.asInfallible().diagnosed("selection").subscribe(onNext: select).disposed(by: bag)
    /// ```
    ///
    /// - Parameters:
    ///   - label: The name findings and the report show.
    ///   - contract: By default: must not fail (an `Infallible` that fails is a
    ///     `contractViolation`; the error is then dropped, as an `Infallible` cannot carry it).
    ///   - engine: Where findings go.
    /// - Returns: An `Infallible` that behaves exactly like this one.
    public func diagnosed(
        _ label: String, contract: StreamContract = StreamContract(allowsFailure: false),
        engine: DiagnosticsEngine = .shared
    ) -> Infallible<Element> {
        asObservable().diagnosed(label, contract: contract, engine: engine)
            .asInfallible(onErrorRecover: { _ in Infallible.empty() })
    }
}
#endif
