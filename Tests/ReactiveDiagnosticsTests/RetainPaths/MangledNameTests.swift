import ReactiveDiagnostics
import Testing
import ReactiveDiagnosticsRetainPaths

/// What the walker reads from capture types the runtime cannot (or must not) resolve: the
/// operators it handles itself, and the names it must never hand to the runtime.
@Suite struct MangledNameTests {
    @Test(arguments: [
        ("SaySSG", "value"),  // [String]
        ("\u{1}SgXw", "weak"),  // weak FeedViewModel?
        ("\u{1}Xo", "unowned"),
        ("\u{1}Xu", "unmanaged"),
        ("Siz_Xx", "box"),  // a captured var Int
        ("\u{1}SgXwz_Xx", "box"),  // a captured weak var
        ("SaySSGIegg_", "thick function"),  // @callee_guaranteed ([String]) -> ()
        ("SiIetgy_", "thin function"),  // @convention(thin)
        ("Ieg_Sg", "thick function"),  // (() -> ())? captured by value
        ("SiIetgy_Sg", "thin function"),
        ("SiSg", "value"),  // Int?
        ("x", "generic parameter 0 0"),
        ("q_", "generic parameter 0 1"),
        ("q0_", "generic parameter 0 2"),
        ("qd__", "generic parameter 1 0"),
    ])
    func storageIsReadFromTheLastOperator(name: String, expected: String) {
        #expect(RetainPathInspection.mangledName(name).storage == expected)
    }

    @Test(arguments: [
        ("SaySSG", false),
        ("\u{1}", false),
        ("11OpenCombine14AnyCancellableC", false),
        ("s5NeverO", false),
        ("xSg", true),  // T?
        ("7Element\u{1}QzIegn_Sg", true),  // ((T.Element) -> ())? : resolving it aborts
        ("Sayq_G", true),
        ("3BoxV", false),  // an identifier containing x is skipped
        ("10Foundation8IndexSetV", false),
        ("Sx", true),  // not an identifier: counts
    ])
    func namesThatMayNameGenericParametersAreRecognized(name: String, expected: Bool) {
        #expect(RetainPathInspection.mangledName(name).mayReferenceGenericParameters == expected)
    }
}
