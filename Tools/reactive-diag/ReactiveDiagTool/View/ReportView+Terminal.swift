import ReactiveDiagnosticsReport

extension ReportView {
    /// The view with every string from the report passed through ``TerminalText/sanitize(_:)``,
    /// for the text view. The JSON view keeps the report's strings exactly.
    func sanitizedForTerminal() -> ReportView {
        let clean = TerminalText.sanitize
        var view = self
        view.inputs = inputs.map(clean)
        view.run.processName = clean(run.processName)
        view.run.platform = clean(run.platform)
        view.run.toolchain = clean(run.toolchain)
        for index in view.run.tests.indices {
            view.run.tests[index].name = clean(run.tests[index].name)
        }
        for index in view.summary.findings.byKind.indices {
            view.summary.findings.byKind[index].kind = clean(summary.findings.byKind[index].kind)
        }
        for index in view.summary.live.byKind.indices {
            view.summary.live.byKind[index].kind = clean(summary.live.byKind[index].kind)
        }
        view.summary.live.sites = summary.live.sites.map { site in
            var site = site
            site.kind = clean(site.kind)
            site.label = clean(site.label)
            site.tests = site.tests.map(clean)
            site.location = site.location.map(clean)
            return site
        }
        view.summary.schedulers = summary.schedulers.map { scheduler in
            var scheduler = scheduler
            scheduler.label = clean(scheduler.label)
            scheduler.expectation = scheduler.expectation.map(clean)
            for index in scheduler.threads.indices {
                scheduler.threads[index].thread = clean(scheduler.threads[index].thread)
            }
            return scheduler
        }
        view.groups = groups.map { $0.sanitized(clean) }
        view.stacks = stacks.map { stack in
            var stack = stack
            stack.frames = stack.frames.map { $0.sanitized(clean) }
            stack.lines = stack.lines.map { line in
                var line = line
                line.text = clean(line.text)
                return line
            }
            return stack
        }
        return view
    }
}

extension GroupView {
    fileprivate func sanitized(_ clean: (String) -> String) -> GroupView {
        var group = self
        group.fingerprint = clean(fingerprint)
        group.kind = clean(kind)
        group.message = clean(message)
        group.labels = labels.map(clean)
        group.tests = tests.map(clean)
        group.resourceKind = resourceKind.map(clean)
        group.suppressedBy = suppressedBy.map(clean)
        group.details = Dictionary(
            details.map { (clean($0.key), clean($0.value)) }, uniquingKeysWith: { first, _ in first })
        group.location = location.map(clean)
        group.stacks = stacks.map { reference in
            var reference = reference
            let name = reference.thread?.name.map(clean)
            reference.thread?.name = name
            let queue = reference.thread?.queue.map(clean)
            reference.thread?.queue = queue
            reference.heading = clean(reference.heading)
            return reference
        }
        return group
    }
}

extension FrameView {
    fileprivate func sanitized(_ clean: (String) -> String) -> FrameView {
        var frame = self
        frame.name = clean(name)
        frame.function = function.map(clean)
        frame.symbol = symbol.map(clean)
        frame.module = module.map(clean)
        frame.file = file.map(clean)
        frame.image = image.map(clean)
        frame.offset = offset.map(clean)
        frame.address = clean(address)
        return frame
    }
}
