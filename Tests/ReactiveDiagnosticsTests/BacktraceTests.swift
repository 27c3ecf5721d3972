import Foundation
@_spi(Integration) import ReactiveDiagnostics
import Testing
import ReactiveDiagnosticsReport
import ReactiveDiagnosticsSymbolication

@Suite("Backtrace capture and symbolization")
struct BacktraceTests {
    @Test func stackCapturedInATestStartsInThatTest() {
        let engine = makeEngine()
        let id = engine.captureStack()
        let stack = engine.symbolize(id)
        #expect(stack.droppedFrames >= 1, "the library's own frames are dropped")
        let first = stack.frames.first?.function ?? ""
        #expect(first.contains("BacktraceTests.stackCapturedInATestStartsInThatTest"), "frame 0 is \(first)")
        #expect(stack.frames.first?.category == .user)
        #expect(stack.frames.first?.module == "ReactiveDiagnosticsTests")
    }

    @inline(never)
    func helperThatCaptures(_ engine: DiagnosticsEngine) -> StackID {
        engine.captureStack()
    }

    @Test func callerOfAHelperIsFrameOne() {
        let engine = makeEngine()
        let frames = engine.symbolize(helperThatCaptures(engine)).frames
        #expect(frames.first?.function?.contains("helperThatCaptures") == true)
        #expect(frames.dropFirst().first?.function?.contains("callerOfAHelperIsFrameOne") == true)
    }

    @Test func closuresAreNamedAfterTheirFunction() {
        let engine = makeEngine()
        let id = [1].map { _ in engine.captureStack() }[0]
        let first = engine.symbolize(id).frames.first?.function ?? ""
        #expect(first.contains("closure"), "frame 0 is \(first)")
        #expect(first.contains("closuresAreNamedAfterTheirFunction"))
        #expect(engine.symbolize(id).frames.first?.module == "ReactiveDiagnosticsTests")
    }

    @Test func depthIsRespected() {
        let engine = makeEngine()
        let addresses = engine.stacks.addresses(of: engine.captureStack(depth: 3))
        #expect(addresses.count == 3)
        #expect(StackCapture.captureAddresses(depth: 0).isEmpty)
        #expect(engine.captureStack(depth: 0) == .none)
    }

    @Test func allocationStacksFollowTheConfiguration() {
        let off = makeEngine { $0.capturesAllocationStacks = false }
        #expect(off.captureAllocationStack() == .none)
        let shallow = makeEngine { $0.stackDepth = 5 }
        #expect(shallow.stacks.addresses(of: shallow.captureAllocationStack()).count == 5)
    }

    @Test func framesNameTheirImageAndOffset() throws {
        let engine = makeEngine()
        let frame = try #require(engine.symbolize(engine.captureStack()).frames.first)
        let path = try #require(frame.imagePath)
        #expect(path.hasPrefix("/"), "image paths are absolute: \(path)")
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(frame.imageOffset != nil && frame.imageOffset! < frame.address)
        #if os(Linux)
        let buildID = try #require(frame.imageBuildID)
        #expect(buildID.allSatisfy(\.isHexDigit) && buildID.count >= 16)
        #endif
    }

    @Test func runtimeFramesAreSystemFrames() {
        let engine = makeEngine()
        let frames = engine.symbolize(engine.captureStack()).frames
        #expect(frames.contains { $0.category == .system }, "the test runs on the Swift runtime and Dispatch")
        #expect(!frames.contains { $0.category == .diagnostics && $0 == frames.first })
    }

    @Test func symbolsAreCachedByAddress() {
        // A symbolizer of its own: the shared one's cache grows with the tests running beside this.
        let symbolizer = Symbolizer()
        let address = StackCapture.captureAddresses(depth: 1)[0]
        let first = symbolizer.symbolize(address)
        let before = symbolizer.cachedCount
        let second = symbolizer.symbolize(address)
        #expect(first == second)
        #expect(symbolizer.cachedCount == before)
    }

    @Test func demanglesSwiftAndCxx() {
        #expect(Demangler.demangle("$s4main3fooyyF") == "main.foo() -> ()")
        #expect(Demangler.demangle("_ZN3foo3barEv") == "foo::bar()")
        #expect(Demangler.demangle("plain_c_function") == "plain_c_function")
        #expect(Demangler.demangle("") == "")
    }

    @Test(
        arguments: [
            ("ReactiveDiagnosticsTests.BacktraceTests.test() -> ()", "ReactiveDiagnosticsTests"),
            ("closure #1 (Swift.Int) -> Swift.Int in App.Feed.refresh() -> ()", "App"),
            ("implicit closure #2 () -> Swift.String in App.f(Lib.Type) -> ()", "App"),
            (
                "generic specialization <Swift.Int, Lib.X> of OpenCombine.PassthroughSubject.send(A) -> ()",
                "OpenCombine"
            ),
            (
                "(extension in CombineDiagnostics):OpenCombine.Publisher.diagnosed(_: Swift.String) -> X",
                "CombineDiagnostics"
            ),
            (
                "protocol witness for OpenCombine.Subscriber.receive(A.Input) -> OpenCombine.Subscribers.Demand in conformance CombineDiagnostics.DiagnosedSink<A> : OpenCombine.Subscriber in CombineDiagnostics",
                "CombineDiagnostics"
            ),
            ("partial apply forwarder for closure #1 () -> () in App.Store.send() -> ()", "App"),
            ("merged App.Model.load() -> ()", "App"),
            ("static App.Model.make() -> App.Model", "App"),
            ("(1) suspend resume partial function for App.Loader.load() async -> ()", "App"),
            (
                "(1) suspend resume partial function for $s24ReactiveDiagnosticsTests5smokefMu_",
                "ReactiveDiagnosticsTests"
            ),
            (
                "default argument 2 of ConcurrencyDiagnostics.withDiagnosedContinuation<A>(_: Swift.String) async -> A",
                "ConcurrencyDiagnostics"
            ),
            ("_dispatch_worker_thread", nil),
            ("swift::runJobInEstablishedExecutorContext(swift::Job*)", nil),
            // Shapes at the edges of the rule (read byte by byte in C since 2026-11-29).
            ("  static App.Model.make() -> App.Model", "App"),
            ("default argument 0 of App.f(x: Swift.Int) -> ()", "App"),
            ("protocol conformance descriptor for App.Model : Swift.Equatable in App", "App"),
            ("(extension in Lib", nil),
            ("closure #1", nil),
            ("generic specialization <Swift.Int of App.f<A>(A) -> ()", nil),
            ("$s3Foo", "Foo"),
            ("Café.Menu.price() -> Swift.Int", "Café"),
            (".hidden", nil),
            ("", nil),
        ] as [(String, String?)])
    func moduleIsReadFromDemangledNames(name: String, module: String?) {
        #expect(FrameClassifier.module(ofDemangled: name) == module)
    }

    /// Compiler glue has no line of its own, and a resume point of glue is glue: a task caught
    /// at its forwarder's first resume (`…fU0_TATQ0_`) left the buggy demo's report "partial".
    @Test func glueIsKnownInEachOfItsForms() {
        let glue = [
            "reabstraction thunk helper from @escaping @callee_guaranteed () -> () to @escaping @callee_unowned () -> ()",
            "partial apply forwarder for closure #1 () -> () in App.Model.start() -> ()",
            "merged partial apply forwarder for closure #1 () -> () in App.Model.start() -> ()",
            "(1) await resume partial function for partial apply forwarder for closure #2 () async -> () in App.Banner.start() -> ()",
            "(2) suspend resume partial function for reabstraction thunk helper from @escaping () async -> () to () async -> ()",
        ]
        let user = [
            "closure #2 () async -> () in App.Banner.start() -> ()",
            "(1) await resume partial function for closure #2 () async -> () in App.Banner.start() -> ()",
            "App.Thunkless.run() -> ()",
        ]
        for name in glue {
            #expect(FrameClassifier.isGlue(name), "\(name)")
            #expect(ReportFrame(address: "0x1", function: name).isCompilerGlue, "\(name)")
        }
        for name in user {
            #expect(!FrameClassifier.isGlue(name), "\(name)")
            #expect(!ReportFrame(address: "0x1", function: name).isCompilerGlue, "\(name)")
        }
        #expect(FrameClassifier.contains("a thunk", "thunk") && !FrameClassifier.contains("thun", "thunk"))
    }

    /// The library's frames at the top of a stack go, with the compiler glue between them; glue
    /// that leads to the user's frame stays with it.
    @Test func ownLeadingFramesAreDroppedWithTheGlueAmongThem() {
        typealias Frame = (function: String?, category: FrameCategory)
        let own: Frame = ("ReactiveDiagnostics.StackCapture.capture() -> ()", .diagnostics)
        let glue: Frame = ("reabstraction thunk helper from @escaping () -> () to @escaping () -> ()", .system)
        let user: Frame = ("App.Model.load() -> ()", .user)
        #expect(FrameClassifier.ownLeadingFrameCount([own, glue, own, user]) == 3)
        #expect(FrameClassifier.ownLeadingFrameCount([own, glue, glue, user]) == 1)
        #expect(FrameClassifier.ownLeadingFrameCount([glue, own, user]) == 2)
        #expect(FrameClassifier.ownLeadingFrameCount([glue, user]) == 0)
        #expect(FrameClassifier.ownLeadingFrameCount([own, glue]) == 1)
        #expect(FrameClassifier.ownLeadingFrameCount([own, own]) == 0, "a stack of the library's frames alone is kept")
        #expect(FrameClassifier.ownLeadingFrameCount([]) == 0)
    }

    /// A checkpoint names a leak's stacks on another thread while it walks the heap, and a
    /// recorded finding's for the report: what the warm-up named, the presentation then finds
    /// in the symbolizer's cache.
    @Test func aWarmedUpStackIsNamedAheadOnAnotherThread() throws {
        let symbolizer = Symbolizer()
        let engine = DiagnosticsEngine(
            configuration: Configuration(), symbolizer: symbolizer, sourceLineResolver: .shared)
        let stack = engine.captureAllocationStack()
        let addresses = Set(engine.stacks.addresses(of: stack))
        #expect(symbolizer.cachedCount == 0)
        let group = try #require(engine.warmUp([stack, .none], linesOf: [.user]))
        group.wait()
        #expect(symbolizer.cachedCount == addresses.count)
        #expect(engine.symbolize(stack).contains(function: "aWarmedUpStackIsNamedAheadOnAnotherThread"))
        #expect(symbolizer.cachedCount == addresses.count, "named from the cache")
        #expect(engine.warmUp([.none], linesOf: [.user]) == nil, "nothing to name")
    }

    @Test func classifierKnowsOwnFrameworkAndUserModules() {
        let classifier = FrameClassifier()
        #expect(classifier.category(module: "ReactiveDiagnostics", symbol: nil, imagePath: nil) == .diagnostics)
        #expect(classifier.category(module: "OpenCombine", symbol: nil, imagePath: nil) == .framework)
        #expect(classifier.category(module: "Foundation", symbol: nil, imagePath: nil) == .system)
        #expect(classifier.category(module: "MyApp", symbol: nil, imagePath: nil) == .user)
        #expect(classifier.category(module: nil, symbol: "rdiag_backtrace", imagePath: nil) == .diagnostics)
        #expect(classifier.category(module: nil, symbol: "start_thread", imagePath: "/usr/lib/libc.so.6") == .system)
        classifier.addFrameworkModules(["MyNetworking"])
        #expect(classifier.category(module: "MyNetworking", symbol: nil, imagePath: nil) == .framework)
    }
}
