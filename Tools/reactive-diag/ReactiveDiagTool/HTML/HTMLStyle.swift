/// The page's style sheet (inline; the page loads nothing).
enum HTMLStyle {
    static let css = """
        :root{color-scheme:light dark;--fg:#1d1f21;--bg:#fff;--muted:#6a737d;--line:#d0d7de;--panel:#f6f8fa;\
        --error:#cf222e;--warning:#9a6700;--info:#0969da;--user:#0550ae;--bar:#54aeff}
        @media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8b949e;--line:#30363d;\
        --panel:#161b22;--error:#ff7b72;--warning:#d29922;--info:#58a6ff;--user:#79c0ff;--bar:#1f6feb}}
        body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg);\
        margin:0 auto;max-width:1200px;padding:16px 24px}
        h1{font-size:22px;margin:8px 0}h2{font-size:18px;border-bottom:1px solid var(--line);padding-bottom:4px;margin-top:28px}
        dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0}dt{color:var(--muted)}dd{margin:0}
        .cards{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}
        .card{border:1px solid var(--line);border-radius:6px;padding:8px 14px;min-width:90px;background:var(--panel)}
        .card .value{display:block;font-size:22px;font-weight:600}.card .name{color:var(--muted)}
        .card.error .value,.sev-error{color:var(--error)}.card.warning .value,.sev-warning,.warning{color:var(--warning)}
        .card.info .value,.sev-info{color:var(--info)}.muted{color:var(--muted)}
        table{border-collapse:collapse;margin:12px 0;width:100%}caption{text-align:left;font-weight:600;padding:4px 0}
        th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
        th{color:var(--muted);font-weight:500;white-space:nowrap}td.n,th.n{text-align:right;white-space:nowrap}
        figure{margin:12px 0;overflow-x:auto}figcaption{color:var(--muted)}
        svg.chart text{fill:var(--fg);font-size:12px}svg.chart rect{fill:var(--bar)}svg.chart text.axis{fill:var(--muted)}
        svg.chart line.axis{stroke:var(--line)}svg.chart .marker line{stroke:var(--error);stroke-dasharray:3 3}
        svg.chart .marker text{fill:var(--error);font-size:11px}
        .filters{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:center;margin:10px 0}
        .filters input,.filters select{font:inherit}
        details.finding{border:1px solid var(--line);border-radius:6px;margin:8px 0;background:var(--panel)}
        details.finding>summary{cursor:pointer;padding:6px 10px;list-style-position:outside}
        details.finding>.body{padding:4px 14px 10px;background:var(--bg);border-top:1px solid var(--line)}
        .badge{font-weight:700;text-transform:uppercase;font-size:12px;margin-right:6px}.kind{font-weight:600}
        .label,.location{margin-left:8px}.location{color:var(--muted)}
        .facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:6px 0}
        .stack h4,.retain-path h4{margin:10px 0 2px;font-size:13px}
        .retain-path pre{margin:0;padding-left:8px;font:12px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace;white-space:pre-wrap}
        .retain-path.verdict-cycle pre{color:var(--user)}
        .retain-graph{display:flex;flex-wrap:wrap;align-items:center;gap:4px;margin:6px 0 8px;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
        .retain-graph .node{border:1px solid #888;border-radius:4px;padding:2px 6px;background:rgba(127,127,127,.08)}
        .retain-graph .role-owner,.retain-graph .role-closure,.retain-graph .role-property{border-color:var(--user);font-weight:600}
        .retain-graph .edge{display:inline-flex;flex-direction:column;align-items:center;color:#777;padding:0 2px}
        .retain-graph .edge-label{font-size:11px}
        .retain-graph .edge.cut{color:#c62828;font-weight:700}
        .retain-graph .edge.cut .edge-arrow{text-decoration:line-through}
        .fix h4{margin:10px 0 2px;font-size:13px}
        .fix pre.diff{margin:0;padding:4px 8px;font:12px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace;white-space:pre-wrap;background:rgba(127,127,127,.06)}
        .diff-add{color:#2e7d32}.diff-del{color:#c62828}.diff-hunk{color:#6a1b9a}.diff-file{font-weight:600}
        ol.frames{list-style:none;margin:0;padding-left:8px;font:12px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace}
        ol.frames li{overflow-wrap:anywhere}ol.frames li.user{color:var(--user);font-weight:600}
        ol.frames li.other,ol.frames li.folded summary,ol.frames li.dropped{color:var(--muted)}
        ol.frames .where{color:var(--muted);font-weight:400;margin-left:8px}
        .source{margin:6px 0}.source-link{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;color:var(--user)}
        pre.excerpt{margin:4px 0;padding:6px 8px;background:var(--panel);border:1px solid var(--line);border-radius:4px;\
        font:12px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace;overflow-x:auto}
        pre.excerpt span{display:block;white-space:pre}pre.excerpt span.hit{background:rgba(255,200,0,.25);font-weight:600}
        """
}
