import SwiftSyntax

/// Adds a weak capture of `name` to a closure that captures it strongly, with the body
/// rewritten to do without it when it is gone: `name?.` when the body is one assignment or
/// call on it, else `guard let name else { return }` after `in`.
///
/// No edit adds or removes a line (the guard goes on the line of `in`), so every other line
/// a report names stays where it was.
enum CaptureFix {
    /// Why a closure cannot be given the weak capture mechanically, or that it has it already.
    enum Problem: Error, Equatable {
        case alreadyWeak
        case noFix(String)
    }

    /// Callees whose closures return nothing (subscriptions, tasks, callbacks), and labels of
    /// such closures: in them `name?.call()` and `guard … else { return }` are always valid.
    static let voidCallees: Set<String> = [
        "sink", "subscribe", "drive", "bind", "emit", "Task", "detached", "async", "asyncAfter", "handleEvents",
        "forEach", "addObserver", "onReceive", "perform", "schedule", "addTask", "observe",
    ]
    static let voidLabels: Set<String> = [
        "receiveValue", "receiveCompletion", "receiveSubscription", "receiveOutput", "receiveCancel",
        "receiveRequest", "onNext", "onError", "onCompleted", "onDisposed", "onSuccess", "onFailure", "completion",
        "completionHandler", "handler", "execute", "using", "operation",
    ]

    /// The edits that give `closure` a weak capture of `name`.
    static func edits(for closure: ClosureExprSyntax, capturing name: String) -> Result<[TextEdit], Problem> {
        var edits: [TextEdit] = []
        var forceGuard = false
        let signature = closure.signature
        // 1. The capture list.
        var inserted: (position: AbsolutePosition, text: String)?
        if let clause = signature?.capture {
            if let item = clause.items.first(where: { $0.name.text == name }) {
                switch item.specifier?.specifier.tokenKind {
                case .keyword(.weak)?:
                    return .failure(.alreadyWeak)
                case .keyword(.unowned)?:
                    return .failure(
                        .noFix(
                            "the closure already captures `\(name)` unowned, which does not keep it alive:"
                                + " the strong capture the report saw is not this one"))
                case nil:
                    if item.initializer != nil {
                        return .failure(
                            .noFix("`\(name)` is captured under an initializer (`[\(item.trimmedDescription)]`)"))
                    }
                    // `[self]`: explicit strong capture; implicit `self` in the body needs the guard.
                    edits.append(.insert("weak ", at: item.positionAfterSkippingLeadingTrivia))
                    forceGuard = true
                default:
                    return .failure(.noFix("`\(name)` is captured `\(item.specifier!.trimmedDescription)`"))
                }
            } else if let last = clause.items.last {
                let text = last.trailingComma == nil ? ", weak \(name)" : " weak \(name)"
                edits.append(.insert(text, at: last.endPositionBeforeTrailingTrivia))
            } else {
                edits.append(.insert("weak \(name)", at: clause.rightSquare.positionAfterSkippingLeadingTrivia))
            }
        } else if let signature {
            if signature.attributes.isEmpty {
                edits.append(.insert("[weak \(name)] ", at: signature.positionAfterSkippingLeadingTrivia))
            } else {
                edits.append(.insert(" [weak \(name)]", at: signature.attributes.endPositionBeforeTrailingTrivia))
            }
        } else {
            inserted = (closure.leftBrace.endPositionBeforeTrailingTrivia, " [weak \(name)] in")
        }

        // 2. The body.
        let statements = closure.statements
        if returnsValue(statements) {
            return .failure(
                .noFix(
                    "the closure returns a value: what it should return once `\(name)` is gone is the author's choice"))
        }
        let uses = references(to: name, in: Syntax(statements))
        if uses.isEmpty && !forceGuard {
            return .failure(
                .noFix("the closure does not name `\(name)`: the capture is implicit or in code it calls"))
        }
        let void = isVoidContext(closure)
        if !forceGuard, statements.count == 1, uses.count == 1, let root = chainRoot(of: statements.first!, void: void),
            root.id == uses[0].id
        {
            // `name.x = …` / `name.call()` → `name?.x = …` / `name?.call()`.
            if let inserted {
                edits.append(.insert(inserted.text + spacing(after: closure.leftBrace), at: inserted.position))
            }
            edits.append(.insert("?", at: root.endPositionBeforeTrailingTrivia))
            return .success(edits)
        }
        // The guard: valid when the closure returns nothing.
        let oneExpression = statements.count == 1 && statements.first!.item.is(ExprSyntax.self)
        if oneExpression && !void && !isAssignment(statements.first!) {
            return .failure(
                .noFix(
                    "the closure's one expression may be its result (not a known callback): whether it returns a value"
                        + " without `\(name)` is the author's choice"))
        }
        let guardText = " guard let \(name) else { return }"
        if let inserted {
            let onSameLine = statements.first.map { sameLine(closure.leftBrace, $0) } ?? false
            edits.append(
                .insert(inserted.text + guardText + (onSameLine ? ";" : ""), at: inserted.position))
            if onSameLine,
                !closure.leftBrace.trailingTrivia.contains(where: {
                    if case .spaces = $0 { return true }; return false
                })
            {
                edits[edits.count - 1].text += " "
            }
        } else if let signature {
            let onSameLine = statements.first.map { sameLine(signature.inKeyword, $0) } ?? false
            edits.append(
                .insert(guardText + (onSameLine ? ";" : ""), at: signature.inKeyword.endPositionBeforeTrailingTrivia))
        }
        return .success(edits)
    }

    /// Whether the closure holds `name` weakly already (in its capture list).
    static func capturesWeakly(_ closure: ClosureExprSyntax, _ name: String) -> Bool {
        closure.signature?.capture?.items.contains {
            $0.name.text == name && $0.specifier?.specifier.tokenKind == .keyword(.weak)
        } ?? false
    }

    /// A space after the brace when the body starts right after it (`{self.x}`).
    private static func spacing(after brace: TokenSyntax) -> String {
        brace.trailingTrivia.isEmpty && brace.nextToken(viewMode: .sourceAccurate)?.leadingTrivia.isEmpty != false
            ? " " : ""
    }

    private static func sameLine(_ token: TokenSyntax, _ statement: CodeBlockItemSyntax) -> Bool {
        !token.trailingTrivia.contains(where: \.isNewline) && !statement.leadingTrivia.contains(where: \.isNewline)
    }

    /// `return <value>` in the closure's own body (not in closures or functions inside it).
    static func returnsValue(_ statements: CodeBlockItemListSyntax) -> Bool {
        final class Finder: SyntaxVisitor {
            var found = false
            override func visit(_ node: ReturnStmtSyntax) -> SyntaxVisitorContinueKind {
                if node.expression != nil { found = true }
                return .skipChildren
            }
            override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
            override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
            override func visit(_ node: AccessorBlockSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
        }
        let finder = Finder(viewMode: .sourceAccurate)
        finder.walk(statements)
        return finder.found
    }

    /// Every reference to `name` in `node` (closures inside included).
    static func references(to name: String, in node: Syntax) -> [DeclReferenceExprSyntax] {
        final class Finder: SyntaxVisitor {
            let name: String
            var found: [DeclReferenceExprSyntax] = []
            init(_ name: String) {
                self.name = name
                super.init(viewMode: .sourceAccurate)
            }
            override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
                if node.baseName.text == name, node.argumentNames == nil { found.append(node) }
                return .visitChildren
            }
            override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
                // `.name` after a period is a member, not the variable: only its base counts.
                if let base = node.base { walk(base) }
                return .skipChildren
            }
        }
        let finder = Finder(name)
        finder.walk(node)
        return finder.found
    }

    /// For a statement `root.a.b = …` (or, in a closure that returns nothing, `root.a.call(…)`,
    /// with `await`/`try` before it): the reference at its root, when a member follows it.
    private static func chainRoot(of statement: CodeBlockItemSyntax, void: Bool) -> DeclReferenceExprSyntax? {
        guard var expression = statement.item.as(ExprSyntax.self) else { return nil }
        if let sequence = expression.as(SequenceExprSyntax.self) {
            let elements = Array(sequence.elements)
            guard elements.count == 3, elements[1].is(AssignmentExprSyntax.self) else { return nil }
            expression = elements[0]
        } else {
            while true {
                if let awaited = expression.as(AwaitExprSyntax.self) {
                    expression = awaited.expression
                } else if let tried = expression.as(TryExprSyntax.self), tried.questionOrExclamationMark == nil {
                    expression = tried.expression
                } else {
                    break
                }
            }
            guard expression.is(FunctionCallExprSyntax.self), void else { return nil }
        }
        // Walk down to the root; it must be followed by a member access.
        var node = expression
        while true {
            if let member = node.as(MemberAccessExprSyntax.self), let base = member.base {
                if let reference = base.as(DeclReferenceExprSyntax.self) {
                    return reference
                }
                node = base
            } else if let call = node.as(FunctionCallExprSyntax.self) {
                node = call.calledExpression
            } else if let subscriptCall = node.as(SubscriptCallExprSyntax.self) {
                node = subscriptCall.calledExpression
            } else if let optional = node.as(OptionalChainingExprSyntax.self) {
                node = optional.expression
            } else {
                return nil
            }
        }
    }

    private static func isAssignment(_ statement: CodeBlockItemSyntax) -> Bool {
        guard let sequence = statement.item.as(SequenceExprSyntax.self) else { return false }
        return sequence.elements.contains { $0.is(AssignmentExprSyntax.self) }
    }

    /// Whether the closure is one that returns nothing: an argument of a subscription, a task
    /// or a known callback, or declared `-> Void`.
    static func isVoidContext(_ closure: ClosureExprSyntax) -> Bool {
        if let returnType = closure.signature?.returnClause?.type.trimmedDescription {
            return returnType == "Void" || returnType == "()"
        }
        if let argument = closure.parent?.as(LabeledExprSyntax.self) {
            if let label = argument.label?.text, voidLabels.contains(label) { return true }
            if let call = argument.parent?.parent?.as(FunctionCallExprSyntax.self) {
                return voidCallees.contains(calleeName(call))
            }
            return false
        }
        if let element = closure.parent?.as(MultipleTrailingClosureElementSyntax.self) {
            if voidLabels.contains(element.label.text) { return true }
            if let call = element.parent?.parent?.as(FunctionCallExprSyntax.self) {
                return voidCallees.contains(calleeName(call))
            }
        }
        if let call = closure.parent?.as(FunctionCallExprSyntax.self), call.trailingClosure?.id == closure.id {
            return voidCallees.contains(calleeName(call))
        }
        return false
    }

    /// `sink` for `x.sink(…)`, `Task` for `Task { … }`.
    static func calleeName(_ call: FunctionCallExprSyntax) -> String {
        if let member = call.calledExpression.as(MemberAccessExprSyntax.self) {
            return member.declName.baseName.text
        }
        if let reference = call.calledExpression.as(DeclReferenceExprSyntax.self) {
            return reference.baseName.text
        }
        if let specialized = call.calledExpression.as(GenericSpecializationExprSyntax.self),
            let reference = specialized.expression.as(DeclReferenceExprSyntax.self)
        {
            return reference.baseName.text
        }
        return ""
    }

    /// The closures passed to the same call as `closure` (itself included): a subscriber holds
    /// them all, so a cycle through one is closed by any of them that captures the same name.
    static func siblings(of closure: ClosureExprSyntax) -> [ClosureExprSyntax] {
        var call: FunctionCallExprSyntax?
        if let argument = closure.parent?.as(LabeledExprSyntax.self) {
            call = argument.parent?.parent?.as(FunctionCallExprSyntax.self)
        } else if let element = closure.parent?.as(MultipleTrailingClosureElementSyntax.self) {
            call = element.parent?.parent?.as(FunctionCallExprSyntax.self)
        } else if let parent = closure.parent?.as(FunctionCallExprSyntax.self) {
            call = parent
        }
        guard let call else { return [closure] }
        var closures = call.arguments.compactMap { $0.expression.as(ClosureExprSyntax.self) }
        if let trailing = call.trailingClosure { closures.append(trailing) }
        closures += call.additionalTrailingClosures.map(\.closure)
        return closures
    }
}
