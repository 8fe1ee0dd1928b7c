"""matrix.html in a real browser: headless Chromium renders it with no console error, and the DOM it builds holds
the compatibility table, the causes, the matrix and their hover texts, with nothing fetched from the network."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from html_parse import HoverTips
from record_factory import collected, record

from reports.build import build_report, results_dir

RUN = "20261121T084500Z-ab12"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _browser() -> str | None:
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


#: Set by .ci/run where it could install Debian's chromium: there a missing browser is a failure, not a skip.
REQUIRED = os.environ.get("SHARDMATRIX_REQUIRE_BROWSER") == "1"

pytestmark = pytest.mark.skipif(
    _browser() is None and not REQUIRED, reason=f"no headless browser on PATH (looked for {', '.join(BROWSERS)})"
)


def test_a_browser_is_there_when_required() -> None:
    assert _browser() is not None, f"SHARDMATRIX_REQUIRE_BROWSER=1 but none of {', '.join(BROWSERS)} is on PATH"


def _record(jax: str, case: str, status: str = "passed", **fields: Any) -> str:
    return json.dumps(record(jax, run_id=RUN, case_id=f"fam::{case}", status=status, compile_s=0.3, execute_s=0.2,
                             device_kind="cpu", backend="cpu", **fields))


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """matrix.html of two cells: one where every case passes, one where a case fails and one is a known breakage."""
    out = tmp_path_factory.mktemp("browser")
    run = results_dir(out) / RUN
    run.mkdir(parents=True)
    cells = {
        "0.4.38": [_record("0.4.38", "a"), _record("0.4.38", "b")],
        "0.10.2": [_record("0.10.2", "a", "failed", error_type="ValueError", error_message="boom <b>bold</b>"),
                   _record("0.10.2", "b", "xfailed", reason="known upstream breakage")],
    }
    for jax, lines in cells.items():
        (run / f"jax{jax}-flax0.12.8-py3.11.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        collected(run / f"jax{jax}-flax0.12.8-py3.11.jsonl")
        (run / f"jax{jax}-flax0.12.8-py3.11.done.json").write_text('{"returncode": 0}\n', encoding="utf-8")
    return build_report(out).html_path


def render(page: Path) -> subprocess.CompletedProcess[str]:
    """The DOM Chromium builds from `page` (stdout) and its log (stderr), console messages included."""
    command = [str(_browser()), "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
               "--dump-dom", page.as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)


def console_errors(log: str) -> list[str]:
    """The console messages and uncaught errors in a Chromium log."""
    return [line for line in log.splitlines() if "CONSOLE" in line or "Uncaught" in line]


@pytest.fixture(scope="module")
def rendered(page: Path) -> subprocess.CompletedProcess[str]:
    return render(page)


class _Dom(HoverTips):
    """Ids, titles, hover texts and every src/href of a document."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.titles: list[str] = []
        self.links: list[str] = []
        self.tips: list[str] = []

    def tip_read(self, text: str) -> None:
        self.tips.append(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.update(value for name, value in attrs if name == "id" and value)
        self.titles += [value for name, value in attrs if name == "title" and value]
        self.links += [value or "" for name, value in attrs if name in ("src", "href")]
        super().handle_starttag(tag, attrs)


def dom_of(text: str) -> _Dom:
    parsed = _Dom()
    parsed.feed(text)
    parsed.close()
    return parsed


def test_the_browser_builds_every_table_and_verdict(rendered: subprocess.CompletedProcess[str]) -> None:
    dom = dom_of(rendered.stdout)
    assert {"T_compat", "T_causes", "T_matrix", "T_cells", "T_timing", "col-c1", "col-c2", "cause-1"} <= dom.ids
    text = " ".join(rendered.stdout.split())
    assert re.search(r'href="#col-c1">.*?✓ works</a>', text) and re.search(r'href="#col-c2">.*?◐ partial</a>', text)
    assert "0 documented · 1 known upstream · 1 unexplained" in text and "1 known upstream breakage" in text


def test_hover_texts_are_in_the_dom(rendered: subprocess.CompletedProcess[str]) -> None:
    dom = dom_of(rendered.stdout)
    assert any("status: failed" in tip and "ValueError: boom <b>bold</b>" in tip for tip in dom.tips)
    assert any(title.startswith("c2 · jax0.10.2-flax0.12.8-py3.11") and "1 known upstream · 1 unexplained" in title
               for title in dom.titles)
    # The record's markup stayed text: the browser made no <b> element of it.
    assert "<b>bold</b>" not in rendered.stdout


def test_the_page_fetches_nothing_and_logs_no_error(rendered: subprocess.CompletedProcess[str]) -> None:
    dom = dom_of(rendered.stdout)
    assert not [link for link in dom.links if re.match(r"\s*(https?:)?//", link)]
    assert not console_errors(rendered.stderr)


def test_the_console_check_catches_a_script_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.html"
    broken.write_text("<!DOCTYPE html><html><body><script>undefinedFunction();</script></body></html>")
    assert any("undefinedFunction" in line for line in console_errors(render(broken).stderr))
