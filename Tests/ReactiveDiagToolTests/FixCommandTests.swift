import Foundation
import ReactiveDiagFix
import ReactiveDiagTool
import ReactiveDiagnosticsReport
import ReactiveDiagnosticsTestSupport
import Testing

/// `reactive-diag fix`: golden diffs for a corpus of closure shapes, assign(to:on:) and
/// discarded cancellables; the refusals (a changed line, a dirty file, an ambiguous bag, a
/// second apply); SARIF `fixes`; and that the fixed sources type-check.
@Suite("reactive-diag fix")
struct FixCommandTests {
    /// One source file of the corpus and the finding that points into it.
    struct Case {
        var name: String
        /// Text on the line the finding points at: the capturing closure, or the call.
        var marker: String
        var source: String
        var kind: Kind

        enum Kind {
            /// A cycle closed by the closure on the marked line, capturing `name` strongly.
            case closure(captured: String?)
            /// A cycle through `Assign.object`, made on the marked line.
            case assign
            /// A `prematureCancellation` made on the marked line.
            case discarded
        }
    }

    static let corpus: [Case] = [
        Case(
            name: "Trailing", marker: "p.sink { self.value = $0 }",
            source: """
                final class Trailing {
                    var cancellables = Set<AnyCancellable>()
                    var value = 0
                    func bind(_ p: AnyPublisher<Int, Never>) {
                        p.sink { self.value = $0 }
                            .store(in: &cancellables)
                    }
                }
                """, kind: .closure(captured: "self")),
        Case(
            name: "Labelled", marker: "receiveValue: { self.headlines = $0 }",
            source: """
                final class Labelled {
                    var cancellables = Set<AnyCancellable>()
                    var headlines: [String] = []
                    var isLoading = false
                    func refresh(_ p: AnyPublisher<[String], Never>) {
                        p.sink(
                            receiveCompletion: { _ in self.isLoading = false },
                            receiveValue: { self.headlines = $0 }
                        )
                        .store(in: &cancellables)
                    }
                }
                """, kind: .closure(captured: "self")),
        Case(
            name: "CaptureList", marker: "p.sink { [service] value in",
            source: """
                final class CaptureList {
                    var cancellables = Set<AnyCancellable>()
                    let service = Service()
                    var total = 0
                    func bind(_ p: AnyPublisher<Int, Never>) {
                        p.sink { [service] value in
                            service.record(value)
                            self.total += value
                        }
                        .store(in: &cancellables)
                    }
                }
                """, kind: .closure(captured: "self")),
        Case(
            name: "UnownedSelf", marker: "p.sink { [unowned self] value in",
            source: """
                final class UnownedSelf {
                    var cancellables = Set<AnyCancellable>()
                    var count = 0
                    func bind(_ p: AnyPublisher<Int, Never>, model: Model) {
                        p.sink { [unowned self] value in
                            model.update(value)
                            self.count += 1
                        }
                        .store(in: &cancellables)
                    }
                }
                """, kind: .closure(captured: "model")),
        Case(
            name: "UnownedAlready", marker: "p.sink { [unowned self] in self.value = $0 }",
            source: """
                final class UnownedAlready {
                    var cancellables = Set<AnyCancellable>()
                    var value = 0
                    func bind(_ p: AnyPublisher<Int, Never>) {
                        p.sink { [unowned self] in self.value = $0 }
                            .store(in: &cancellables)
                    }
                }
                """, kind: .closure(captured: "self")),
        Case(
            name: "ExplicitSelf", marker: "p.sink { [self] in value = $0 }",
            source: """
                final class ExplicitSelf {
                    var cancellables = Set<AnyCancellable>()
                    var value = 0
                    func bind(_ p: AnyPublisher<Int, Never>) {
                        p.sink { [self] in value = $0 }
                            .store(in: &cancellables)
                    }
                }
                """, kind: .closure(captured: "self")),
        Case(
            name: "Nested", marker: "p.sink { value in",
            source: """
                final class Nested {
                    var cancellables = Set<AnyCancellable>()
                    var value = 0
                    func bind(_ p: AnyPublisher<Int, Never>) {
                        p.sink { value in
                            DispatchQueue.main.async { self.value = value }
                        }
                        .store(in: &cancellables)
                    }
                }
                """, kind: .closure(captured: "self")),
        Case(
            name: "MultiStatement", marker: "p.sink { names in",
            source: """
                final class MultiStatement {
                    var cancellables = Set<AnyCancellable>()
                    var names: [String] = []
                    var count = 0
                    func bind(_ p: AnyPublisher<[String], Never>) {
                        p.sink { names in
                            let sorted = names.sorted()
                            self.names = sorted
                            self.count = sorted.count
                        }
                        .store(in: &cancellables)
                    }
                }
                """, kind: .closure(captured: "self")),
        Case(
            name: "ReturnsValue", marker: "p.map { self.scale * $0 }",
            source: """
                final class ReturnsValue {
                    var cancellables = Set<AnyCancellable>()
                    var scale = 2
                    var value = 0
                    func bind(_ p: AnyPublisher<Int, Never>) {
                        p.map { self.scale * $0 }
                            .sink { [weak self] in self?.value = $0 }
                            .store(in: &cancellables)
                    }
                }
                """, kind: .closure(captured: "self")),
        Case(
            name: "ReturnsExplicitly", marker: "p.map { value -> Int in",
            source: """
                final class ReturnsExplicitly {
                    var cancellables = Set<AnyCancellable>()
                    var scale = 2
                    var value = 0
                    func bind(_ p: AnyPublisher<Int, Never>) {
                        p.map { value -> Int in
                            let scaled = value * self.scale
                            return scaled
                        }
                        .sink { [weak self] in self?.value = $0 }
                        .store(in: &cancellables)
                    }
                }
                """, kind: .closure(captured: "self")),
        Case(
            name: "AsyncTask", marker: "task = Task { await self.refresh() }",
            source: """
                final class AsyncTask {
                    var task: Task<Void, Never>?
                    func start() {
                        task = Task { await self.refresh() }
                    }
                    func refresh() async {}
                }
                """, kind: .closure(captured: "self")),
        Case(
            name: "AsyncMultiStatement", marker: "task = Task { @MainActor in",
            source: """
                final class AsyncMultiStatement {
                    var task: Task<Void, Never>?
                    var items: [Int] = []
                    func start() {
                        task = Task { @MainActor in
                            let loaded = await self.load()
                            self.items = loaded
                        }
                    }
                    func load() async -> [Int] { [] }
                }
                """, kind: .closure(captured: "self")),
        Case(
            name: "CapturedLocal", marker: "p.sink { model.update($0) }",
            source: """
                final class CapturedLocal {
                    var cancellables = Set<AnyCancellable>()
                    func bind(_ p: AnyPublisher<Int, Never>, model: Model) {
                        p.sink { model.update($0) }
                            .store(in: &model.cancellables)
                    }
                }
                """, kind: .closure(captured: "model")),
        Case(
            name: "RxSubscribe", marker: "observable.subscribe(onNext: { self.show($0) })",
            source: """
                final class RxSubscribe {
                    let bag = DisposeBag()
                    func bind(_ observable: Observable<String>) {
                        observable.subscribe(onNext: { self.show($0) })
                            .disposed(by: bag)
                    }
                    func show(_ text: String) {}
                }
                """, kind: .closure(captured: "self")),
        Case(
            name: "Callback", marker: "service.onChange = { value in",
            source: """
                final class Callback {
                    let service = Service()
                    var value = 0
                    func bind() {
                        service.onChange = { value in
                            self.value = value
                            self.log(value)
                        }
                    }
                    func log(_ value: Int) {}
                }
                """, kind: .closure(captured: "self")),
        Case(
            name: "AssignPublished", marker: ".assign(to: \\.title, on: self)",
            source: """
                final class AssignPublished {
                    var cancellables = Set<AnyCancellable>()
                    @Published var title = ""
                    func bind(_ p: AnyPublisher<String, Never>) {
                        p.map { $0.uppercased() }
                            .assign(to: \\.title, on: self)
                            .store(in: &cancellables)
                    }
                }
                """, kind: .assign),
        Case(
            name: "AssignPlain", marker: ".assign(to: \\.title, on: self)",
            source: """
                final class AssignPlain {
                    var cancellables = Set<AnyCancellable>()
                    var title = ""
                    func bind(_ p: AnyPublisher<String, Never>) {
                        p.map { $0.uppercased() }
                            .assign(to: \\.title, on: self)
                            .store(in: &cancellables)
                    }
                }
                """, kind: .assign),
        Case(
            name: "DiscardedOneBag", marker: "_ = p.sink { [weak self] in self?.image = $0 }",
            source: """
                final class DiscardedOneBag {
                    private var cancellables = Set<AnyCancellable>()
                    var image = ""
                    func load(_ p: AnyPublisher<String, Never>) {
                        _ = p.sink { [weak self] in self?.image = $0 }
                    }
                }
                """, kind: .discarded),
        Case(
            name: "DiscardedNoBag", marker: "_ = p.sink { [weak self] in self?.image = $0 }",
            source: """
                final class DiscardedNoBag {
                    var image = ""
                    func load(_ p: AnyPublisher<String, Never>) {
                        _ = p.sink { [weak self] in self?.image = $0 }
                    }
                }
                """, kind: .discarded),
        Case(
            name: "DiscardedTwoBags", marker: "_ = p.sink { [weak self] in self?.image = $0 }",
            source: """
                final class DiscardedTwoBags {
                    var cancellables = Set<AnyCancellable>()
                    var subscriptions: Set<AnyCancellable> = []
                    var image = ""
                    func load(_ p: AnyPublisher<String, Never>) {
                        _ = p.sink { [weak self] in self?.image = $0 }
                    }
                }
                """, kind: .discarded),
    ]

    /// Stand-ins for Combine, RxSwift and Foundation, so that the fixed corpus type-checks
    /// with `swiftc` alone.
    static let prelude = """
        final class AnyCancellable: Hashable {
            static func == (a: AnyCancellable, b: AnyCancellable) -> Bool { a === b }
            func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
            func store(in set: inout Set<AnyCancellable>) { set.insert(self) }
        }
        struct AnyPublisher<Output, Failure: Error> {
            func sink(receiveCompletion: @escaping (Int) -> Void, receiveValue: @escaping (Output) -> Void) -> AnyCancellable { AnyCancellable() }
            func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable { AnyCancellable() }
            func map<T>(_ transform: @escaping (Output) -> T) -> AnyPublisher<T, Failure> { AnyPublisher<T, Failure>() }
            func assign<Root>(to keyPath: ReferenceWritableKeyPath<Root, Output>, on object: Root) -> AnyCancellable { AnyCancellable() }
            func assign(to published: inout Published<Output>.Publisher) {}
        }
        @propertyWrapper struct Published<Value> {
            struct Publisher {}
            var wrappedValue: Value
            var projectedValue = Publisher()
            init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
        }
        final class Service {
            var onChange: ((Int) -> Void)?
            func record(_ value: Int) {}
        }
        final class Model {
            var cancellables = Set<AnyCancellable>()
            func update(_ value: Int) {}
        }
        final class DisposeBag {}
        struct Disposable { func disposed(by bag: DisposeBag) {} }
        struct Observable<Element> {
            func subscribe(onNext: ((Element) -> Void)? = nil) -> Disposable { Disposable() }
        }
        enum DispatchQueue {
            static let main = Main()
            struct Main { func async(execute work: @escaping () -> Void) { work() } }
        }

        """

    /// Writes the corpus into `directory` and a report with one finding per case.
    static func writeCorpus(
        _ cases: [Case], in directory: URL, withSourceText: Bool = true
    ) throws -> URL {
        var report = try ReportFixtures.load("cycle-report.json")
        let template = report.findings[0]
        report.findings = []
        report.stacks = []
        report.ledger.liveAtEnd = []
        for (index, entry) in cases.enumerated() {
            let file = directory.appendingPathComponent(entry.name + ".swift")
            try Data((entry.source + "\n").utf8).write(to: file)
            let lines = entry.source.split(separator: "\n", omittingEmptySubsequences: false)
            let line = try #require(lines.firstIndex { $0.contains(entry.marker) }, "\(entry.name)") + 1
            let stack = ReportStack(
                id: index + 1,
                frames: [
                    ReportFrame(
                        address: "0x\(index + 1)000", function: "\(entry.name).bind()", module: "App", category: .user,
                        file: file.path, line: line)
                ])
            report.stacks.append(stack)
            var finding = template
            finding.id = index + 1
            finding.fingerprint = String(format: "%016x", index + 1)
            finding.label = entry.name
            finding.test = "CorpusTests/\(entry.name)"
            finding.allocationStack = stack.id
            finding.eventStack = nil
            finding.relatedStack = nil
            let owner = ReportRetainStep(
                type: entry.name, module: "App", category: .user,
                links: [
                    ReportRetainLink(kind: .field, name: "cancellables", type: "Set<AnyCancellable>"),
                    ReportRetainLink(kind: .element, strength: .strong),
                ])
            let cancellable = ReportRetainStep(
                type: "AnyCancellable", module: "OpenCombine", category: .framework,
                links: [
                    ReportRetainLink(kind: .field, name: "_cancel"),
                    ReportRetainLink(kind: .capture, strength: .strong),
                ])
            switch entry.kind {
            case .closure(let captured):
                let closure = ReportClosure(
                    function: "closure #1 in \(entry.name).bind()", file: file.path, line: line, category: .user,
                    sourceText: withSourceText ? String(lines[line - 1]).trimmingCharacters(in: .whitespaces) : nil)
                let sink = ReportRetainStep(
                    type: "Sink<Int, Never>", module: "OpenCombine", category: .framework, isSubscription: true,
                    links: [
                        ReportRetainLink(kind: .field, name: "receiveValue", type: "(Int) -> ()"),
                        ReportRetainLink(kind: .closure, name: captured, closure: closure, strength: .strong),
                    ])
                finding.retainPath = ReportRetainPath(verdict: .cycle, cycle: [owner, cancellable, sink])
            case .assign:
                let assign = ReportRetainStep(
                    type: "Assign<\(entry.name), String>", module: "OpenCombine", category: .framework,
                    isSubscription: true,
                    links: [
                        ReportRetainLink(
                            kind: .field, name: "object", type: "Optional<\(entry.name)>", strength: .strong)
                    ])
                finding.retainPath = ReportRetainPath(verdict: .cycle, cycle: [owner, cancellable, assign])
            case .discarded:
                finding.kind = "prematureCancellation"
                finding.retainPath = nil
            }
            report.findings.append(finding)
        }
        let url = directory.appendingPathComponent("report.json")
        try ReportFixtures.write(report, to: url)
        return url
    }

    func fix(_ arguments: [String], in directory: URL) -> ToolRun {
        let out = StringSink()
        let err = StringSink()
        let code = ReactiveDiag.run(
            arguments: ["fix"] + arguments, stdout: out, stderr: err,
            environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""],
            currentDirectory: directory.path, extensions: .withFixes(currentDirectory: directory.path))
        return ToolRun(code: code, stdout: out.text, stderr: err.text)
    }

    @Test("golden diffs for the corpus: closures, capture lists, async, a captured local, assign(to:on:), bags")
    func corpusGolden() throws {
        let directory = try TemporaryDirectory()
        let report = try Self.writeCorpus(Self.corpus, in: directory.url)
        let run = fix([report.path], in: directory.url)
        #expect(run.code == 0, "\(run.stderr)")
        try Golden.assertMatches(run.stdout, "fix-corpus.diff")
        // Every case is accounted for in the header.
        for entry in Self.corpus {
            #expect(run.stdout.contains("\"\(entry.name)\" @ CorpusTests/\(entry.name): "), "\(entry.name)")
        }
        // The shapes without a mechanical fix say why.
        let header = run.stdout.split(separator: "\n").filter { $0.hasPrefix("# ") }
        func line(_ name: String) -> String { header.first { $0.contains("\"\(name)\"") }.map(String.init) ?? "" }
        #expect(line("ReturnsValue").contains("no mechanical fix: the closure's one expression may be its result"))
        #expect(line("ReturnsExplicitly").contains("no mechanical fix: the closure returns a value"))
        #expect(line("UnownedAlready").contains("no mechanical fix: the closure already captures `self` unowned"))
        #expect(line("DiscardedNoBag").contains("no mechanical fix: DiscardedNoBag has no Set<AnyCancellable>"))
        #expect(line("DiscardedTwoBags").contains("has 2 Set<AnyCancellable> properties (cancellables, subscriptions)"))
        #expect(line("Labelled").contains("and in the closure at line 7 passed to the same call"))
    }

    @Test("the fixed corpus type-checks with swiftc (stand-ins for Combine and RxSwift)")
    func fixedCorpusTypeChecks() async throws {
        guard let swiftc = try? await ProcessRunner.run("/usr/bin/env", arguments: ["swiftc", "--version"]),
            swiftc.status == 0
        else {
            Issue.record("swiftc is not on PATH")
            return
        }
        let directory = try TemporaryDirectory()
        let report = try Self.writeCorpus(Self.corpus, in: directory.url)
        // Before: the sources type-check as written (so the check below is about the fix).
        let prelude = directory.url.appendingPathComponent("Prelude.swift")
        try Data(Self.prelude.utf8).write(to: prelude)
        let files = [prelude.path] + Self.corpus.map { directory.url.appendingPathComponent($0.name + ".swift").path }
        let before = try await ProcessRunner.run(
            "/usr/bin/env", arguments: ["swiftc", "-typecheck", "-swift-version", "5"] + files, timeout: .seconds(300))
        #expect(before.status == 0, "\(before.standardError)")
        let run = fix([report.path, "--apply"], in: directory.url)
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stderr.contains("fixed Labelled.swift"))
        let after = try await ProcessRunner.run(
            "/usr/bin/env", arguments: ["swiftc", "-typecheck", "-swift-version", "5"] + files, timeout: .seconds(300))
        #expect(after.status == 0, "\(after.standardError)")
    }

    @Test("applying twice changes nothing: the second run says already fixed")
    func secondApply() throws {
        let directory = try TemporaryDirectory()
        let report = try Self.writeCorpus(Self.corpus, in: directory.url)
        let first = fix([report.path, "--apply"], in: directory.url)
        #expect(first.code == 0, "\(first.stderr)")
        let snapshot = try Self.corpus.map { try readText(directory.url.appendingPathComponent($0.name + ".swift")) }
        let second = fix([report.path, "--apply"], in: directory.url)
        #expect(second.code == 0, "\(second.stderr)")
        let after = try Self.corpus.map { try readText(directory.url.appendingPathComponent($0.name + ".swift")) }
        #expect(after == snapshot, "the second apply changed a file")
        #expect(!second.stdout.contains("\n--- a/"), "no diff the second time:\n\(second.stdout)")
        #expect(!second.stderr.contains("fixed "))
        let summary = try #require(second.stdout.split(separator: "\n").first)
        #expect(summary.contains("0 with a mechanical fix, 15 already fixed"), "\(summary)")
        #expect(second.stdout.contains("\"Labelled\" @ CorpusTests/Labelled: already fixed:"))
        #expect(second.stdout.contains("\"AssignPlain\" @ CorpusTests/AssignPlain: already fixed:"))
        #expect(second.stdout.contains("\"DiscardedOneBag\" @ CorpusTests/DiscardedOneBag: already fixed:"))
    }

    @Test("a line that changed since the report is refused, naming both texts")
    func changedLine() throws {
        let directory = try TemporaryDirectory()
        let cases = Self.corpus.filter { $0.name == "Trailing" }
        let report = try Self.writeCorpus(cases, in: directory.url)
        let file = directory.url.appendingPathComponent("Trailing.swift")
        let edited = try readText(file).replacingOccurrences(
            of: "p.sink { self.value = $0 }", with: "p.sink { self.value = $0 + 1 }")
        try Data(edited.utf8).write(to: file)
        let run = fix([report.path, "--apply"], in: directory.url)
        #expect(run.code == 1)
        #expect(
            run.stdout.contains(
                "refused: Trailing.swift:5 no longer matches the report: the report saw `p.sink { self.value = $0 }`,"
                    + " the file has `p.sink { self.value = $0 + 1 }`"), "\(run.stdout)")
        #expect(try readText(file) == edited, "nothing is written")
    }

    @Test("a report without the line's text: the check is said to be impossible, the shape is checked")
    func oldReportWithoutSourceText() throws {
        let directory = try TemporaryDirectory()
        let cases = Self.corpus.filter { $0.name == "Trailing" }
        let report = try Self.writeCorpus(cases, in: directory.url, withSourceText: false)
        let run = fix([report.path], in: directory.url)
        #expect(run.code == 0)
        #expect(run.stdout.contains("whether the line changed could not be checked"), "\(run.stdout)")
        #expect(run.stdout.contains("+        p.sink { [weak self] in self?.value = $0 }"))
        // A line that no longer has the expected shape is refused even so.
        let file = directory.url.appendingPathComponent("Trailing.swift")
        try Data(
            try readText(file).replacingOccurrences(
                of: "p.sink { self.value = $0 }", with: "p.sink(receiveValue: handle)"
            ).utf8
        )
        .write(to: file)
        let changed = fix([report.path], in: directory.url)
        #expect(changed.code == 1)
        #expect(changed.stdout.contains("refused: no closure opens at Trailing.swift:5"), "\(changed.stdout)")
    }

    @Test("--apply leaves a file with uncommitted git changes alone unless --force")
    func dirtyFile() async throws {
        let directory = try TemporaryDirectory()
        let cases = Self.corpus.filter { $0.name == "Trailing" }
        let report = try Self.writeCorpus(cases, in: directory.url)
        func git(_ arguments: [String]) async throws {
            let result = try await ProcessRunner.run(
                "/usr/bin/env",
                arguments: ["git", "-C", directory.url.path, "-c", "user.name=t", "-c", "user.email=t@example.com"]
                    + arguments)
            #expect(result.status == 0, "git \(arguments): \(result.standardError)")
        }
        try await git(["init", "-q"])
        try await git(["add", "Trailing.swift"])
        try await git(["commit", "-q", "-m", "corpus"])
        let file = directory.url.appendingPathComponent("Trailing.swift")
        let dirty = try readText(file) + "// a change not committed\n"
        try Data(dirty.utf8).write(to: file)
        let refused = fix([report.path, "--apply"], in: directory.url)
        #expect(refused.code == 1)
        #expect(
            refused.stdout.contains(
                "refused: Trailing.swift has uncommitted changes (git): commit or stash them, or pass --force"),
            "\(refused.stdout)")
        #expect(try readText(file) == dirty)
        let forced = fix([report.path, "--apply", "--force"], in: directory.url)
        #expect(forced.code == 0, "\(forced.stderr)")
        #expect(try readText(file).contains("p.sink { [weak self] in self?.value = $0 }"))
    }

    @Test("an ambiguous bag gets no fix, and the file is left alone")
    func ambiguousBag() throws {
        let directory = try TemporaryDirectory()
        let cases = Self.corpus.filter { $0.name == "DiscardedTwoBags" }
        let report = try Self.writeCorpus(cases, in: directory.url)
        let before = try readText(directory.url.appendingPathComponent("DiscardedTwoBags.swift"))
        let run = fix([report.path, "--apply"], in: directory.url)
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stdout.contains("no mechanical fix: DiscardedTwoBags has 2 Set<AnyCancellable> properties"))
        #expect(!run.stdout.contains("--- a/"))
        #expect(try readText(directory.url.appendingPathComponent("DiscardedTwoBags.swift")) == before)
    }

    @Test("SARIF carries the fixes as artifactChanges, valid against the 2.1.0 schema")
    func sarifFixes() async throws {
        let directory = try TemporaryDirectory()
        let report = try Self.writeCorpus(Self.corpus, in: directory.url)
        let out = StringSink()
        let err = StringSink()
        let code = ReactiveDiag.run(
            arguments: ["gate", report.path, "--sarif", "fix.sarif"], stdout: out, stderr: err,
            environment: ["PATH": ""],
            currentDirectory: directory.url.path, extensions: .withFixes(currentDirectory: directory.url.path))
        #expect(code == 1, "\(err.text)")
        let data = try Data(contentsOf: directory.url.appendingPathComponent("fix.sarif"))
        if let problems = try await SchemaValidators.sarifProblems(data) {
            #expect(problems == [])
        }
        let log = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let results = try #require((log["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])
        let withFixes = results.filter { $0["fixes"] != nil }
        #expect(withFixes.count == 15, "one per case with a mechanical fix")
        let trailing = try #require(
            results.first { (($0["properties"] as? [String: Any])?["labels"] as? [String]) == ["Trailing"] })
        let sarifFix = try #require((trailing["fixes"] as? [[String: Any]])?.first)
        #expect(
            ((sarifFix["description"] as? [String: Any])?["text"] as? String)?.hasPrefix("capture [weak self]") == true)
        let change = try #require((sarifFix["artifactChanges"] as? [[String: Any]])?.first)
        #expect((change["artifactLocation"] as? [String: Any])?["uri"] as? String == "Trailing.swift")
        let replacements = try #require(change["replacements"] as? [[String: Any]])
        // `p.sink {` + ` [weak self] in` after the brace, `?` after `self`.
        let regions = replacements.compactMap { $0["deletedRegion"] as? [String: Int] }
        #expect(
            regions == [
                ["startLine": 5, "startColumn": 17, "endLine": 5, "endColumn": 17],
                ["startLine": 5, "startColumn": 22, "endLine": 5, "endColumn": 22],
            ])
        #expect(
            replacements.compactMap { ($0["insertedContent"] as? [String: String])?["text"] } == [
                " [weak self] in", "?",
            ])
        // Applying the SARIF replacements gives what `fix --apply` writes.
        let source = try readText(directory.url.appendingPathComponent("Trailing.swift"))
        var lines = source.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.unicodeScalars) }
        for replacement in replacements.reversed() {
            let region = try #require(replacement["deletedRegion"] as? [String: Int])
            let text = (replacement["insertedContent"] as? [String: String])?["text"] ?? ""
            let line = region["startLine"]! - 1
            lines[line].replaceSubrange(
                (region["startColumn"]! - 1)..<(region["endColumn"]! - 1), with: Array(text.unicodeScalars))
        }
        let viaSARIF = lines.map { String(String.UnicodeScalarView($0)) }.joined(separator: "\n")
        _ = fix([report.path, "--apply"], in: directory.url)
        #expect(viaSARIF == (try readText(directory.url.appendingPathComponent("Trailing.swift"))))
    }

    @Test("the demo app's three mechanical fixes, as Tools/demo.sh applies them")
    func demoApp() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/Demo/Sources/NewsApp")
        let feed = try readText(sources.appendingPathComponent("FeedViewModel.swift"))
        let loader = try readText(sources.appendingPathComponent("ImageLoader.swift"))
        let cases = [
            Case(
                name: "FeedViewModel", marker: "receiveValue: { self.headlines = $0 }", source: feed,
                kind: .closure(captured: "self")),
            Case(
                name: "ImageLoader", marker: "_ = service.image(at: url).sink", source: loader, kind: .discarded),
            Case(name: "ImageLoader", marker: ".assign(to: \\.thumbnail, on: self)", source: loader, kind: .assign),
        ]
        let directory = try TemporaryDirectory()
        let report = try Self.writeCorpus(cases, in: directory.url)
        let before = try ["FeedViewModel", "ImageLoader"].map {
            try readText(directory.url.appendingPathComponent($0 + ".swift"))
        }
        let run = fix([report.path, "--apply"], in: directory.url)
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("# reactive-diag fix: 3 findings (3 distinct): 3 with a mechanical fix"))
        let fixedFeed = try readText(directory.url.appendingPathComponent("FeedViewModel.swift"))
        #expect(fixedFeed.contains("receiveCompletion: { [weak self] _ in self?.isLoading = false },"))
        #expect(fixedFeed.contains("receiveValue: { [weak self] in self?.headlines = $0 }"))
        let fixedLoader = try readText(directory.url.appendingPathComponent("ImageLoader.swift"))
        #expect(
            fixedLoader.contains(
                "service.image(at: url).sink { [weak self] in self?.image = $0 }.store(in: &cancellables)"))
        #expect(fixedLoader.contains(".sink { [weak self] in self?.thumbnail = $0 }"))
        #expect(!fixedLoader.contains(".assign(to: \\.thumbnail, on: self)"))
        // The fixes change no line count: every other line a report names stays put.
        let lineCounts = [fixedFeed, fixedLoader].map {
            $0.split(separator: "\n", omittingEmptySubsequences: false).count
        }
        #expect(lineCounts == before.map { $0.split(separator: "\n", omittingEmptySubsequences: false).count })
    }

    @Test("a file that does not parse as it is is not edited")
    func unparsableFile() throws {
        let directory = try TemporaryDirectory()
        let cases = Self.corpus.filter { $0.name == "Trailing" }
        let report = try Self.writeCorpus(cases, in: directory.url)
        let file = directory.url.appendingPathComponent("Trailing.swift")
        let broken = try readText(file) + "func unfinished( {\n"
        try Data(broken.utf8).write(to: file)
        let run = fix([report.path, "--apply"], in: directory.url)
        #expect(run.code == 1)
        #expect(
            run.stdout.contains("refused: Trailing.swift does not parse as it is (swift-syntax): nothing is changed"),
            "\(run.stdout)")
        #expect(try readText(file) == broken)
    }

    @Test("a report naming a device or a missing file: refused, nothing read or written")
    func unreadableSources() throws {
        let directory = try TemporaryDirectory()
        var report = try ReportFixtures.load("cycle-report.json")
        report.findings = [report.findings[0]]
        report.findings[0].retainPath?.cycle[2].links[1].closure?.file = "/dev/zero"
        let url = directory.url.appendingPathComponent("hostile.json")
        try ReportFixtures.write(report, to: url)
        let run = fix([url.path, "--apply"], in: directory.url)
        #expect(run.code == 1)
        #expect(run.stdout.contains("refused: cannot read /dev/zero (the closure at line 42)"), "\(run.stdout)")
        #expect(!run.stderr.contains("fixed "))
    }

    @Test("without the fixer registered (the library alone), there is no fix command and SARIF has no fixes")
    func libraryWithoutFixer() throws {
        let run = runTool(["fix", Fixtures.url("cycle-report.json").path])
        #expect(run.code == 2)
        #expect(run.stderr.contains("fix"), "\(run.stderr)")
    }
}

extension HTMLChromiumTests {
    @Test("the HTML page draws the cycle and shows the fix's diff under it")
    func fixOnThePage() async throws {
        let directory = try TemporaryDirectory()
        let report = try FixCommandTests.writeCorpus(
            FixCommandTests.corpus.filter { $0.name == "Trailing" || $0.name == "DiscardedNoBag" }, in: directory.url)
        let code = ReactiveDiag.run(
            arguments: ["html", report.path, "-o", "page.html"], stdout: StringSink(), stderr: StringSink(),
            environment: ["PATH": ""], currentDirectory: directory.url.path,
            extensions: .withFixes(currentDirectory: directory.url.path))
        #expect(code == 0)
        guard let page = try await Chromium.load(directory.url.appendingPathComponent("page.html").absoluteString)
        else { return }
        #expect(page.bodyAttribute("data-status") == "ready", "error: \(page.bodyAttribute("data-error") ?? "none")")
        #expect(
            page.dom.contains("<span class=\"node role-subscription\">Sink&lt;Int, Never&gt;</span>"), "\(page.dom)")
        #expect(
            page.dom.contains("<span class=\"edge cut back\"><span class=\"edge-label\">✂ captures `self` strongly"))
        #expect(
            page.dom.contains("<div class=\"fix\"><h4>fix: capture [weak self] in the closure at Trailing.swift:5</h4>")
        )
        #expect(page.dom.contains("<span class=\"diff-add\">+        p.sink { [weak self] in self?.value = $0 }"))
        #expect(page.dom.contains("<span class=\"diff-del\">-        p.sink { self.value = $0 }"))
        #expect(page.dom.contains("<h4>no mechanical fix: DiscardedNoBag has no Set&lt;AnyCancellable&gt; property"))
    }
}
