import ReactiveDiagnosticsReport
import ReactiveDiagnosticsSymbolication

/// Groups the leak sites of one test into bugs: the stages of one chain are one leak.
///
/// Every stage of a chain (`subject.map { … }.filter { … }.sink { … }`), and every action or
/// timer a stage scheduled while it was subscribed (an interval's), is alive because the
/// chain's subscriber is: they are subscribed by one call in the user's code, and freed together
/// when that one subscription is cancelled. Their allocation stacks show it: below the first
/// frame of the user's code, they are the same frames (the call that subscribed the chain and
/// everything that led to it; a stack cut at the capture depth holds the start of them), while above it each stage has its own framework frames (a stage
/// further upstream is subscribed deeper inside the operators). So sites of one finding kind
/// whose stacks share that whole user part are one chain; sites whose stacks hold no user frame,
/// or differ anywhere in it (two `sink`s on two lines, the same helper called from two places),
/// stay apart. Stages of one chain are nested, so no two have the same stack: sites that do are
/// siblings (made one after the other at one line, in a loop), and their group is left unfolded.
///
/// The stages are listed upstream first (the deepest stack first); the finding is told for the
/// most downstream stage (its label and stack). Its fingerprint keeps of the labels only the
/// downstream stage's own name (``stableName(_:)``), with the kind and the user's frames: adding
/// an operator upstream does not make the gate call the leak new. It keeps the fingerprints its stages had as findings of their own in
/// `details["stageFingerprints"]`, which the gate also matches, so a baseline written before
/// chains were folded still holds.
struct LeakChains {
    /// Which leaks can be stages of one chain: a subscription's, and the scheduled actions and
    /// timers a subscription schedules while it is subscribed (an interval's repeating action,
    /// a `subscribe(on:)`'s pending one), which are alive because it is. Other kinds fold only
    /// with their own kind.
    static func family(of kind: ResourceKind) -> FindingKind {
        switch kind {
        case .subscription, .timer, .scheduledAction: return ResourceKind.subscription.leakFindingKind
        default: return kind.leakFindingKind
        }
    }

    /// How a stage is listed (`ReportChainStage.name(label:resourceKind:innerOf:)`): its
    /// label, and its kind when it is no subscription (`ticker (timer)`).
    static func stageName(_ site: LeakSite, innerOf: String? = nil) -> String {
        let label = site.label.name
        return ReportChainStage.name(label: label.isEmpty ? nil : label, resourceKind: site.kind.name, innerOf: innerOf)
    }

    /// A stage's label without what it says of the stages upstream: a publisher type's own
    /// name (`Map` of `Map<Filter<PassthroughSubject<Int, Never>>, Int>`), a label given by
    /// hand as it is.
    static func stableName(_ label: String) -> String {
        FindingFingerprint.label(label, folded: true) ?? label
    }

    /// The label a finding's fingerprint takes: a folded chain's keeps only its downstream
    /// stage's own name (``stableName(_:)``), so that adding an operator upstream keeps it.
    static func fingerprintLabel(_ label: String?, folded: Bool) -> String? {
        FindingFingerprint.label(label, folded: folded)
    }

    /// One bug: the sites of one chain, upstream first.
    struct Chain {
        var sites: [LeakSite]
        /// The sites an operator of the chain subscribed while delivering to it (a `flatMap`'s
        /// inner publishers), folded in by ``nest(_:nested:userFrames:)``.
        var inner: [LeakSite: Inner] = [:]
        /// The site the finding is told for: the most downstream stage.
        var representative: LeakSite { sites[sites.count - 1] }
    }

    /// An operator's inner subscription folded into its chain.
    struct Inner {
        /// The operator that subscribed it (`FlatMap`).
        var operatorName: String
        /// Whether it keeps the chain alive on its own: the operator's own stage has ended (its
        /// upstream finished) while this one has not.
        var isCause: Bool
    }

    /// How a stage of `chain` is listed: ``stageName(_:innerOf:)``, with the operator of an inner
    /// subscription (`Empty<Int, Never> (inner of FlatMap)`).
    static func stageName(_ site: LeakSite, in chain: Chain) -> String {
        stageName(site, innerOf: chain.inner[site]?.operatorName)
    }

    /// Folds the chains that are operators' inner subscriptions into the chain of the operator
    /// that subscribed them: the chain with the operator's own stage, or, once that stage has
    /// ended, the chain subscribed by the same call of the user's code. An inner chain whose
    /// operator's chain is not among `chains` stays a finding of its own.
    ///
    /// - Parameters:
    ///   - nested: What subscribed the resources allocated at a stack, when an operator did.
    ///   - userFrames: A stack from its first user frame on, as for ``group(_:kindOf:userFrames:addresses:)``.
    static func nest(
        _ chains: [Chain], nested: [StackID: NestedLeak], kindOf: (LeakSite) -> FindingKind,
        userFrames: (StackID) -> (frames: [UInt], depth: Int)?
    ) -> [Chain] {
        guard chains.count > 1, !nested.isEmpty else { return chains }
        var chains = chains
        var merged = true
        while merged {
            merged = false
            search: for position in chains.indices {
                for site in chains[position].sites {
                    guard let parent = nested[site.stack],
                        let host = self.host(
                            of: parent.operatorStack, kind: kindOf(site), among: chains, except: position,
                            kindOf: kindOf, userFrames: userFrames)
                    else { continue }
                    let operatorLive = chains.contains { $0.sites.contains { $0.stack == parent.operatorStack } }
                    var folded = chains[host]
                    for innerSite in chains[position].sites {
                        folded.inner[innerSite] = Inner(operatorName: parent.operatorName, isCause: !operatorLive)
                    }
                    folded.inner.merge(chains[position].inner) { mine, _ in mine }
                    // Inner publishers feed the operator: they are upstream of its chain.
                    folded.sites = chains[position].sites + folded.sites
                    chains[host] = folded
                    chains.remove(at: position)
                    merged = true
                    break search
                }
            }
        }
        return chains
    }

    /// The chain, other than the one at `except`, that the operator stage allocated at
    /// `operatorStack` belongs to: the one holding that stage, else one subscribed by the
    /// same call of the user's code.
    private static func host(
        of operatorStack: StackID, kind: FindingKind, among chains: [Chain], except: Int,
        kindOf: (LeakSite) -> FindingKind, userFrames: (StackID) -> (frames: [UInt], depth: Int)?
    ) -> Int? {
        let candidates = chains.indices.filter { $0 != except && kindOf(chains[$0].representative) == kind }
        if let holding = candidates.first(where: { chains[$0].sites.contains { $0.stack == operatorStack } }) {
            return holding
        }
        guard let user = userFrames(operatorStack), !user.frames.isEmpty else { return nil }
        return candidates.first { position in
            chains[position].sites.contains { site in
                guard let other = userFrames(site.stack), other.frames.first == user.frames.first else { return false }
                return agree(user.frames, other.frames)
            }
        }
    }

    /// The chains of `sites` (in the order of their first site), each site in exactly one.
    ///
    /// - Parameters:
    ///   - userFrames: A site's stack from its first user frame on (raw addresses), or `nil`
    ///     when it has none; with its depth (the number of frames above it).
    ///   - addresses: A stack's raw addresses, innermost first.
    static func group(
        _ sites: [LeakSite], kindOf: (LeakSite) -> FindingKind,
        userFrames: (StackID) -> (frames: [UInt], depth: Int)?, addresses: (StackID) -> [UInt]
    ) -> [Chain] {
        struct Key: Hashable {
            var kind: FindingKind
            var firstUserFrame: UInt
        }
        var chains: [Chain] = []
        var depths: [[Int]] = []
        // The chains that start at a first user frame, with the longest user part seen of each
        // (a stack cut at the capture depth holds only the start of it).
        var index: [Key: [(chain: Int, frames: [UInt])]] = [:]
        var chainOf: [LeakSite: (chain: Int, depth: Int)] = [:]
        var loose: [LeakSite] = []
        for site in sites {
            guard let user = userFrames(site.stack), !user.frames.isEmpty else {
                loose.append(site)
                continue
            }
            let key = Key(kind: kindOf(site), firstUserFrame: user.frames[0])
            let candidates = index[key] ?? []
            if let match = candidates.firstIndex(where: { Self.agree(user.frames, $0.frames) }) {
                let existing = candidates[match].chain
                if user.frames.count > candidates[match].frames.count {
                    index[key]?[match].frames = user.frames
                }
                chains[existing].sites.append(site)
                depths[existing].append(user.depth)
                chainOf[site] = (existing, user.depth)
            } else {
                index[key, default: []].append((chains.count, user.frames))
                chainOf[site] = (chains.count, user.depth)
                chains.append(Chain(sites: [site]))
                depths.append([user.depth])
            }
        }
        // A stage subscribed so deep in a long chain that its stack was cut before the user's
        // frames: it joins the chain of a stage whose subscribe call it is nested in.
        var pending = loose
        // Each stack's addresses are read once (a copy out of the interner), however often compared.
        var known: [StackID: [UInt]] = [:]
        func addressesOf(_ stack: StackID) -> [UInt] {
            if let cached = known[stack] { return cached }
            let read = addresses(stack)
            known[stack] = read
            return read
        }
        while !pending.isEmpty {
            var left: [LeakSite] = []
            for site in pending {
                let own = addressesOf(site.stack)
                var host: (chain: Int, depth: Int)?
                for other in sites where other != site && kindOf(other) == kindOf(site) {
                    if let placed = chainOf[other], let offset = nestingOffset(own, in: addressesOf(other.stack)) {
                        host = (placed.chain, placed.depth + offset)
                        break
                    }
                }
                if let host {
                    chains[host.chain].sites.append(site)
                    depths[host.chain].append(host.depth)
                    chainOf[site] = host
                } else {
                    left.append(site)
                }
            }
            if left.count == pending.count {
                for site in left {
                    chainOf[site] = (chains.count, 0)
                    chains.append(Chain(sites: [site]))
                    depths.append([0])
                }
                break
            }
            pending = left
        }
        var unfolded: [Chain] = []
        for position in chains.indices where chains[position].sites.count > 1 {
            let stacks = Set(chains[position].sites.map(\.stack))
            guard stacks.count == chains[position].sites.count else {
                unfolded += chains[position].sites.map { Chain(sites: [$0]) }
                chains[position].sites = []
                continue
            }
            // Deepest first: upstream stages are subscribed inside their downstream's operator.
            let order = chains[position].sites.indices.sorted { depths[position][$0] > depths[position][$1] }
            chains[position].sites = order.map { chains[position].sites[$0] }
        }
        // Siblings keep their place in the order of the sites.
        let position = Dictionary(sites.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let first: (Chain) -> Int = { chain in chain.sites.compactMap { position[$0] }.min() ?? 0 }
        return (chains.filter { !$0.sites.isEmpty } + unfolded).sorted { first($0) < first($1) }
    }

    /// How many frames deeper `inner` was captured than `outer`, when `inner` was captured
    /// inside the call `outer` was captured in: both start with the same capturing frames, then
    /// `inner` has frames of its own, then continues as `outer` does (for at least 8 frames, or
    /// to the end of either: a stack cut at the capture depth ends early). Chains repeat frames
    /// (every `map` subscribes the same way), so every split of the shared start is tried. `nil`
    /// when it was not.
    static func nestingOffset(_ inner: [UInt], in outer: [UInt]) -> Int? {
        var shared = 0
        while shared < inner.count, shared < outer.count, inner[shared] == outer[shared] {
            shared += 1
        }
        guard shared > 0 else { return nil }
        for split in 1...shared where split < outer.count {
            let rest = outer.count - split
            for offset in 1..<max(inner.count - split, 1) {
                let compared = min(inner.count - split - offset, rest)
                guard compared >= min(8, rest) else { break }
                if inner[(split + offset)..<(split + offset + compared)] == outer[split..<(split + compared)] {
                    return offset
                }
            }
        }
        return nil
    }

    /// Whether two user parts of stacks are the same call, one of them possibly cut short.
    static func agree(_ one: [UInt], _ other: [UInt]) -> Bool {
        let common = min(one.count, other.count)
        return one[..<common] == other[..<common]
    }
}
