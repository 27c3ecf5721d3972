import CReactiveDiagnostics
import Foundation
import ReactiveDiagnosticsReport
import Synchronization
import _ReactiveDiagnosticsSupport

extension DiagnosticsEngine {
    /// Starts a test: a new ledger epoch and, for serial runners, this engine's serial test.
    ///
    /// - Parameters:
    ///   - name: The test's name; it attributes resources and findings.
    ///   - serial: `true` when only one test runs at a time (XCTest): until it finishes, work of
    ///     this engine on any thread that knows no test is attributed to it. Parallel runners
    ///     (Swift Testing) pass `false` and bind ``TestIdentity/current`` themselves.
    public func beginTest(named name: String, serial: Bool = true) -> TestCheckpoint {
        let test = TestIdentity(name: name)
        if serial {
            serialTestID.store(test.rawValue, ordering: .relaxed)
        }
        openTests.withLock { $0[test.rawValue, default: 0] += 1 }
        if configuration.settlesWhenIdle && configuration.isEnabled {
            WorkInFlight.arm()
        }
        StreamMisuseHook.testOpened(in: self)
        reclaimQuietLanes()
        prepareToNameStacks()
        return TestCheckpoint(
            test: test, epoch: ledger.advanceEpoch(), findingIndex: findingStore.count, isSerial: serial)
    }

    /// Ends a test: lets deallocation and main-queue work settle (bounded), turns what the
    /// test left alive into lifetime findings, and returns every finding attributed to it
    /// with suppressions and the test's allowances applied.
    public func finishTest(_ checkpoint: TestCheckpoint, options: TestOptions = TestOptions()) -> TestOutcome {
        finishTest(checkpoint, options: options, deferringLifetime: false)
    }

    /// Ends a test, leaving its lifetime check for later when `deferringLifetime` is `true`:
    /// the grammar, contract and scheduler findings are final now, but what the test left
    /// alive is only judged by ``checkDeferredLifetime(of:after:options:)``.
    ///
    /// A test runner that ends a test before the test's own clean-up has run (XCTest's
    /// teardown blocks run before `tearDown()`) uses it so that resources the clean-up
    /// releases are not leaks: the first half while the test can still fail, the second once
    /// the clean-up is over.
    ///
    /// ```swift
    /// let first = engine.finishTest(checkpoint, deferringLifetime: true)   // fail the test for these
    /// // … the test's own clean-up releases what it kept in its properties …
    /// let leaks = engine.checkDeferredLifetime(of: checkpoint, after: first)
    /// ```
    public func finishTest(
        _ checkpoint: TestCheckpoint, options: TestOptions = TestOptions(), deferringLifetime: Bool
    ) -> TestOutcome {
        let settled: Duration
        if deferringLifetime {
            // Work already queued for the main queue still belongs to the test.
            let clock = ContinuousClock()
            let start = clock.now
            drainMainQueue(timeout: configuration.settlePollInterval)
            settled = clock.now - start
        } else {
            settled = settleAndJudge(checkpoint, options: options)
            closeTest(checkpoint)
            reclaimQuietLanes()
        }
        evaluatePrematureCancels(test: checkpoint.test)
        let findings = attributedFindings(of: checkpoint, from: checkpoint.findingIndex, options: options)
        if checkpoint.isSerial {
            // Only if no later serial test has taken its place.
            _ = serialTestID.compareExchange(expected: checkpoint.test.rawValue, desired: 0, ordering: .relaxed)
        }
        let outcome = TestOutcome(test: checkpoint.test, findings: findings, settleDuration: settled)
        if !deferringLifetime {
            recordTest(checkpoint, findings: outcome.unsuppressed.count, failed: !outcome.failures.isEmpty)
        }
        return outcome
    }

    /// The second half of a test ended with `deferringLifetime: true`: lets deallocation and
    /// main-queue work settle (bounded), turns what the test still has alive into lifetime
    /// findings and returns those (suppressions and allowances applied). The test's record
    /// in the report counts the findings of both halves and is failed when the first half's
    /// were (the runner cannot fail a test that has finished).
    public func checkDeferredLifetime(
        of checkpoint: TestCheckpoint, after first: TestOutcome, options: TestOptions = TestOptions()
    ) -> TestOutcome {
        let start = findingStore.count
        let settled = settleAndJudge(checkpoint, options: options)
        closeTest(checkpoint)
        let findings = attributedFindings(of: checkpoint, from: start, options: options)
        let outcome = TestOutcome(test: checkpoint.test, findings: findings, settleDuration: settled)
        recordTest(
            checkpoint, findings: first.unsuppressed.count + outcome.unsuppressed.count, failed: !first.failures.isEmpty
        )
        return outcome
    }

    /// Lets the test's resources settle, then turns what it left alive into findings; neither
    /// when the engine is disabled (the master switch: a test pays nothing for what a resource an
    /// adapter still registered does).
    private func settleAndJudge(_ checkpoint: TestCheckpoint, options: TestOptions) -> Duration {
        guard isEnabled else { return .zero }
        let settled = settle(checkpoint, for: options.settleTime ?? configuration.settleTime)
        judgeLifetimes(of: checkpoint)
        return settled
    }

    /// Every finding attributed to the test since `index`, with suppressions and the test's
    /// allowances applied.
    private func attributedFindings(of checkpoint: TestCheckpoint, from index: Int, options: TestOptions) -> [Finding] {
        var findings: [Finding] = []
        for finding in findingStore.after(index) where finding.test == checkpoint.test {
            if options.allowedKinds.contains(finding.kind) {
                suppress(finding, reason: "test allows \(finding.kind)")
            } else if applySuppressions(to: finding) == nil, isAccepted(finding) {
                suppress(finding, reason: AcceptedFindings.suppressionReason)
            }
            findings.append(latest(finding))
        }
        return findings
    }

    /// The test's line in the report and the crash journal.
    private func recordTest(_ checkpoint: TestCheckpoint, findings: Int, failed: Bool) {
        let record = TestRecord(name: checkpoint.test.name ?? "", findings: findings, failed: failed)
        tests.withLock { $0.records.append(record) }
        journal.withLock { $0 }?.didFinish(record)
    }

    /// Ends a test from async code: the same as the synchronous form, but the settle loop
    /// (which sleeps) runs on a thread of its own, so it never holds a thread of Swift's
    /// cooperative pool that other tests, or the test's own remaining work, need.
    public func finishTest(_ checkpoint: TestCheckpoint, options: TestOptions = TestOptions()) async -> TestOutcome {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: self.finishTest(checkpoint, options: options))
            }
            thread.name = "ReactiveDiagnostics settle"
            thread.start()
        }
    }

    /// The serial runner's test in progress (see ``beginTest(named:serial:)``), or
    /// ``TestIdentity/none``.
    public var serialTest: TestIdentity {
        TestIdentity(rawValue: serialTestID.load(ordering: .relaxed))
    }

    /// The test the caller is working for: the ``TestIdentity/contextual`` one (a thread-local
    /// set around the library's deliveries and scheduled actions, else the task-local one
    /// bound by the Swift Testing trait), else this engine's ``serialTest``; or
    /// ``TestIdentity/none``. Resources and findings are attributed with it.
    ///
    /// ```swift
    /// let checkpoint = engine.beginTest(named: "FeedTests.testRefresh()")
    /// assert(engine.currentTest() == checkpoint.test)   // on any thread without a test of its own
    /// ```
    public func currentTest() -> TestIdentity {
        let contextual = TestIdentity.contextual
        return contextual.isKnown ? contextual : serialTest
    }

    /// Turns what the settled test still has alive into findings, explained. Reading the
    /// heap and naming frames is the library's own work (``WorkInFlight/asOwnWork(_:)``): a
    /// test settling beside this one (Swift Testing runs them in parallel) does not wait for it,
    /// since it can release nothing.
    private func judgeLifetimes(of checkpoint: TestCheckpoint) {
        WorkInFlight.asOwnWork {
            describeRunningTasks(of: checkpoint)
            recordLeaks(of: checkpoint)
            recordUnstructuredTasks(of: checkpoint)
        }
    }

    /// The test's lifetime is judged: its tasks are forgotten (reported or not), and tasks
    /// started from now on are no longer its.
    private func closeTest(_ checkpoint: TestCheckpoint) {
        forgetTasks(of: checkpoint)
        forgetNestedLeaks(of: checkpoint.test)
        openTests.withLock { open in
            let remaining = (open[checkpoint.test.rawValue] ?? 1) - 1
            open[checkpoint.test.rawValue] = remaining > 0 ? remaining : nil
        }
        StreamMisuseHook.testClosed(in: self)
    }

    /// Resources the test allocated that are still alive.
    public func liveResources(of checkpoint: TestCheckpoint) -> [LiveResource] {
        ledger.liveResources(test: checkpoint.test)
    }

    /// Waits (bounded by `limit`) until the test has nothing alive (resources, and unstructured
    /// tasks when they are tracked), draining the main queue and sweeping deallocated objects.
    /// With ``Configuration/settlesWhenIdle``, it also stops once nothing that could still
    /// release what is alive is in flight and the same resources were alive at two looks in a
    /// row: the outcome is decided. Returns how long it waited.
    @discardableResult
    public func settle(_ checkpoint: TestCheckpoint, for limit: Duration) -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start.advanced(by: limit)
        let poll = configuration.settlePollInterval
        let decidesWhenIdle = configuration.settlesWhenIdle && WorkInFlight.isKnown
        // What is still alive at a test's end is most often ending already (a task that returned
        // its value and is releasing what it held, a watcher about to unregister): look again
        // soon, then less and less often (twice the pause each time), up to the poll interval. A
        // fixed 25 ms first wait cost a long suite of correct tests about 1 ms a test
        // (Docs/Performance.md, longSuite); a pause growing four times a look left a leak decided
        // up to 16 ms after the last thread in flight stopped (Swift Testing's parallel tests).
        var pause = min(Duration.microseconds(250), poll)
        var lastLook: Set<ResourceToken>?
        while true {
            let drained = drainMainQueue(timeout: poll)
            ledger.sweep()
            sweepCompletedTasks()
            let live = liveResources(of: checkpoint)
            // Accepted leaks (a baseline's) are not waited for: their outcome is decided.
            if (live.isEmpty || onlyAcceptedLeaks(live)) && !hasUnstructuredTasks(checkpoint) || clock.now >= deadline {
                return clock.now - start
            }
            if decidesWhenIdle {
                let look = Set(live.map(\.token))
                if drained, look == lastLook, !isWorkInFlight(for: checkpoint, until: deadline) {
                    return clock.now - start
                }
                lastLook = look
            }
            wait(pause)
            pause = min(pause * 2, poll)
        }
    }

    /// Whether something may still run and release what the test left alive before
    /// `deadline`: a task of the test running or enqueued, timed work due by then that this
    /// test or no known test scheduled (another test's cannot release this one's resources:
    /// Swift Testing's parallel tests waited for each other's `asyncAfter`), or another thread
    /// running or in a timed sleep (``WorkInFlight``).
    func isWorkInFlight(for checkpoint: TestCheckpoint, until deadline: ContinuousClock.Instant) -> Bool {
        if trackedTasks.count > 0, trackedTasks.anyActive(of: checkpoint.test) {
            return true
        }
        return WorkInFlight.isPending(within: deadline - ContinuousClock.now, for: checkpoint.test)
    }

    /// Sleeps between two looks of the settle loop. The sleep is the library's own work: a test
    /// settling beside another (Swift Testing runs them in parallel) is no work in flight for it,
    /// else two leaking tests ending together would each wait out the other's settle time.
    private func wait(_ duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        if rdiag_is_process_main_thread() != 0 {
            // Let the main run loop (and the main queue it drains) make progress meanwhile: the
            // test's own work may run here, so this is not the library's own.
            RunLoop.current.run(until: Date(timeIntervalSinceNow: seconds))
        } else {
            WorkInFlight.asOwnWork { Thread.sleep(forTimeInterval: seconds) }
        }
    }

    /// Gives blocks already queued on the main queue a chance to run; `false` when they did
    /// not all run within `timeout` (the main thread is busy).
    @discardableResult
    private func drainMainQueue(timeout: Duration) -> Bool {
        if rdiag_is_process_main_thread() != 0 {
            RunLoop.current.run(until: Date())
            return true
        }
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { done.signal() }
        return done.wait(timeout: .now() + .nanoseconds(Int(timeout.clampedNanoseconds))) == .success
    }

    /// Records one lifetime finding per bug the test left alive: per allocation site (kind,
    /// label, stack), with the stages of one chain folded into one finding (``LeakChains``).
    /// A leak the baseline accepts is recorded suppressed, and not explained.
    private func recordLeaks(of checkpoint: TestCheckpoint) {
        let live = liveResources(of: checkpoint)
        guard !live.isEmpty else { return }
        let leaks = LeakSites(live)
        let relations = leaks.order.isEmpty ? [:] : leakRelations.withLock { $0 }
        let chains = leakChains(of: leaks.order)
        let accepted = configuration.acceptedFindings
        let decided = chains.map { chain in
            let stages = chain.sites.count > 1 ? stageFingerprints(chain) : []
            let isAccepted = !accepted.isEmpty && accepted.accepts([ownFingerprint(chain)] + stages)
            return (chain: chain, stageFingerprints: stages, isAccepted: isAccepted)
        }
        // One walk per chain: its most downstream stage that has an anchor.
        let explaining = decided.filter { !$0.isAccepted }.compactMap { decided in
            explainedStage(of: decided.chain.sites, tokens: leaks.tokens)
        }
        // Where the findings point is found on another thread while the heap is walked for why.
        let naming =
            explaining.isEmpty
            ? nil
            : warmUp(
                decided.filter { !$0.isAccepted }.flatMap { decided in
                    decided.chain.sites.flatMap { [$0.stack, relations[$0]?.stack ?? .none] }
                }, linesOf: [.user])
        let explained = Dictionary(
            zip(explaining, explainRetention(ofSites: explaining.map { leaks.tokens[$0] ?? [] })),
            uniquingKeysWith: { first, _ in first })
        naming?.wait()
        for (chain, stageFingerprints, isAccepted) in decided {
            // Told for the downstream stage; explained by the most downstream stage that has an anchor.
            let site = chain.representative
            let retainPath = chain.sites.reversed().lazy.compactMap { explained[$0] ?? nil }.first
            let count = max(leaks.tokens[site]?.count ?? 0, 1)
            let label = site.label.name
            var details = ["count": "\(count)", "resourceKind": site.kind.name]
            let relation = relations[site]
            var message = Self.leakMessage(kind: site.kind, label: label, count: count)
            if chain.sites.count > 1 {
                let stages = chain.sites.map { LeakChains.stageName($0, in: chain) }
                details[ReportFinding.stagesKey] = stages.joined(separator: " → ")
                details["stageCount"] = "\(stages.count)"
                details[ReportFinding.stageFingerprintsKey] = stageFingerprints.joined(separator: " ")
                message += Self.chainSentence(stages)
            }
            var related = relation?.stack ?? .none
            if let relation {
                details[ReportFinding.relatedStackRoleKey] = relation.stack.isCaptured ? relation.role : nil
                if let note = relation.note?() {
                    message += ". " + note
                }
            }
            if let cause = chain.sites.first(where: { chain.inner[$0]?.isCause == true }),
                let inner = chain.inner[cause]
            {
                let stage = LeakChains.stageName(cause)
                details[ReportFinding.causeKey] = stage
                message += causeSentence(stage: stage, operatorName: inner.operatorName, stack: cause.stack)
                if !related.isCaptured {
                    related = cause.stack
                    details[ReportFinding.relatedStackRoleKey] = "never-ending inner publisher subscribed"
                }
            } else if let source = chain.sites.first, source.kind == .subscription,
                LeakChains.stableName(source.label.name) == "Future"
            {
                // A subscription to a Future ends when its promise is called: one still alive
                // means the promise never was.
                details[ReportFinding.causeKey] = source.label.name
                message += Self.futureCauseSentence
            }
            var draft = FindingDraft(
                kind: site.kind.leakFindingKind,
                message: message,
                label: label.isEmpty ? nil : label, resourceKind: site.kind, test: checkpoint.test,
                allocationStack: site.stack, capturesEventStack: false, details: details,
                relatedStack: related, retainPath: retainPath)
            if chain.sites.count > 1 {
                let cause = details[ReportFinding.causeKey]
                draft.chain = zip(chain.sites, stageFingerprints).map { stage, fingerprint in
                    let inner = chain.inner[stage]
                    let name = stage.label.name
                    return FindingStage(
                        label: name.isEmpty ? nil : name, resourceKind: stage.kind, allocationStack: stage.stack,
                        fingerprint: fingerprint, innerOf: inner?.operatorName,
                        isCause: inner?.isCause == true || (stage == chain.sites[0] && cause == name && !name.isEmpty))
                }
            }
            let finding = record(draft)
            if isAccepted, let finding {
                suppress(finding, reason: AcceptedFindings.suppressionReason)
            }
        }
    }

    /// What a folded leak adds when an operator's inner subscription keeps the chain alive on
    /// its own: which, where it was subscribed, and what to change.
    func causeSentence(stage: String, operatorName: String, stack: StackID) -> String {
        let frame = symbolize(stack).frames.first { $0.category == .user }
        let place =
            frame.flatMap(sourceLine(of:)).map { " at \($0.file.split(separator: "/").last ?? ""):\($0.line)" } ?? ""
        let named = operatorName.isEmpty ? "its operator" : operatorName
        return ". Cause: its source ended, but the inner publisher `\(stage)` that \(named) subscribed\(place) "
            + "never completes, and \(named) waits for it: make that publisher complete (or bound it with "
            + "`prefix`, `first` or `timeout`), or cancel the subscription"
    }

    /// What a leak adds when its chain's source is a `Future` that never completed.
    static let futureCauseSentence =
        ". Cause: its source, a `Future`, never completed: its promise was never called (a path of the "
        + "Future's closure that returns without calling it?), so the subscription waits forever: call the "
        + "promise on every path, or cancel the subscription"

    /// The leak sites of some live resources, in the order first seen, with their resources.
    struct LeakSites {
        var order: [LeakSite] = []
        var tokens: [LeakSite: [ResourceToken]] = [:]

        init(_ resources: [LiveResource]) {
            for resource in resources {
                let site = LeakSite(kind: resource.kind, label: resource.label, stack: resource.stack)
                if tokens[site] == nil { order.append(site) }
                tokens[site, default: []].append(resource.token)
            }
        }
    }

    /// The sites grouped into bugs (``LeakChains``).
    func leakChains(of order: [LeakSite]) -> [LeakChains.Chain] {
        guard order.count > 1 else { return order.map { LeakChains.Chain(sites: [$0]) } }
        let kindOf = { (site: LeakSite) in LeakChains.family(of: site.kind) }
        let chains = LeakChains.group(
            order, kindOf: kindOf, userFrames: userFrames(of:), addresses: { self.stacks.addresses(of: $0) })
        let nested = nestedLeaks.withLock { $0 }
        return LeakChains.nest(chains, nested: nested, kindOf: kindOf, userFrames: userFrames(of:))
    }

    /// Every fingerprint a chain's finding answers to: its own, then its stages'.
    func chainFingerprints(_ chain: LeakChains.Chain) -> [String] {
        [ownFingerprint(chain)] + (chain.sites.count > 1 ? stageFingerprints(chain) : [])
    }

    /// The fingerprint of a chain's finding (as ``fingerprint(of:)`` will give it).
    func ownFingerprint(_ chain: LeakChains.Chain) -> String {
        let site = chain.representative
        return fingerprint(
            kind: site.kind.leakFindingKind,
            label: LeakChains.fingerprintLabel(
                site.label.name.isEmpty ? nil : site.label.name, folded: chain.sites.count > 1),
            stack: site.stack)
    }

    /// The fingerprints a chain's stages would have as findings of their own.
    func stageFingerprints(_ chain: LeakChains.Chain) -> [String] {
        chain.sites.map {
            fingerprint(
                kind: $0.kind.leakFindingKind, label: $0.label.name.isEmpty ? nil : $0.label.name, stack: $0.stack)
        }
    }

    /// Whether every resource of `live` belongs to a leak the baseline accepts.
    func onlyAcceptedLeaks(_ live: [LiveResource]) -> Bool {
        let accepted = configuration.acceptedFindings
        guard !accepted.isEmpty else { return false }
        return leakChains(of: LeakSites(live).order).allSatisfy { accepted.accepts(chainFingerprints($0)) }
    }

    /// Whether the baseline accepts a finding (by its fingerprint, or one of its folded stages').
    func isAccepted(_ finding: Finding) -> Bool {
        let accepted = configuration.acceptedFindings
        guard !accepted.isEmpty else { return false }
        let stages = finding.details[ReportFinding.stageFingerprintsKey]?.split(separator: " ").map(String.init) ?? []
        return accepted.accepts([fingerprint(of: finding)] + stages)
    }

    /// What a folded leak adds to its message: the chain it stands for.
    static func chainSentence(_ stages: [String]) -> String {
        ". One chain of \(stages.count) stages, upstream first: \(stages.joined(separator: " → ")); "
            + "each is alive because the chain's subscriber is, so this is one leak: end or cancel that subscription"
    }

    /// A stack from its first user frame on (raw addresses), with the number of frames above
    /// that frame; `nil` when the stack has no user frame.
    func userFrames(of stack: StackID) -> (frames: [UInt], depth: Int)? {
        guard stack.isCaptured else { return nil }
        let symbolized = symbolize(stack)
        guard let first = symbolized.frames.firstIndex(where: { $0.category == .user }) else { return nil }
        let addresses = stacks.addresses(of: stack)
        let start = symbolized.droppedFrames + first
        guard start < addresses.count else { return nil }
        return (Array(addresses[start...]), start)
    }

    static func leakMessage(kind: ResourceKind, label: String, count: Int) -> String {
        let named = label.isEmpty ? "" : " '\(label)'"
        let many = count == 1 ? "" : "\(count) "
        switch kind {
        case .subscription:
            return
                "\(many)subscription\(count == 1 ? "" : "s")\(named) still alive at the end of the test: never completed, failed or cancelled (a retain cycle, or a cancellable kept too long?)"
        case .scheduledAction:
            return
                "\(many)action\(count == 1 ? "" : "s") scheduled on\(named.isEmpty ? " a scheduler" : named) still pending at the end of the test"
        case .timer:
            return
                "\(many)repeating action\(count == 1 ? "" : "s") on\(named.isEmpty ? " a scheduler" : named) never cancelled: still active at the end of the test"
        case .callback:
            return "\(many)effect\(count == 1 ? "" : "s")\(named) never called back by the end of the test"
        case .observer:
            return
                "\(many)notification observer\(count == 1 ? "" : "s")\(named) never removed: still registered at the end of the test"
        case .iteration:
            return
                "\(many)iteration\(count == 1 ? "" : "s") of\(named.isEmpty ? " an async sequence" : named) still waiting for elements at the end of the test: the sequence never finished and the iterating task was never cancelled (a `for await` loop in a task nobody cancels?)"
        case .continuation:
            return
                "\(many)continuation\(count == 1 ? "" : "s")\(named) never resumed by the end of the test: the task awaiting \(count == 1 ? "it is" : "them are") suspended forever"
        case .task:
            return "\(many)task\(count == 1 ? "" : "s")\(named) still running at the end of the test"
        default:
            return "\(many)\(kind.name)\(count == 1 ? "" : "s")\(named) still alive at the end of the test"
        }
    }
}
