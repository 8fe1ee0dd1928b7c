"""One rolling issue per repository and package line, kept by the upgrade-check action and reusable workflow.

    python -m harness.host.rolling --line LINE --verdict SAFE|UNSAFE|INCONCLUSIVE --body-file FILE --run-url URL

The issue of LINE is the open one whose title starts "shardmatrix: upgrading LINE is " (the nightly matrix's issue,
matrix.yml, is kept the same way). UNSAFE and INCONCLUSIVE file it, or retitle it by the verdict, replace its body
with FILE (cut to GitHub's limit) and add a comment naming the run; SAFE closes it with a comment naming the run, and
does nothing when none is open. A failure of `gh` is one line and exit 1: the issue is never half kept in silence.
Asked with GH_TOKEN and GH_REPO in the environment, through `gh` (harness.host.nightly.gh).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from harness.formats import USAGE_EXIT
from harness.host import options
from harness.host.nightly import Gh, GhError, gh, gh_json

VERDICTS = ("SAFE", "UNSAFE", "INCONCLUSIVE")
#: GitHub refuses an issue body longer than this many characters.
BODY_LIMIT = 65_536


def prefix(line: str) -> str:
    """The start every title of LINE's issue shares, whatever the verdict."""
    return f"shardmatrix: upgrading {line} is "


def title(line: str, verdict: str) -> str:
    """The issue's title for a verdict: 'shardmatrix: upgrading jax is UNSAFE'."""
    return prefix(line) + verdict


def cut(body: str, run_url: str, limit: int = BODY_LIMIT) -> str:
    """`body` whole when it fits, else cut at a line with one saying where the rest is (the run's job summary)."""
    if len(body) <= limit:
        return body
    note = f"\n\n*Cut to fit an issue: the whole verdict is in the job summary of {run_url}.*\n"
    kept = body[: limit - len(note)]
    return kept[: kept.rfind("\n") + 1 or len(kept)] + note


def open_issue(run_gh: Gh, line: str) -> int | None:
    """The number of LINE's open issue, or None."""
    start = prefix(line)
    found = gh_json(run_gh, ["issue", "list", "--state", "open", "--search", f'"{start.strip()}" in:title',
                             "--json", "number,title", "--limit", "100"])
    try:
        numbers = [int(issue["number"]) for issue in found if str(issue["title"]).startswith(start)]
    except (KeyError, TypeError, ValueError) as error:
        raise GhError(f"gh issue list answered issues without the field {error}") from None
    return min(numbers) if numbers else None


def keep(run_gh: Gh, line: str, verdict: str, body: str, run_url: str) -> str:
    """File, update or close LINE's issue for `verdict`; what was done, in one line."""
    number = open_issue(run_gh, line)
    if verdict == "SAFE":
        if number is None:
            return "safe, and no issue open"
        run_gh(["issue", "close", str(number), "--comment", f"Safe again in {run_url}"])
        return f"closed issue #{number}"
    with tempfile.TemporaryDirectory() as folder:
        written = Path(folder) / "body.md"
        written.write_text(cut(body, run_url), encoding="utf-8")
        if number is None:
            run_gh(["issue", "create", "--title", title(line, verdict), "--body-file", str(written)])
            return f"filed: {title(line, verdict)}"
        run_gh(["issue", "edit", str(number), "--title", title(line, verdict), "--body-file", str(written)])
    run_gh(["issue", "comment", str(number), "--body", f"{verdict.capitalize()} in {run_url}"])
    return f"updated issue #{number}: {title(line, verdict)}"


def parser() -> options.Parser:
    """The command line of `python -m harness.host.rolling` (strict, as every command line of the harness)."""
    p = options.Parser(prog="python -m harness.host.rolling", description=__doc__.splitlines()[0])
    p.add_argument("--line", required=True, help="the package line: 'jax', 'flax', 'jax+flax'")
    p.add_argument("--verdict", required=True, choices=VERDICTS, help="the verdict of this run")
    p.add_argument("--body-file", type=Path, required=True, help="the issue's body (the verdict's compare.md)")
    p.add_argument("--run-url", required=True, help="this run, linked from the issue")
    return p


def main(argv: Sequence[str] | None = None, run_gh: Gh = gh) -> int:
    """Keep the issue; 0, or 1 with one line on a failure of gh, 64 on bad usage or an unreadable body."""
    try:
        args = parser().parse_strictly(list(sys.argv[1:] if argv is None else argv))
    except options.OptionsError as error:
        print(f"shardmatrix: {error}", file=sys.stderr)
        return USAGE_EXIT
    try:
        body = args.body_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        print(f"shardmatrix: --body-file {args.body_file}: {getattr(error, 'strerror', None) or error}",
              file=sys.stderr)
        return USAGE_EXIT
    if not args.line.strip():
        print("shardmatrix: --line is empty: name the package line ('jax')", file=sys.stderr)
        return USAGE_EXIT
    try:
        print(keep(run_gh, args.line.strip(), args.verdict, body, args.run_url))
    except GhError as error:
        print(f"shardmatrix: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
