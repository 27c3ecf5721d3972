import Foundation
import ReactiveDiagnosticsTestSupport

/// Validation of the gate's output against the standards' own schemas, with real validators:
/// SARIF against the official SARIF 2.1.0 JSON Schema through Python's `jsonschema`, JUnit XML
/// against Jenkins' JUnit XSD through `xmllint --schema` (both shipped in `Fixtures/Schemas`).
///
/// Each returns `nil` when its validator is not installed (after saying so on standard error):
/// `Tools/test.sh` installs both, so CI always validates.
enum SchemaValidators {
    /// The problems the official SARIF 2.1.0 schema finds in `log` (empty when valid), or `nil`
    /// without python3 and its `jsonschema` module.
    static func sarifProblems(_ log: Data) async throws -> [String]? {
        guard
            try await available(
                "/usr/bin/env", ["python3", "-c", "import jsonschema"], what: "python3 with jsonschema")
        else {
            return nil
        }
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("log.sarif")
        try log.write(to: file)
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1])); log = json.load(open(sys.argv[2]))
            validator = jsonschema.validators.validator_for(schema)
            validator.check_schema(schema)
            for error in sorted(validator(schema).iter_errors(log), key=lambda e: list(map(str, e.absolute_path))):
                print("$" + "".join("[%d]" % p if isinstance(p, int) else "." + p for p in error.absolute_path) + ": " + error.message[:300])
            """
        let result = try await ProcessRunner.run(
            "/usr/bin/env",
            arguments: ["python3", "-c", script, Fixtures.url("Schemas/sarif-schema-2.1.0.json").path, file.path])
        guard result.status == 0 else { return ["the validator failed: \(result.standardError)"] }
        return result.standardOutput.split(separator: "\n").map(String.init)
    }

    /// The problems Jenkins' JUnit XSD finds in `document` (empty when valid), or `nil` without
    /// `xmllint`.
    static func junitProblems(_ document: String) async throws -> [String]? {
        guard try await available("/usr/bin/env", ["xmllint", "--version"], what: "xmllint (libxml2-utils)") else {
            return nil
        }
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("junit.xml")
        try Data(document.utf8).write(to: file)
        let result = try await ProcessRunner.run(
            "/usr/bin/env",
            arguments: ["xmllint", "--noout", "--schema", Fixtures.url("Schemas/junit-10.xsd").path, file.path])
        if result.status == 0 { return [] }
        let problems = result.standardError.split(separator: "\n").map(String.init).filter {
            !$0.hasSuffix("fails to validate")
        }
        return problems.isEmpty ? ["xmllint exited \(result.status)"] : problems
    }

    private static func available(_ executable: String, _ arguments: [String], what: String) async throws -> Bool {
        let probe = try await ProcessRunner.run(executable, arguments: arguments)
        if probe.status != 0 {
            FileHandle.standardError.write(
                Data(
                    "skipping schema validation: \(what) is not installed (Tools/test.sh installs it)\n".utf8))
        }
        return probe.status == 0
    }
}
