import Foundation

/// A structural validator for SARIF 2.1.0 logs: the required properties, their JSON types,
/// enumerated values and cross references (`ruleIndex` → `rules[ruleIndex].id == ruleId`) of
/// the objects the gate writes, after the OASIS specification and its JSON schema
/// (`additionalProperties: false`: unknown properties are reported too).
struct SARIFValidator {
    private(set) var problems: [String] = []

    /// Validates `data`; returns the problems found (empty when valid).
    static func validate(_ data: Data) -> [String] {
        var validator = SARIFValidator()
        guard let log = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return ["the log is not a JSON object"]
        }
        validator.log(log)
        return validator.problems
    }

    private mutating func fail(_ path: String, _ message: String) {
        problems.append("\(path): \(message)")
    }

    private mutating func keys(_ object: [String: Any], _ path: String, allowed: Set<String>, required: Set<String>) {
        for key in required where object[key] == nil { fail(path, "missing required property '\(key)'") }
        for key in object.keys where !allowed.contains(key) { fail(path, "unknown property '\(key)'") }
    }

    private mutating func string(_ value: Any?, _ path: String, required: Bool = false) -> String? {
        guard let value else {
            if required { fail(path, "missing") }
            return nil
        }
        guard let text = value as? String else {
            fail(path, "not a string")
            return nil
        }
        return text
    }

    private mutating func integer(_ value: Any?, _ path: String, minimum: Int) -> Int? {
        guard let value else { return nil }
        // JSONSerialization gives booleans as NSNumbers of type "c" (and 0 and 1 cast to Bool).
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c",
            number.doubleValue == number.doubleValue.rounded()
        else {
            fail(path, "not an integer")
            return nil
        }
        if number.intValue < minimum { fail(path, "less than \(minimum)") }
        return number.intValue
    }

    private mutating func object(_ value: Any?, _ path: String) -> [String: Any]? {
        guard let value else { return nil }
        guard let object = value as? [String: Any] else {
            fail(path, "not an object")
            return nil
        }
        return object
    }

    private mutating func array(_ value: Any?, _ path: String) -> [Any]? {
        guard let value else { return nil }
        guard let array = value as? [Any] else {
            fail(path, "not an array")
            return nil
        }
        return array
    }

    private mutating func absoluteURI(_ value: Any?, _ path: String) {
        guard let text = string(value, path) else { return }
        guard let url = URL(string: text), url.scheme != nil else { return fail(path, "'\(text)' is not an absolute URI") }
    }

    private mutating func message(_ value: Any?, _ path: String, required: Bool) {
        guard let message = object(value, path) else {
            if required { fail(path, "missing") }
            return
        }
        keys(message, path, allowed: ["text", "markdown", "id", "arguments", "properties"], required: [])
        if message["text"] == nil && message["id"] == nil { fail(path, "a message needs 'text' or 'id'") }
        _ = string(message["text"], path + ".text")
    }

    private mutating func log(_ log: [String: Any]) {
        keys(log, "$", allowed: ["$schema", "version", "runs", "inlineExternalProperties", "properties"],
             required: ["version", "runs"])
        if string(log["version"], "$.version") != "2.1.0" { fail("$.version", "must be \"2.1.0\"") }
        absoluteURI(log["$schema"], "$.$schema")
        guard let runs = array(log["runs"], "$.runs") else { return }
        for (index, value) in runs.enumerated() {
            if let run = object(value, "$.runs[\(index)]") { self.run(run, "$.runs[\(index)]") }
        }
    }

    private mutating func run(_ run: [String: Any], _ path: String) {
        keys(run, path, allowed: [
            "tool", "results", "originalUriBaseIds", "columnKind", "invocations", "artifacts", "properties",
            "automationDetails", "baselineGuid",
        ], required: ["tool"])
        if let kind = string(run["columnKind"], path + ".columnKind"), !["utf16CodeUnits", "unicodeCodePoints"].contains(kind) {
            fail(path + ".columnKind", "'\(kind)' is not a column kind")
        }
        if let bases = object(run["originalUriBaseIds"], path + ".originalUriBaseIds") {
            for (name, value) in bases {
                let basePath = path + ".originalUriBaseIds.\(name)"
                guard let base = object(value, basePath) else { continue }
                keys(base, basePath, allowed: ["uri", "uriBaseId", "index", "description", "properties"], required: [])
                if let uri = string(base["uri"], basePath + ".uri") {
                    absoluteURI(uri, basePath + ".uri")
                    if !uri.hasSuffix("/") { fail(basePath + ".uri", "a base URI must end with '/'") }
                }
            }
        }
        var ruleIDs: [String] = []
        if let tool = object(run["tool"], path + ".tool") {
            keys(tool, path + ".tool", allowed: ["driver", "extensions", "properties"], required: ["driver"])
            if let driver = object(tool["driver"], path + ".tool.driver") {
                ruleIDs = self.driver(driver, path + ".tool.driver")
            }
        }
        guard let results = array(run["results"], path + ".results") else { return }
        for (index, value) in results.enumerated() {
            if let result = object(value, path + ".results[\(index)]") {
                self.result(result, path + ".results[\(index)]", ruleIDs: ruleIDs)
            }
        }
    }

    private mutating func driver(_ driver: [String: Any], _ path: String) -> [String] {
        keys(driver, path, allowed: [
            "name", "version", "semanticVersion", "informationUri", "rules", "fullName", "organization", "properties",
        ], required: ["name"])
        _ = string(driver["name"], path + ".name", required: true)
        _ = string(driver["version"], path + ".version")
        _ = string(driver["semanticVersion"], path + ".semanticVersion")
        absoluteURI(driver["informationUri"], path + ".informationUri")
        var ids: [String] = []
        for (index, value) in (array(driver["rules"], path + ".rules") ?? []).enumerated() {
            let rulePath = path + ".rules[\(index)]"
            guard let rule = object(value, rulePath) else { continue }
            keys(rule, rulePath, allowed: [
                "id", "name", "shortDescription", "fullDescription", "defaultConfiguration", "helpUri", "help", "properties",
            ], required: ["id"])
            let id = string(rule["id"], rulePath + ".id", required: true) ?? ""
            if ids.contains(id) { fail(rulePath + ".id", "duplicate rule id '\(id)'") }
            ids.append(id)
            message(rule["shortDescription"], rulePath + ".shortDescription", required: false)
            if let configuration = object(rule["defaultConfiguration"], rulePath + ".defaultConfiguration") {
                keys(configuration, rulePath + ".defaultConfiguration", allowed: ["level", "enabled", "rank", "parameters", "properties"], required: [])
                level(configuration["level"], rulePath + ".defaultConfiguration.level")
            }
        }
        return ids
    }

    private mutating func level(_ value: Any?, _ path: String) {
        if let level = string(value, path), !["none", "note", "warning", "error"].contains(level) {
            fail(path, "'\(level)' is not a level")
        }
    }

    private mutating func result(_ result: [String: Any], _ path: String, ruleIDs: [String]) {
        keys(result, path, allowed: [
            "ruleId", "ruleIndex", "level", "message", "locations", "partialFingerprints", "fingerprints", "stacks",
            "baselineState", "properties", "kind", "rule", "relatedLocations", "codeFlows", "guid",
        ], required: ["message"])
        message(result["message"], path + ".message", required: true)
        level(result["level"], path + ".level")
        let ruleID = string(result["ruleId"], path + ".ruleId")
        if let index = integer(result["ruleIndex"], path + ".ruleIndex", minimum: -1), index >= 0 {
            if index >= ruleIDs.count {
                fail(path + ".ruleIndex", "\(index) is outside tool.driver.rules")
            } else if let ruleID, ruleIDs[index] != ruleID {
                fail(path + ".ruleIndex", "rules[\(index)] is '\(ruleIDs[index])', not the ruleId '\(ruleID)'")
            }
        }
        if let state = string(result["baselineState"], path + ".baselineState"),
            !["new", "unchanged", "updated", "absent"].contains(state) {
            fail(path + ".baselineState", "'\(state)' is not a baseline state")
        }
        if let prints = object(result["partialFingerprints"], path + ".partialFingerprints") {
            for (key, value) in prints { _ = string(value, path + ".partialFingerprints.\(key)") }
        }
        for (index, value) in (array(result["locations"], path + ".locations") ?? []).enumerated() {
            location(value, path + ".locations[\(index)]")
        }
        for (index, value) in (array(result["stacks"], path + ".stacks") ?? []).enumerated() {
            let stackPath = path + ".stacks[\(index)]"
            guard let stack = object(value, stackPath) else { continue }
            keys(stack, stackPath, allowed: ["message", "frames", "properties"], required: ["frames"])
            message(stack["message"], stackPath + ".message", required: false)
            for (position, frameValue) in (array(stack["frames"], stackPath + ".frames") ?? []).enumerated() {
                let framePath = stackPath + ".frames[\(position)]"
                guard let frame = object(frameValue, framePath) else { continue }
                keys(frame, framePath, allowed: ["location", "module", "threadId", "parameters", "properties"], required: [])
                location(frame["location"], framePath + ".location")
                _ = string(frame["module"], framePath + ".module")
            }
        }
        _ = object(result["properties"], path + ".properties")
    }

    private mutating func location(_ value: Any?, _ path: String) {
        guard let location = object(value, path) else { return }
        keys(location, path, allowed: [
            "id", "physicalLocation", "logicalLocations", "message", "annotations", "relationships", "properties",
        ], required: [])
        message(location["message"], path + ".message", required: false)
        if let physical = object(location["physicalLocation"], path + ".physicalLocation") {
            let physicalPath = path + ".physicalLocation"
            keys(physical, physicalPath, allowed: ["artifactLocation", "region", "contextRegion", "address", "properties"], required: [])
            if physical["artifactLocation"] == nil && physical["address"] == nil {
                fail(physicalPath, "needs an artifactLocation or an address")
            }
            if let artifact = object(physical["artifactLocation"], physicalPath + ".artifactLocation") {
                keys(artifact, physicalPath + ".artifactLocation", allowed: ["uri", "uriBaseId", "index", "description", "properties"], required: [])
                if let uri = string(artifact["uri"], physicalPath + ".artifactLocation.uri"), URL(string: uri) == nil {
                    fail(physicalPath + ".artifactLocation.uri", "'\(uri)' is not a URI reference")
                }
                _ = string(artifact["uriBaseId"], physicalPath + ".artifactLocation.uriBaseId")
            }
            if let region = object(physical["region"], physicalPath + ".region") {
                keys(region, physicalPath + ".region", allowed: [
                    "startLine", "startColumn", "endLine", "endColumn", "charOffset", "charLength", "byteOffset",
                    "byteLength", "snippet", "message", "sourceLanguage", "properties",
                ], required: [])
                _ = integer(region["startLine"], physicalPath + ".region.startLine", minimum: 1)
                _ = integer(region["startColumn"], physicalPath + ".region.startColumn", minimum: 1)
            }
        }
        for (index, value) in (array(location["logicalLocations"], path + ".logicalLocations") ?? []).enumerated() {
            let logicalPath = path + ".logicalLocations[\(index)]"
            guard let logical = object(value, logicalPath) else { continue }
            keys(logical, logicalPath, allowed: [
                "name", "index", "fullyQualifiedName", "decoratedName", "parentIndex", "kind", "properties",
            ], required: [])
            _ = string(logical["fullyQualifiedName"], logicalPath + ".fullyQualifiedName")
            _ = string(logical["kind"], logicalPath + ".kind")
        }
    }
}
