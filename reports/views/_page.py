"""The page around matrix.html's tables: its stylesheet and Jinja template (autoescaped), inlined, no network."""

from __future__ import annotations

from harness.outputs import CHANGES_CSV, COMPAT_CSV
from reports.views.present import stylesheet

#: Hover box of a status or timing cell (reports/views/grid.py): hidden until its cell is hovered.
TOOLTIP = (
    "visibility: hidden; position: absolute; z-index: 10; top: 100%; left: 0; margin-top: 2px;"
    " width: max-content; max-width: 42em; padding: 6px 9px; border-radius: 6px;"
    " background: #1f2328; color: #f6f8fa; font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;"
    " text-align: left; white-space: pre-wrap; overflow-wrap: anywhere; box-shadow: 0 4px 14px rgba(0,0,0,.25);"
    " pointer-events: none;"
)

CSS = (
    """
:root { color-scheme: light; }
body { margin: 24px 32px 64px; color: #1f2328; background: #fff;
  font: 13px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
h1 { font-size: 22px; margin: 0 0 2px; }
h2 { font-size: 16px; margin: 30px 0 8px; padding-bottom: 4px; border-bottom: 1px solid #d8dee4; }
h3 { font-size: 13px; margin: 18px 0 6px; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
p.meta { margin: 0 0 12px; color: #59636e; }
p.note { margin: 0 0 8px; color: #59636e; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
nav a { margin-right: 14px; color: #0969da; text-decoration: none; }
nav a:hover { text-decoration: underline; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 8px; margin: 12px 0 4px; padding: 0; list-style: none; }
.legend li { display: flex; align-items: center; gap: 6px; padding: 3px 9px 3px 3px; border: 1px solid #d8dee4;
  border-radius: 14px; background: #fff; white-space: nowrap; }
.legend .sym { display: inline-block; min-width: 20px; height: 20px; line-height: 20px; border-radius: 10px;
  text-align: center; font-weight: 700; }
.legend .n { font-variant-numeric: tabular-nums; font-weight: 600; }
.legend li.empty { opacity: .45; }
.legend li[title] { cursor: help; }
table { border-collapse: collapse; margin: 4px 0 8px; }
th, td { border: 1px solid #d8dee4; padding: 3px 7px; }
thead th { background: #f6f8fa; font-weight: 600; text-align: center; white-space: nowrap; }
tbody th { background: #fff; font-weight: 400; text-align: left; white-space: nowrap;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
thead th.index_name, thead th.blank { background: #fff; color: #59636e; font-weight: 400; text-align: right;
  font-style: italic; }
table.matrix tbody th.level1, table.timing tbody th.level1 { max-width: 30em; overflow: hidden;
  text-overflow: ellipsis; }
table.matrix thead th.col_heading, table.timing thead th.col_heading { min-width: 3.6em; font-size: 11.5px;
  font-variant-numeric: tabular-nums; padding: 2px 3px; }
table.matrix thead tr:last-child th.col_heading, table.timing thead tr:last-child th.col_heading
  { color: #0969da; }
td { position: relative; }
table.matrix thead, table.timing thead { position: sticky; top: 0; z-index: 6; }
table.matrix tbody th.level0, table.timing tbody th.level0 { vertical-align: top; font-weight: 600;
  background: #f6f8fa; border-top: 2px solid #8c959f; }
tr:has(td.group-start) th, td.group-start { border-top: 2px solid #8c959f; }
td.status { text-align: center; font-weight: 700; font-size: 14px; padding: 2px 0; cursor: default; }
td.status:hover, table.timing td:hover { outline: 2px solid #1f2328; outline-offset: -2px; z-index: 5; }
td.none { background: #fff; }
/* A flaky result: its status colour, ringed and badged in orange (the badge is the legend's flaky mark). */
td.status.flaky { box-shadow: inset 0 0 0 2px #fb8500; }
td.status.flaky::before { content: "\\21BB"; position: absolute; top: 1px; right: 1px; min-width: 11px;
  height: 11px; border-radius: 6px; background: #fb8500; color: #fff; font-size: 9px; line-height: 11px;
  font-weight: 700; text-align: center; }
td.chip.flaky { box-shadow: inset 0 0 0 2px #fb8500; }
/* A case an interrupted cell never reached: hatched, not blank, so it does not read as "not collected". */
td.status.incomplete { background: repeating-linear-gradient(135deg, #fff 0 4px, #ffe2c7 4px 6px); }
.alert { margin: 12px 0; padding: 8px 12px; border: 1px solid #fb8500; border-left-width: 5px;
  border-radius: 6px; background: #fff8f0; }
.alert ul { margin: 4px 0 0; padding-left: 20px; }
.legend .sep { border: 0; padding: 0; margin: 0 2px; width: 1px; align-self: stretch; background: #d8dee4;
  border-radius: 0; }
table.matrix .pd-t, table.timing .pd-t { """ + TOOLTIP + """ }
td:hover > .pd-t { visibility: visible; }
/* Tooltips of the last columns open leftwards, so they stay on screen. */
table.matrix td:nth-last-child(-n+5) .pd-t, table.timing td:nth-last-child(-n+5) .pd-t
  { left: auto !important; right: 0; }
table.timing td { text-align: right; font-variant-numeric: tabular-nums; font-size: 12px; padding: 2px 5px; }
table.cells td { font-variant-numeric: tabular-nums; white-space: nowrap; }
table.cells td.count { text-align: right; font-weight: 600; min-width: 2.4em; }
table.cells td.zero { color: #afb8c1; text-align: right; }
table.cells tbody th { color: #0969da; font-weight: 600; }
table.cells td.badge-incomplete { font-weight: 600; }
table.problems td, table.warnings td { vertical-align: top; }
table.problems thead th, table.warnings thead th { text-align: left; }
table.problems td.col0, table.warnings td.col2 { white-space: nowrap; }
table.warnings td.col1 { text-align: right; font-variant-numeric: tabular-nums; }
table.problems td.col1 { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px;
  white-space: nowrap; }
table.problems td.col3 { max-width: 70em; overflow-wrap: anywhere; }
td.chip { white-space: nowrap; font-weight: 600; }
.frontier-scroll { overflow-x: auto; max-width: 100%; }
table.frontier td, table.frontier th { padding: 2px 5px; text-align: center; white-space: nowrap; }
ul.frontier-lines code { white-space: normal; }
table.frontier tbody th { text-align: right; }
.frontier-works { background: #d3f5dc; color: #116329; }
.frontier-broken { background: #ffcfcc; color: #a40e26; }
.frontier-in-range { background: #eef9f0; }
.frontier-declared { background: #f6f8fa; }
footer { margin-top: 36px; color: #59636e; font-size: 12px; }
table.compat th, table.compat td { padding: 3px 5px; }
table.compat thead th { font-variant-numeric: tabular-nums; }
table.compat thead th.corner { color: #59636e; font-weight: 400; font-style: italic; }
table.compat tbody th { font-weight: 600; text-align: right; }
table.compat td { vertical-align: top; }
table.compat thead th { font-size: 11.5px; padding: 2px 4px; }
table.compat td.empty { background: repeating-linear-gradient(135deg, #fff 0 5px, #f6f8fa 5px 7px); }
.verdict { display: block; margin: 1px 0; padding: 1px 5px; border-radius: 5px; line-height: 1.3;
  font-size: 11.5px; }
.verdict a.cell { color: inherit; text-decoration: none; font-weight: 600; }
.verdict a.cell:hover { text-decoration: underline; }
.verdict .key { font-weight: 400; opacity: .75; font-size: 11px; margin-right: 3px; }
.verdict .fails { display: block; font-size: 11px; }
.verdict .fails a { color: inherit; }
.verdict .new { display: block; font-size: 11px; font-weight: 600; }
.verdict .new a { color: inherit; }
table.compat tbody th .row-shared { display: block; font: 400 11px/1.3 system-ui, sans-serif; color: #59636e;
  white-space: normal; text-align: left; min-width: 11em; max-width: 16em; }
p.shared a { color: inherit; }
details.families { margin: 8px 0; }
details.families summary { cursor: pointer; font-weight: 600; font-size: 13px; }
table.families .verdict { font-size: 11.5px; }
table.families tbody th { font-family: inherit; white-space: nowrap; }
.verdicts { margin: 6px 0 4px; padding: 0; list-style: none; }
.verdicts li { font-size: 12px; margin: 2px 0; }
.verdicts code { color: #59636e; }
.verdicts li .verdict { display: inline-block; }
table.causes { width: 100%; max-width: 110em; }
table.causes th { text-align: left; }
table.causes td { vertical-align: top; }
table.causes td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.causes td.sig { min-width: 26em; }
table.causes td.sig code { overflow-wrap: anywhere; }
/* Case ids have no spaces to break at: a fixed layout keeps the Changes table inside a 1400 px page. */
#T_changes { table-layout: fixed; width: 100%; } #T_changes td { overflow-wrap: anywhere; white-space: normal; }
#T_changes th:nth-child(1) { width: 6%; } #T_changes th:nth-child(2) { width: 19%; }
#T_changes th:nth-child(3) { width: 8%; } #T_changes th:nth-child(4) { width: 10%; }
#T_changes th:nth-child(5), #T_changes th:nth-child(6) { width: 10%; }
#T_changes th:nth-child(7) { width: 20%; } #T_changes th:nth-child(8) { width: 17%; }
table.causes td.where { min-width: 14em; }
table.causes td.first { white-space: nowrap; }
table.causes .chip { display: inline-block; margin: 0 2px 2px 0; padding: 0 6px; border-radius: 10px;
  white-space: nowrap; font-weight: 600; }
table.causes details ul { margin: 4px 0 0; padding-left: 18px; }
table.causes details li { margin: 2px 0; }
table.causes summary { cursor: pointer; color: #0969da; white-space: nowrap; }
td.known { padding: 6px 8px; background: #f6f8fa; }
td.known > details > summary { font-weight: 600; color: #5a32a3; }
td.known table.causes { margin-top: 6px; background: #fff; }
"""
    # A timing cell's shade: opacity 0.04 to 0.34 by its share of the slowest cell of its case (reports/views/html.py).
    + "".join(f"table.timing td.shade-{n} {{ background-color: rgba(9, 105, 218, 0.{n:02d}); }}\n"
              for n in range(4, 35))
    + stylesheet()
)

TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>shardmatrix · {{ runs | map("first") | join(", ") }}</title>
<style>{{ css | safe }}</style>
</head>
<body>
<h1>shardmatrix compatibility matrix</h1>
<p class="meta">{{ "Run" if runs | length == 1 else "Runs" }}
{% for run_id, label in runs %}
 {{ label ~ " " if runs | length > 1 }}<code>{{ run_id }}</code>{{ "," if not loop.last }}
{% endfor %}
 · {{ n_cells }} cell{{ "s" if n_cells != 1 }} &times; {{ n_cases }} case{{ "s" if n_cases != 1 }}</p>
<nav><a href="#compat">Compatibility</a><a href="#causes">Causes</a>{% if changes %}<a href="#changes">Changes</a>
{%- endif %}{% if divergence %}<a href="#divergence">Accelerator vs CPU</a>{% endif %}<a href="#matrix">Matrix</a>
{% if warnings %}<a href="#warnings">Warnings</a>{% endif %}<a href="#cells">Cells</a><a href="#timing">Timing</a>
{%- if frontier %}<a href="#frontier">Frontier</a>{% endif %}</nav>
{% if interrupted %}
<div class="alert"><strong>{{ incomplete.symbol }} {{ interrupted | length }} cell{{ "s" if interrupted | length != 1 }}
did not finish</strong> (interrupted): the cases {{ "it" if interrupted | length == 1 else "they" }} recorded are
shown, the rest never ran (hatched in the matrix).
<ul>
{% for key, cell_id, command in interrupted %}
<li><strong>{{ key }}</strong> <code>{{ cell_id }}</code>: resume with <code>{{ command }}</code></li>
{% endfor %}
</ul></div>
{% endif %}
<h2 id="compat">Compatibility</h2>
<p class="note">Each flax release (rows) with each jax release (columns): the verdict of every cell that pairs them.
A verdict links its column in the matrix; a partial one names its causes (#n, below). Each verdict's meaning, and
its token in <code>""" + COMPAT_CSV.name + """</code>, is listed under the table.</p>
{% macro items(found, brief) %}
{%- for name, link in found.bugs %}{% if link %}<a href="{{ link }}">{{ name }}</a>{% else %}{{ name }}{% endif %}
{{- ", " if not loop.last }}{% endfor %}
{%- if found.bugs and found.changes %}; {% endif %}
{%- if found.changes %}{% if brief %}<span title="{{ found.changes|join('\n') }}">{{ found.changes|length }} documented
 change{{ "s" if found.changes|length != 1 }}</span>{% else %}documented:
 {% set ns = namespace(releases=[]) %}{% for change in found.changes %}{% set release = change.split(": ", 1)[0] %}
{%- if release not in ns.releases %}{% set ns.releases = ns.releases + [release] %}{% endif %}{% endfor %}
{%- for release in ns.releases %}<span class="change" title="
{%- for change in found.changes if change.split(": ", 1)[0] == release %}{{ change }}{{ "\n" if not loop.last }}
{%- endfor %}">{{ release }}</span>{{ ", " if not loop.last }}{% endfor %}{% endif %}
{%- endif %}
{%- endmacro %}
{% if compat.everywhere.bugs or compat.everywhere.changes %}
<p class="note shared">Every cell below has {{ items(compat.everywhere, true) }}. A box names what is new in its pair
(against the previous jax with its flax and the previous flax with its jax), a row what every pair of it has.</p>
{% endif %}
<table class="compat" id="T_compat">
<thead><tr><th class="corner">flax &darr; jax &rarr;</th>
{% for jax in compat.jaxes %}<th>{{ jax }}</th>{% endfor %}
</tr></thead>
<tbody>
{% for flax, slots, common in compat.rows %}
<tr><th>{{ flax }}{% if common.bugs or common.changes %}<span class="row-shared">every pair:
 {{ items(common, true) }}</span>{% endif %}</th>
{% for entries in slots %}
{% if entries %}<td>
{% for e in entries %}
<div class="verdict {{ e.css_class }}" title="{{ e.title }}"><a class="cell"
 href="#{{ e.anchor }}"><span class="key">{{ e.key }}</span>{{ e.symbol }} {{ e.label }}</a>
{% if e.detail %}<span class="fails">{{ e.detail }}
{%- for number, signature in e.causes[:4] %} <a href="#cause-{{ number }}"
 title="{{ signature }}">#{{ number }}</a>{% endfor %}
{%- if e.causes|length > 4 %} <span title="every cause is in this cell's hover text">+{{ e.causes|length - 4 }}</span>
{%- endif %}</span>{% endif %}
{% if e.new.bugs or e.new.changes %}<span class="new">new here: {{ items(e.new, false) }}</span>{% endif %}
</div>
{% endfor %}
</td>{% else %}<td class="empty"></td>{% endif %}
{% endfor %}
</tr>
{% endfor %}
</tbody>
</table>
{% if compat.families %}
<details class="families" open><summary>Per family: each pair's verdict on one family's cases alone</summary>
<table class="compat families" id="T_families">
<thead><tr><th class="corner">pair</th>{% for family in compat.families %}<th>{{ family }}</th>{% endfor %}</tr></thead>
<tbody>
{% for row in compat.family_rows %}
<tr><th><a href="#{{ row.anchor }}">{{ row.key }}</a> {{ row.pair }}</th>
{% for e in row.entries %}
{% if e %}<td><div class="verdict {{ e.css_class }}" title="{{ e.label }}">{{ e.symbol }}
 {{ e.detail or e.label }}</div></td>
{% else %}<td class="empty"></td>{% endif %}
{% endfor %}
</tr>
{% endfor %}
</tbody>
</table>
</details>
{% endif %}
<ul class="verdicts">
{% for look, token, meaning in verdicts %}
<li><span class="verdict {{ look.css_class }}">{{ look.symbol }} {{ look.words }}</span> {{ meaning }}
 <code>{{ token }}</code></li>
{% endfor %}
</ul>
{% macro cause_rows(rows) %}
{% for c in rows %}
<tr id="{{ c.anchor }}">
<td class="n">#{{ c.view.number }}</td>
<td class="sig" title="grouped as: {{ c.view.signature }}">{% if c.view.change %}<strong>{{ c.view.change }}</strong>,
as {% endif %}<code>{{ c.view.example }}</code></td>
<td>{% for p in c.statuses %}<span class="chip {{ p.css_class }}">{{ p.symbol }} {{ p.label }}</span>
{%- endfor %}</td>
<td class="where">{{ c.view.cells }}</td>
<td class="n"><details><summary>{{ c.view.case_count }} case{{ "s" if c.view.case_count != 1 }}</summary><ul>
{% for keys, cases in c.cases %}<li><strong>{{ keys }}</strong>:
{%- for case in cases %} <code>{{ case }}</code>{{ "," if not loop.last }}{% endfor %}</li>
{% endfor %}
</ul></details></td>
<td class="first"><a href="#{{ c.first_anchor }}">{{ c.view.first_key }}</a> <code>{{ c.view.first_cell }}</code></td>
<td>{% if c.view.reproducer %}<a href="{{ c.view.reproducer.as_posix() }}"
 title="{{ c.view.reproducer.as_posix() }}">script</a>{% endif %}</td>
</tr>
{% endfor %}
{% endmacro %}
<h2 id="causes">Causes</h2>
<p class="note">Every result that neither passed nor was not applicable, and every flaky one, grouped by its error
(paths, addresses and numbers made alike): where it shows, in how many cases (expand for them), the first cell in
version order, and a script that reproduces it there.</p>
{% if causes or documented or known %}
<table class="causes" id="T_causes">
<thead><tr><th>#</th><th>cause</th><th>status</th><th>cells</th><th>cases</th><th>first cell</th><th>reproduce</th>
</tr></thead>
<tbody>
{{ cause_rows(causes) }}
{% if documented %}
{% set documented_cases = documented | sum(attribute="view.case_count") %}
<tr><td class="known" colspan="7"><details><summary>{{ documented | length }} documented
change{{ "s" if documented | length != 1 }} (failing as their cases declare, see <a href="#changes">Changes</a>),
{{ documented_cases }} case{{ "s" if documented_cases != 1 }}</summary>
<table class="causes">
<thead><tr><th>#</th><th>change</th><th>status</th><th>cells</th><th>cases</th><th>first cell</th><th>reproduce</th>
</tr></thead>
<tbody>
{{ cause_rows(documented) }}
</tbody></table></details></td></tr>
{% endif %}
{% if known %}
{% set known_cases = known | sum(attribute="view.case_count") %}
<tr><td class="known" colspan="7"><details><summary>{{ known | length }} known upstream
breakage{{ "s" if known | length != 1 }} (xfailed as declared), {{ known_cases }} case{{ "s" if known_cases != 1 }}
</summary>
<table class="causes">
<thead><tr><th>#</th><th>breakage</th><th>status</th><th>cells</th><th>cases</th><th>first cell</th><th>reproduce</th>
</tr></thead>
<tbody>
{{ cause_rows(known) }}
</tbody></table></details></td></tr>
{% endif %}
</tbody>
</table>
{% else %}
<p>None: every case passed or was not applicable.</p>
{% endif %}
{% if changes %}
<h2 id="changes">Changes</h2>
<p class="note">Each upstream change a case documents: the release it came with, its kind, the cells that warned
before it, the last passing and first failing cells, the cases and the fix. A case failing inside its change's range
with the exception it declares is documented; one passing there is <strong>stale</strong>, one failing elsewhere or
otherwise <strong>unexpected</strong> (but in a broken cell, where nothing works).
<code>""" + CHANGES_CSV.name + """</code> holds the same rows.</p>
<table class="causes" id="T_changes">
<thead><tr><th>release</th><th>what changed</th><th>kind</th><th>warned</th><th>last passing</th>
<th>first failing</th><th>cases</th><th>fix</th></tr></thead>
<tbody>
{% for c in changes %}
<tr><td class="first">{{ c.package }} {{ c.release }}</td>
<td class="sig">{{ c.what }}
{%- for name in ("stale", "unexpected") if c[name] %} <strong>{{ name }}</strong> in {{ c[name] | join(", ") }}
{%- endfor %}</td>
<td>{{ c.kind }}</td>
<td>{% if c.warned %}<code>{{ c.warned }}</code>{% endif %}
{%- for key in c.cells_warned %} <a href="#{{ c.anchors[key] }}">{{ key }}</a>{% endfor %}</td>
<td class="first">{{ c.last_passing }}</td><td class="first">{{ c.first_failing }}</td>
<td class="cases">{% for case in c.cases %}<code>{{ case }}</code>{{ "<br>" | safe if not loop.last }}{% endfor %}</td>
<td class="fix">{{ c.fix }}</td></tr>
{% endfor %}
</tbody>
</table>
{% endif %}
{% if divergence %}
<h2 id="divergence">Accelerator vs CPU</h2>
<p class="note">Each accelerator cell against the CPU cell of the same pins at the same device count: a case whose
status or exception differs is a divergence. A case that failed an assertion on the accelerator ran once more at the
highest matmul precision (recorded apart; its status stays the default precision's): if that matched the CPU, the
accelerator's default matmul precision is the cause.</p>
{% for line in divergence.compared %}<p>{{ line }}</p>{% endfor %}
{% for line in divergence.unpaired %}<p class="note">{{ line }}</p>{% endfor %}
{% if divergence.rows %}
<table class="causes" id="T_divergence">
<thead><tr><th>case</th><th>accelerator</th><th>CPU</th><th>at the highest precision</th><th>cause</th><th>fix</th>
</tr></thead>
<tbody>
{% for d in divergence.rows %}
<tr><td class="cases"><code>{{ d.case_id }}</code></td>
<td class="sig">{{ d.accelerator }}: {{ d.accelerator_outcome }}</td>
<td class="sig">{{ d.cpu }}: {{ d.cpu_outcome }}</td>
<td class="sig">{{ d.highest_outcome or "not re-run" }}</td><td><strong>{{ d.label }}</strong></td>
<td class="fix">{{ d.fix }}</td></tr>
{% endfor %}
</tbody>
</table>
{% endif %}
{% endif %}
<h2 id="matrix">Matrix</h2>
<ul class="legend">
{% for p, n in legend %}
<li class="{{ 'empty' if not n }}" title="{{ p.meaning }}"><span class="sym {{ p.css_class }}">{{ p.symbol }}</span>
<span class="n">{{ n }}</span> {{ p.label }}</li>
{% endfor %}
<li class="sep"></li>
{% for p, n in marks %}
<li class="{{ 'empty' if not n }}" title="{{ p.meaning }}">
<span class="sym badge-{{ p.css_class }}">{{ p.symbol }}</span>
<span class="n">{{ n }}</span> {{ p.label }}</li>
{% endfor %}
</ul>
<p class="note">Columns are cells in version order: jax, then flax, then python. Hover a result for its status,
attempts, error, reason, warnings and timing. {{ marks[0][0].symbol }} marks a flaky result (its attempts disagreed),
{{ incomplete.symbol }} a cell that was interrupted.</p>
{{ matrix | safe }}
{% if warnings %}
<h2 id="warnings">Warnings</h2>
<p class="note">Passing cases that warned: usually a deprecation, an early sign of a coming break.</p>
{{ warnings | safe }}
{% endif %}
<h2 id="cells">Cells</h2>
<p class="note">Every column of the matrix: whether its cell finished, its environment, how many cases got each status,
and how many of those were flaky.</p>
{{ cells | safe }}
<h2 id="timing">Timing</h2>
<p class="note">Median duration in seconds (3 significant digits); the darker a cell, the closer to the slowest cell
of its case. Hover for the compile / execute split.</p>
{{ timing | safe }}
{{ frontier | safe }}
<footer>Generated by <code>python -m reports</code> from results files alone.</footer>
</body>
</html>
"""
