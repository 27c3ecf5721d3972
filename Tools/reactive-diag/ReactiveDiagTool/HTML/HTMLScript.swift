/// The page's script: reads the embedded view, builds the findings list with `textContent`
/// (never `innerHTML`), wires the filters (also read from and written to the URL's
/// fragment, `#kind=…&severity=…&test=…&label=…&q=…`) and reports its state on `<body>`:
/// `data-status` (`ready` or `error`), `data-error`, `data-groups-total`,
/// `data-groups-matching`, `data-groups-rendered` and `data-findings-rendered`.
enum HTMLScript {
    static let source = """
        (function () {
          "use strict";
          var body = document.body;
          window.onerror = function (message, source, line) {
            body.setAttribute("data-error", String(message) + " (line " + line + ")");
            body.setAttribute("data-status", "error");
          };
          var data = JSON.parse(document.getElementById("report-data").textContent);
          var stacks = {};
          data.stacks.forEach(function (stack) { stacks[stack.id] = stack; });
          var rank = { info: 0, warning: 1, error: 2 };
          var pageSize = 200;
          var limit = pageSize;
          var controls = {
            kind: document.getElementById("filter-kind"),
            severity: document.getElementById("filter-severity"),
            test: document.getElementById("filter-test"),
            label: document.getElementById("filter-label"),
            q: document.getElementById("filter-text")
          };
          var list = document.getElementById("findings-list");
          var countLine = document.getElementById("findings-count");
          var more = document.getElementById("show-more");

          function el(tag, className, text) {
            var node = document.createElement(tag);
            if (className) { node.className = className; }
            if (text !== undefined && text !== null) { node.textContent = String(text); }
            return node;
          }
          function unique(values) {
            var seen = {}, result = [];
            values.forEach(function (value) {
              if (!Object.prototype.hasOwnProperty.call(seen, value)) { seen[value] = true; result.push(value); }
            });
            return result.sort();
          }
          function addOptions(select, values) {
            values.forEach(function (value) {
              var option = el("option", null, value);
              option.value = value;
              select.appendChild(option);
            });
          }
          addOptions(controls.kind, unique(data.groups.map(function (group) { return group.kind; })));
          addOptions(controls.test, unique([].concat.apply([], data.groups.map(function (group) { return group.tests; }))));

          function frameName(frame) { return frame.name; }
          function where(frame) {
            if (!frame.file) { return ""; }
            var text = frame.file;
            if (frame.line) { text += ":" + frame.line; if (frame.column) { text += ":" + frame.column; } }
            return text;
          }
          var searchCache = [];
          function searchText(group, index) {
            if (searchCache[index] === undefined) {
              var parts = [group.kind, group.severity, group.message, group.fingerprint, group.location || "",
                group.retainPath ? group.retainPath.lines.join(" ") : ""]
                .concat(group.labels, group.tests);
              group.stacks.forEach(function (reference) {
                var stack = stacks[reference.stack];
                if (stack) { stack.frames.forEach(function (frame) { parts.push(frameName(frame), where(frame)); }); }
              });
              searchCache[index] = parts.join("\\n").toLowerCase();
            }
            return searchCache[index];
          }
          function currentFilter() {
            return {
              kind: controls.kind.value, severity: controls.severity.value, test: controls.test.value,
              label: controls.label.value.toLowerCase(), q: controls.q.value.toLowerCase()
            };
          }
          function matches(group, index, filter) {
            if (filter.kind && group.kind !== filter.kind) { return false; }
            if (filter.severity && rank[group.severity] < rank[filter.severity]) { return false; }
            if (filter.test && group.tests.indexOf(filter.test) < 0) { return false; }
            if (filter.label && !group.labels.some(function (label) {
              return label.toLowerCase().indexOf(filter.label) >= 0;
            })) { return false; }
            if (filter.q && searchText(group, index).indexOf(filter.q) < 0) { return false; }
            return true;
          }
          function frameItem(frame, highlighted) {
            var item = el("li", highlighted ? "user" : "other", (highlighted ? "\\u25b8 " : "  ") + "#" + frame.index + " " + frame.name);
            var location = where(frame);
            if (location) { item.appendChild(el("span", "where", "at " + location)); }
            return item;
          }
          function renderStack(reference) {
            var stack = stacks[reference.stack];
            var box = el("div", "stack");
            var title = reference.heading;
            box.appendChild(el("h4", null, title));
            if (!stack) { return box; }
            // The lines come folded by the shared presentation (FindingText), as show folds them.
            var frames = el("ol", "frames");
            stack.lines.forEach(function (line) {
              if (line.kind === "frame") {
                frames.appendChild(frameItem(stack.frames[line.frames[0]], line.highlighted));
              } else if (!line.frames.length) {
                frames.appendChild(el("li", "dropped", line.text));
              } else {
                var item = el("li", "folded");
                var fold = el("details");
                fold.appendChild(el("summary", null, line.text));
                var inner = el("ol", "frames");
                line.frames.forEach(function (index) { inner.appendChild(frameItem(stack.frames[index], false)); });
                fold.appendChild(inner);
                item.appendChild(fold);
                frames.appendChild(item);
              }
            });
            box.appendChild(frames);
            return box;
          }
          function renderSource(source) {
            var box = el("div", "source");
            var link = el("a", "source-link", source.path + ":" + source.line + (source.column ? ":" + source.column : ""));
            link.setAttribute("href", "file://" + encodeURI(source.file) + "#L" + source.line);
            box.appendChild(link);
            if (source.lines.length) {
              var code = el("pre", "excerpt");
              source.lines.forEach(function (text, offset) {
                var number = source.firstLine + offset;
                var row = el("span", number === source.line ? "hit" : null, String(number).padStart(5, " ") + "  " + text + "\\n");
                code.appendChild(row);
              });
              box.appendChild(code);
            }
            return box;
          }
          function fact(container, name, value) {
            container.appendChild(el("dt", null, name));
            container.appendChild(el("dd", null, value));
          }
          function renderGroup(group) {
            var details = el("details", "finding");
            details.setAttribute("data-severity", group.severity);
            details.setAttribute("data-fingerprint", group.fingerprint);
            var summary = el("summary");
            summary.appendChild(el("span", "badge sev-" + group.severity, group.severity));
            summary.appendChild(el("span", "kind", group.kind));
            summary.appendChild(el("span", "count", " \\u00d7" + group.count));
            if (group.labels.length) { summary.appendChild(el("span", "label", group.labels.map(function (label) {
              return "\\u201c" + label + "\\u201d"; }).join(", "))); }
            if (group.location) { summary.appendChild(el("span", "location", group.location)); }
            details.appendChild(summary);
            var content = el("div", "body");
            content.appendChild(el("p", "message", group.message));
            if (group.source) { content.appendChild(renderSource(group.source)); }
            var facts = el("dl", "facts");
            if (group.tests.length) { fact(facts, "tests", group.tests.join(", ")); }
            if (group.resourceKind) { fact(facts, "resource", group.resourceKind); }
            if (group.suppressedBy) { fact(facts, "suppressed by", group.suppressedBy); }
            Object.keys(group.details).sort().forEach(function (key) { fact(facts, key, group.details[key]); });
            fact(facts, "fingerprint", group.fingerprint);
            fact(facts, "findings", group.findingIDs.map(function (id) { return "#" + id; }).join(", "));
            content.appendChild(facts);
            if (group.chain) {
              var chain = el("div", "chain");
              chain.appendChild(el("h4", null, group.chain[0]));
              chain.appendChild(el("pre", null, group.chain.slice(1).map(function (line) {
                return line.replace(/^  /, "");
              }).join("\\n")));
              content.appendChild(chain);
            }
            if (group.retainPath) {
              var path = el("div", "retain-path verdict-" + group.retainPath.verdict);
              path.appendChild(el("h4", null, "why it is still alive"));
              if (group.retainPath.graph) { path.appendChild(renderGraph(group.retainPath.graph)); }
              path.appendChild(el("pre", null, group.retainPath.lines.join("\\n")));
              content.appendChild(path);
            }
            if (group.fix) {
              var fix = el("div", "fix");
              fix.appendChild(el("h4", null, group.fix.sentence));
              if (group.fix.diff) {
                var diff = el("pre", "diff");
                group.fix.diff.replace(/\\n$/, "").split("\\n").forEach(function (line) {
                  var kind = line.indexOf("@@") === 0 ? "hunk" : line.indexOf("+++") === 0 || line.indexOf("---") === 0
                    ? "file" : line.charAt(0) === "+" ? "add" : line.charAt(0) === "-" ? "del" : "ctx";
                  diff.appendChild(el("span", "diff-" + kind, line + "\\n"));
                });
                fix.appendChild(diff);
              }
              content.appendChild(fix);
            }
            group.stacks.forEach(function (reference) { content.appendChild(renderStack(reference)); });
            details.appendChild(content);
            return details;
          }
          function renderGraph(graph) {
            var box = el("div", "retain-graph");
            graph.nodes.forEach(function (node, index) {
              box.appendChild(el("span", "node role-" + node.role, node.label));
              var edge = graph.edges[index];
              if (!edge) { return; }
              var last = index === graph.nodes.length - 1;
              var arrow = el("span", "edge" + (edge.cut ? " cut" : "") + (last ? " back" : ""));
              arrow.appendChild(el("span", "edge-label", (edge.cut ? "\\u2702 " : "") + edge.label));
              arrow.appendChild(el("span", "edge-arrow", last ? "\\u21a9 back to " + graph.nodes[0].label : "\\u2192"));
              box.appendChild(arrow);
            });
            return box;
          }
          function writeHash(filter) {
            var parts = [];
            Object.keys(filter).forEach(function (key) {
              var value = controls[key].value;
              if (value) { parts.push(encodeURIComponent(key) + "=" + encodeURIComponent(value)); }
            });
            try { history.replaceState(null, "", parts.length ? "#" + parts.join("&") : location.pathname); } catch (ignored) {}
          }
          function readHash() {
            location.hash.replace(/^#/, "").split("&").forEach(function (part) {
              var pair = part.split("=");
              if (pair.length === 2 && Object.prototype.hasOwnProperty.call(controls, pair[0])) {
                controls[pair[0]].value = decodeURIComponent(pair[1]);
              }
            });
          }
          function render() {
            var filter = currentFilter();
            var matching = [];
            data.groups.forEach(function (group, index) { if (matches(group, index, filter)) { matching.push(group); } });
            list.textContent = "";
            var findings = 0;
            var fragment = document.createDocumentFragment();
            matching.slice(0, limit).forEach(function (group) { fragment.appendChild(renderGroup(group)); findings += group.count; });
            list.appendChild(fragment);
            var rendered = Math.min(limit, matching.length);
            countLine.textContent = matching.length + " of " + data.groups.length + " fingerprints match"
              + (rendered < matching.length ? ", first " + rendered + " shown" : "");
            more.hidden = rendered >= matching.length;
            body.setAttribute("data-groups-total", String(data.groups.length));
            body.setAttribute("data-groups-matching", String(matching.length));
            body.setAttribute("data-groups-rendered", String(rendered));
            body.setAttribute("data-findings-rendered", String(findings));
          }
          Object.keys(controls).forEach(function (key) {
            controls[key].addEventListener("input", function () { limit = pageSize; writeHash(currentFilter()); render(); });
          });
          more.addEventListener("click", function () { limit += pageSize; render(); });
          document.getElementById("expand-all").addEventListener("click", function () {
            list.querySelectorAll("details.finding").forEach(function (node) { node.open = true; });
          });
          document.getElementById("collapse-all").addEventListener("click", function () {
            list.querySelectorAll("details.finding").forEach(function (node) { node.open = false; });
          });
          readHash();
          render();
          if (body.getAttribute("data-status") !== "error") { body.setAttribute("data-status", "ready"); }
        })();
        """
}
