import CReactiveDiagnostics
import Foundation
import _ReactiveDiagnosticsSupport
package import ReactiveDiagnosticsReport

/// Decides whose code a frame is (`FrameCategory`) from its demangled name and image.
///
/// Swift packages link statically, so the library, the frameworks and the user's code
/// usually share one image: the module has to be read from the symbol. Adapters and users
/// can add modules:
///
/// ```swift
/// FrameClassifier.shared.addFrameworkModules(["MyNetworkingKit"])   // fold it like a framework
/// ```
package final class FrameClassifier: Sendable {
    /// The classifier the engine uses.
    package static let shared = FrameClassifier()

    private struct Modules {
        var own: Set<String> = [
            "ReactiveDiagnostics", "ReactiveDiagnosticsReport", "CombineDiagnostics", "RxDiagnostics",
            "EffectDiagnostics", "ConcurrencyDiagnostics", "ReactiveDiagnosticsXCTest", "ReactiveDiagnosticsTesting",
            "CReactiveDiagnostics", "ReactiveDiagnosticsRetainPaths", "ReactiveDiagnosticsSymbolication",
            "_ReactiveDiagnosticsSupport", "_ReactiveDiagnosticsProcess",
        ]
        var framework: Set<String> = [
            "OpenCombine", "OpenCombineDispatch", "OpenCombineFoundation", "OpenCombineShim", "Combine",
            "CombineSchedulers", "RxSwift", "RxCocoa", "RxRelay", "RxBlocking", "RxTest", "XCTest",
            "Testing", "ConcurrencyExtras", "IssueReporting", "XCTestDynamicOverlay", "CasePaths",
        ]
        var system: Set<String> = [
            "Swift", "_Concurrency", "Foundation", "FoundationEssentials", "FoundationInternationalization",
            "FoundationNetworking", "Dispatch", "CoreFoundation", "_StringProcessing", "Synchronization",
            "Glibc", "Musl", "Darwin", "ObjectiveC", "__C", "_Volatile", "Observation", "Distributed",
        ]
    }

    private let modules = LockedValue(Modules())

    /// Creates a classifier with the default module lists.
    package init() {}

    /// Treat these modules as frameworks: folded in stack views, never the "user" frame.
    package func addFrameworkModules(_ names: some Sequence<String>) {
        modules.withLock { $0.framework.formUnion(names) }
    }

    /// Treat these modules as part of the diagnostics library (dropped from the top of stacks).
    package func addOwnModules(_ names: some Sequence<String>) {
        modules.withLock { $0.own.formUnion(names) }
    }

    /// Classifies a frame.
    package func category(module: String?, symbol: String?, imagePath: String?) -> FrameCategory {
        if let symbol, Self.isOwnCSymbol(symbol) {
            return .diagnostics
        }
        if symbol == "swift_task_create", imagePath?.contains("libswift_Concurrency") == false {
            // The test executable's own swift_task_create: the library's hook (task_hook.c).
            return .diagnostics
        }
        if let symbol, Self.isProcessEntry(symbol) {
            return .system
        }
        if let symbol, Self.isMacroExpansion(symbol), module.map({ !modules.withLock { $0.own }.contains($0) }) ?? true
        {
            // Code a macro wrote (Swift Testing's @Test expansion) is the framework's, not the user's.
            return .framework
        }
        if let module {
            let category: FrameCategory? = modules.withLock { modules in
                if modules.own.contains(module) { return .diagnostics }
                if modules.framework.contains(module) { return .framework }
                if modules.system.contains(module) { return .system }
                return nil
            }
            if let category {
                return category
            }
        }
        if let imagePath, let category = Self.category(ofImage: imagePath) {
            return category
        }
        return .user
    }

    /// Libraries outside the user's binary that the user does not write.
    package static func category(ofImage path: String) -> FrameCategory? {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        if file.hasPrefix("libXCTest") || file.hasPrefix("libTesting") || file.hasPrefix("lib_Testing") {
            return .framework
        }
        if file.hasPrefix("libunwind") {
            return .diagnostics
        }
        let systemPrefixes = [
            "libswift", "libdispatch", "libFoundation", "lib_Foundation", "libBlocksRuntime", "libc.",
            "libc-", "ld-linux", "libpthread", "libstdc++", "libgcc", "libm.", "libdyld", "libsystem",
            "libobjc",
        ]
        if systemPrefixes.contains(where: { file.hasPrefix($0) }) {
            return .system
        }
        return nil
    }

    /// `main`, `_start` and the C library's start-up: every stack ends in them.
    package static func isProcessEntry(_ symbol: String) -> Bool {
        symbol == "main" || symbol == "_start" || symbol == "__libc_start_main" || symbol == "__libc_start_call_main"
    }

    /// Mangled names of macro-generated declarations contain `fMp_` (peer), `fMf_`
    /// (freestanding), `fMm_` (member) or `fMe_` (extension) expansion markers.
    package static func isMacroExpansion(_ symbol: String) -> Bool {
        symbol.hasPrefix("$s")
            && (contains(symbol, "fMp_") || contains(symbol, "fMf_") || contains(symbol, "fMm_")
                || contains(symbol, "fMe_"))
    }

    package static func isOwnCSymbol(_ symbol: String) -> Bool {
        symbol.hasPrefix("rdiag_") || symbol.hasPrefix("_ULx86_64") || symbol.hasPrefix("_Ux86_64")
            || symbol.hasPrefix("_ULaarch64") || symbol.hasPrefix("_Uaarch64") || symbol == "unw_backtrace"
    }

    /// Whether a demangled name is compiler-generated glue (thunks, forwarders).
    package static func isGlue(_ function: String) -> Bool {
        // A resume point of an async forwarder (`(1) await resume partial function for partial
        // apply forwarder for …`) is the forwarder's.
        let function = function.hasPrefix("(") ? ReportFrame.readable(function) : function
        return contains(function, "thunk") || function.hasPrefix("partial apply")
            || function.hasPrefix("merged ") && isGlue(String(function.dropFirst(7)))
    }

    /// Whether `text` contains `word`: the C library's `strstr` over the string's own bytes
    /// (Foundation's `contains` bridges to `NSString` for each frame of each stack, and a
    /// byte loop over a `String.UTF8View` goes through generic collection code, several
    /// microseconds a frame in a debug build: the top of every stack is checked for glue each
    /// time a stack is named).
    package static func contains(_ text: String, _ word: String) -> Bool {
        text.withCString { haystack in word.withCString { strstr(haystack, $0) != nil } }
    }

    /// The module a demangled Swift name belongs to, or `nil` for C symbols and unknown shapes.
    ///
    /// Handles the forms the compiler produces: `(extension in M):…`, generic and function
    /// signature specializations, closures (`closure #1 (…) in M.f()`), protocol witnesses
    /// (`… in conformance M.T : P in M`), thunks and async resume functions, whose wrappers
    /// (`merged `, `static `, `partial apply forwarder for `, `default argument 2 of `…) are
    /// read past. Read in C (`rdiag_module_of_demangled`): every frame of every stack named asks
    /// it once, and the same scan in a debug build's Swift took 16 µs a name (0.5 µs in C).
    ///
    /// ```swift
    /// FrameClassifier.module(ofDemangled: "closure #1 () -> () in App.Store.send() -> ()")   // "App"
    /// ```
    package static func module(ofDemangled name: String) -> String? {
        var name = name
        return name.withUTF8 { bytes in
            var start = 0
            var length = 0
            guard let base = bytes.baseAddress, rdiag_module_of_demangled(base, bytes.count, &start, &length) == 1
            else { return nil }
            return String(decoding: UnsafeBufferPointer(start: base + start, count: length), as: UTF8.self)
        }
    }
}

extension FrameClassifier {
    /// The module and category of a frame named `symbol` (demangled: `function`) in `imagePath`;
    /// the thunks and forwarders the compiler wrote around the user's closures count as system
    /// code, so they fold away.
    package func classify(
        symbol: String?, function: String?, imagePath: String?
    ) -> (module: String?, category: FrameCategory) {
        let module = function.flatMap(Self.module(ofDemangled:))
        var category = category(module: module, symbol: symbol, imagePath: imagePath)
        if category == .user, let function, Self.isGlue(function) {
            category = .system
        }
        return (module, category)
    }

    /// How many frames at the top of a stack are the diagnostics library's own (with the
    /// compiler glue among them): what a stack drops so that its first frame is the code that
    /// called the library. A stack made only of the library's frames is kept whole (0).
    package static func ownLeadingFrameCount(_ frames: [(function: String?, category: FrameCategory)]) -> Int {
        // One pass: glue frames are dropped with the library's frame that follows them, so the
        // count only moves past a run of glue when an own frame ends it.
        var dropped = 0
        var index = 0
        while index < frames.count {
            let frame = frames[index]
            if frame.category == .diagnostics {
                index += 1
                dropped = index
            } else if let function = frame.function, isGlue(function) {
                index += 1
            } else {
                break
            }
        }
        return dropped == frames.count ? 0 : dropped
    }

    /// The modules SwiftPM generates for a test binary, folded like frameworks: `Name.xctest`
    /// gives `Name` and, when it ends in `PackageTests`, the matching `PackageDiscoveredTests`
    /// (the test list on Linux, whose closure numbers change whenever a test is added).
    ///
    /// ```swift
    /// FrameClassifier.generatedTestModules(processName: "FeedPackageTests.xctest")
    /// // ["FeedPackageTests", "FeedPackageDiscoveredTests"]
    /// ```
    package static func generatedTestModules(processName: String) -> [String] {
        guard processName.hasSuffix(".xctest") else { return [] }
        let runner = String(processName.dropLast(".xctest".count))
        guard runner.hasSuffix("PackageTests") else { return [runner] }
        return [runner, runner.dropLast("Tests".count) + "DiscoveredTests"]
    }

    /// A classifier as a test process of that name classifies: its generated test modules
    /// folded like frameworks.
    package static func of(process processName: String) -> FrameClassifier {
        let classifier = FrameClassifier()
        classifier.addFrameworkModules(generatedTestModules(processName: processName))
        return classifier
    }
}
