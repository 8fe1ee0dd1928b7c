"""One rolling issue, open while something is wrong and closed by the run that is good again, kept through `gh`.

    python -m harness.host.rolling --line LINE --verdict SAFE|UNSAFE|INCONCLUSIVE --body-file FILE --run-url URL
    python -m harness.host.rolling --nightly --verdict clean|regressed|inconclusive --body-file FILE --run-url URL

The first is a downstream repository's issue for one package line (the upgrade-check action and reusable workflow):
titled "shardmatrix: upgrading LINE is UNSAFE" (or INCONCLUSIVE). The second is this repository's nightly matrix
issue (matrix.yml): "shardmatrix: the nightly matrix regressed" (or "is inconclusive"). Either way the issue is the
open one whose title starts with the line's words; a bad verdict files it, or retitles it, replaces its body with
FILE (cut to GitHub's limit) and adds a comment naming the run ("Unsafe in <run>"); the good one (SAFE, clean) closes
it with a comment naming the run ("Safe again in <run>"), and does nothing when none is open. A failure of `gh` is
one line and exit 1: the issue is never half kept in silence. Asked with GH_TOKEN and GH_REPO in the environment,
through `gh` (harness.host.nightly.gh).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harness import outputs
from harness.formats import USAGE_EXIT
from harness.host import options
from harness.host.nightly import Gh, GhError, gh, gh_json

#: GitHub refuses an issue body longer than this many characters.
BODY_LIMIT = 65_536


@dataclass(frozen=True)
class Tracked:
    """An issue kept by its title: every title starts with `prefix`; the title each bad verdict gives it, and the
    words that start the comment of each verdict (the good one, absent from `titles`, closes it)."""

    prefix: str
    titles: dict[str, str]
    words: dict[str, str]


def line_issue(line: str) -> Tracked:
    """A downstream repository's issue for one package line: 'shardmatrix: upgrading jax is UNSAFE'."""
    start = f"shardmatrix: upgrading {line} is "
    return Tracked(start, {"UNSAFE": start + "UNSAFE", "INCONCLUSIVE": start + "INCONCLUSIVE"},
                   {"SAFE": "Safe again in", "UNSAFE": "Unsafe in", "INCONCLUSIVE": "Inconclusive in"})


#: This repository's nightly matrix issue (reports.regressions' verdicts).
NIGHTLY = Tracked("shardmatrix: the nightly matrix ",
                  {"regressed": "shardmatrix: the nightly matrix regressed",
                   "inconclusive": "shardmatrix: the nightly matrix is inconclusive"},
                  {"clean": "Clean again in", "regressed": "Regressed in", "inconclusive": "Inconclusive in"})


def cut(body: str, run_url: str, limit: int = BODY_LIMIT) -> str:
    """`body` whole when it fits, else cut at a line with one saying where the rest is (the run's job summary)."""
    if len(body) <= limit:
        return body
    note = f"\n\n*Cut to fit an issue: the whole verdict is in the job summary of {run_url}.*\n"
    kept = body[: limit - len(note)]
    return kept[: kept.rfind("\n") + 1 or len(kept)] + note


def open_issue(run_gh: Gh, tracked: Tracked) -> int | None:
    """The number of the tracked issue if one is open (the oldest, should there be two), or None."""
    start = tracked.prefix
    found = gh_json(run_gh, ["issue", "list", "--state", "open", "--search", f'"{start.strip()}" in:title',
                             "--json", "number,title", "--limit", "100"])
    try:
        numbers = [int(issue["number"]) for issue in found if str(issue["title"]).startswith(start)]
    except (KeyError, TypeError, ValueError) as error:
        raise GhError(f"gh issue list answered issues without the field {error}") from None
    return min(numbers) if numbers else None


def keep(run_gh: Gh, tracked: Tracked, verdict: str, body: str, run_url: str) -> str:
    """File, update or close the tracked issue for `verdict`; what was done, in one line."""
    number = open_issue(run_gh, tracked)
    comment = f"{tracked.words[verdict]} {run_url}"
    title = tracked.titles.get(verdict)
    if title is None:
        if number is None:
            return f"{verdict}, and no issue open"
        run_gh(["issue", "close", str(number), "--comment", comment])
        return f"closed issue #{number}"
    with tempfile.TemporaryDirectory() as folder:
        written = Path(folder) / "body.md"
        written.write_text(cut(body, run_url), encoding="utf-8")
        if number is None:
            run_gh(["issue", "create", "--title", title, "--body-file", str(written)])
            return f"filed: {title}"
        run_gh(["issue", "edit", str(number), "--title", title, "--body-file", str(written)])
    run_gh(["issue", "comment", str(number), "--body", comment])
    return f"updated issue #{number}: {title}"


def parser() -> options.Parser:
    """The command line of `python -m harness.host.rolling` (strict, as every command line of the harness)."""
    p = options.Parser(prog="python -m harness.host.rolling", description=__doc__.splitlines()[0])
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--line", help="a downstream package line, 'jax', 'flax', 'jax+flax' (SAFE, UNSAFE, "
                                      "INCONCLUSIVE)")
    which.add_argument("--nightly", action="store_true", help="the nightly matrix (clean, regressed, inconclusive)")
    p.add_argument("--verdict", required=True, help="the verdict of this run")
    p.add_argument("--body-file", type=Path, required=True,
                   help=f"the issue's body (the verdict's {outputs.COMPARE_MD})")
    p.add_argument("--run-url", required=True, help="this run, linked from the issue")
    return p


def main(argv: Sequence[str] | None = None, run_gh: Gh = gh) -> int:
    """Keep the issue; 0, or 1 with one line on a failure of gh, 64 on bad usage or an unreadable body."""
    try:
        args = parser().parse_strictly(list(sys.argv[1:] if argv is None else argv))
    except options.OptionsError as error:
        print(f"shardmatrix: {error}", file=sys.stderr)
        return USAGE_EXIT
    if args.line is not None and not args.line.strip():
        print("shardmatrix: --line is empty: name the package line ('jax')", file=sys.stderr)
        return USAGE_EXIT
    tracked = NIGHTLY if args.nightly else line_issue(args.line.strip())
    if args.verdict not in tracked.words:
        print(f"shardmatrix: --verdict {args.verdict}: one of {', '.join(tracked.words)}", file=sys.stderr)
        return USAGE_EXIT
    try:
        body = args.body_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        print(f"shardmatrix: --body-file {args.body_file}: {getattr(error, 'strerror', None) or error}",
              file=sys.stderr)
        return USAGE_EXIT
    try:
        print(keep(run_gh, tracked, args.verdict, body, args.run_url))
    except GhError as error:
        print(f"shardmatrix: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
