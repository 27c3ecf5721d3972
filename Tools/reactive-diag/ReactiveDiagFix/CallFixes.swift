import Foundation
import SwiftSyntax

/// The fixes placed at a call rather than a closure: `assign(to:on:)` and a discarded
/// `AnyCancellable`.
enum CallFixes {
    enum Outcome: Equatable {
        case edits([TextEdit], String)
        case alreadyFixed(String)
        case noFix(String)
        case refused(String)
    }

    /// Calls named `name` whose name is written on `line`.
    static func calls(named names: Set<String>, onLine line: Int, in source: SourceText) -> [FunctionCallExprSyntax] {
        final class Finder: SyntaxVisitor {
            let names: Set<String>
            let line: Int
            let source: SourceText
            var found: [FunctionCallExprSyntax] = []
            init(_ names: Set<String>, _ line: Int, _ source: SourceText) {
                self.names = names
                self.line = line
                self.source = source
                super.init(viewMode: .sourceAccurate)
            }
            override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
                if let member = node.calledExpression.as(MemberAccessExprSyntax.self),
                    names.contains(member.declName.baseName.text),
                    source.line(of: member.declName.positionAfterSkippingLeadingTrivia.utf8Offset) == line
                {
                    found.append(node)
                }
                return .visitChildren
            }
        }
        let finder = Finder(names, line, source)
        finder.walk(source.tree)
        return finder.found
    }

    // MARK: assign(to:on:)

    /// `assign(to: \.p, on: self)` → `assign(to: &$p)` when `p` is `@Published` in the type
    /// (and the call's cancellable is only stored), else `sink { [weak self] in self?.p = $0 }`.
    static func assign(at line: Int, in source: SourceText) -> Outcome {
        let assigns = calls(named: ["assign"], onLine: line, in: source).filter { call in
            call.arguments.map { $0.label?.text ?? "" } == ["to", "on"]
        }
        guard assigns.count == 1, let call = assigns.first,
            let member = call.calledExpression.as(MemberAccessExprSyntax.self)
        else {
            if assigns.count > 1 {
                return .refused("\(assigns.count) assign(to:on:) calls on line \(line): which one is ambiguous")
            }
            let text = source.lineText(line) ?? ""
            if text.contains("assign(to: &$") || (text.contains(".sink") && text.contains("[weak ")) {
                return .alreadyFixed("line \(line) has no assign(to:on:) any more")
            }
            return .refused(
                "no assign(to:on:) call on line \(line): the line changed since the report (it reads `\(text.trimmingCharacters(in: .whitespaces))`)"
            )
        }
        let arguments = Array(call.arguments)
        guard let keyPath = arguments[0].expression.as(KeyPathExprSyntax.self),
            let properties = propertyPath(keyPath)
        else {
            return .noFix("assign(to:on:) with a key path that is not a plain property path")
        }
        guard let object = arguments[1].expression.as(DeclReferenceExprSyntax.self), object.argumentNames == nil else {
            return .noFix("assign(to:on:) on an expression, not a variable: name it to capture it weakly")
        }
        let name = object.baseName.text
        // The @Published form, when the cancellable is not kept for anything but a bag.
        if name == "self", properties.count == 1, let type = call.ancestor(ClassDeclSyntax.self),
            isPublished(properties[0], in: type)
        {
            var end = call.endPositionBeforeTrailingTrivia
            var usedOtherwise = true
            var topmost = Syntax(call)
            if let storeAccess = call.parent?.as(MemberAccessExprSyntax.self),
                storeAccess.declName.baseName.text == "store",
                let storeCall = storeAccess.parent?.as(FunctionCallExprSyntax.self)
            {
                end = storeCall.endPositionBeforeTrailingTrivia
                topmost = Syntax(storeCall)
            }
            if topmost.parent?.is(CodeBlockItemSyntax.self) == true { usedOtherwise = false }
            if !usedOtherwise {
                var edits = [
                    TextEdit.replace(
                        member.declName.positionAfterSkippingLeadingTrivia, call.endPositionBeforeTrailingTrivia,
                        with: "assign(to: &$\(properties[0]))")
                ]
                if end != call.endPositionBeforeTrailingTrivia {
                    edits.append(.replace(call.endPositionBeforeTrailingTrivia, end, with: ""))
                }
                return .edits(
                    edits,
                    "assign(to: &$\(properties[0])) instead of assign(to:on: self): `\(properties[0])` is @Published, and"
                        + " the publisher's subscription then ends with the object (line \(line))")
            }
        }
        let path = properties.joined(separator: ".")
        return .edits(
            [
                .replace(
                    member.declName.positionAfterSkippingLeadingTrivia, call.endPositionBeforeTrailingTrivia,
                    with: "sink { [weak \(name)] in \(name)?.\(path) = $0 }")
            ],
            "sink { [weak \(name)] in \(name)?.\(path) = $0 } instead of assign(to:on: \(name)), which holds `\(name)`"
                + " strongly (line \(line))")
    }

    private static func propertyPath(_ keyPath: KeyPathExprSyntax) -> [String]? {
        var names: [String] = []
        for component in keyPath.components {
            guard let property = component.component.as(KeyPathPropertyComponentSyntax.self),
                property.genericArgumentClause == nil
            else { return nil }
            names.append(property.declName.baseName.text)
        }
        return names.isEmpty ? nil : names
    }

    private static func isPublished(_ property: String, in type: ClassDeclSyntax) -> Bool {
        type.memberBlock.members.contains { member in
            guard let variable = member.decl.as(VariableDeclSyntax.self),
                variable.attributes.contains(where: {
                    $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "Published"
                })
            else { return false }
            return variable.bindings.contains {
                $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == property
            }
        }
    }

    // MARK: A discarded AnyCancellable

    /// `_ = publisher.sink { … }` → `publisher.sink { … }.store(in: &bag)`, into the type's
    /// one `Set<AnyCancellable>`.
    static func store(at line: Int, in source: SourceText) -> Outcome {
        let found = calls(named: ["sink", "assign"], onLine: line, in: source)
        guard let call = found.last else {
            return .refused(
                "no sink or assign call on line \(line): the line changed since the report (it reads"
                    + " `\((source.lineText(line) ?? "").trimmingCharacters(in: .whitespaces))`)")
        }
        guard found.count == 1 else {
            return .refused("\(found.count) subscriptions on line \(line): which one is ambiguous")
        }
        // Up the chain: `.a(…).b(…)` after the call.
        var top = ExprSyntax(call)
        while let access = top.parent?.as(MemberAccessExprSyntax.self),
            let next = access.parent?.as(FunctionCallExprSyntax.self),
            next.calledExpression.id == access.id
        {
            if access.declName.baseName.text == "store" {
                return .alreadyFixed("the cancellable is stored (`.store(in:)`) on line \(line)")
            }
            top = ExprSyntax(next)
        }
        var discard: (start: AbsolutePosition, end: AbsolutePosition)?
        if let sequence = top.parent?.as(ExprListSyntax.self)?.parent?.as(SequenceExprSyntax.self) {
            let elements = Array(sequence.elements)
            guard elements.count == 3, elements[0].is(DiscardAssignmentExprSyntax.self),
                elements[1].is(AssignmentExprSyntax.self),
                elements[2].id == top.id, sequence.parent?.is(CodeBlockItemSyntax.self) == true
            else {
                return .noFix(
                    "the cancellable is kept in a variable or passed on: where it should live is the author's choice")
            }
            discard = (elements[0].positionAfterSkippingLeadingTrivia, elements[2].positionAfterSkippingLeadingTrivia)
        } else if top.parent?.is(CodeBlockItemSyntax.self) != true {
            return .noFix(
                "the cancellable is kept in a variable or passed on: where it should live is the author's choice")
        }
        // The type, and no closure between it and the statement (self would be captured).
        var node = Syntax(top).parent
        var typeDecl: Syntax?
        while let current = node {
            if current.is(ClosureExprSyntax.self) {
                return .noFix(
                    "the subscription is made inside a closure: storing it in the type's bag there would capture `self`"
                )
            }
            if current.is(ClassDeclSyntax.self) || current.is(ActorDeclSyntax.self) {
                typeDecl = current
                break
            }
            if current.is(StructDeclSyntax.self) || current.is(EnumDeclSyntax.self)
                || current.is(ExtensionDeclSyntax.self)
            {
                return .noFix(
                    "the subscription is made in a struct, enum or extension: the bag to keep it in is not in sight")
            }
            node = current.parent
        }
        guard let typeDecl, let members = typeDecl.asProtocol((any DeclGroupSyntax).self)?.memberBlock.members else {
            return .noFix("the subscription is not made in a class: no bag of its to keep it in")
        }
        let typeName =
            typeDecl.as(ClassDeclSyntax.self)?.name.text ?? typeDecl.as(ActorDeclSyntax.self)?.name.text ?? "the type"
        let bags = members.compactMap { member -> String? in
            guard let variable = member.decl.as(VariableDeclSyntax.self),
                !variable.modifiers.contains(where: { $0.name.text == "static" || $0.name.text == "class" })
            else { return nil }
            for binding in variable.bindings {
                let annotated = binding.typeAnnotation?.type.trimmedDescription.replacingOccurrences(of: " ", with: "")
                let initial = binding.initializer?.value.trimmedDescription.replacingOccurrences(of: " ", with: "")
                if annotated == "Set<AnyCancellable>" || (annotated == nil && initial == "Set<AnyCancellable>()") {
                    return binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
                }
            }
            return nil
        }
        guard bags.count == 1, let bag = bags.first else {
            if bags.isEmpty {
                return .noFix("\(typeName) has no Set<AnyCancellable> property to store the cancellable in")
            }
            return .noFix(
                "\(typeName) has \(bags.count) Set<AnyCancellable> properties (\(bags.joined(separator: ", "))):"
                    + " which one should keep it is the author's choice")
        }
        var edits = [TextEdit.insert(".store(in: &\(bag))", at: top.endPositionBeforeTrailingTrivia)]
        if let discard {
            edits.append(.replace(discard.start, discard.end, with: ""))
        }
        return .edits(
            edits, "store the AnyCancellable in `\(bag)` (.store(in: &\(bag))) instead of discarding it (line \(line))")
    }
}
