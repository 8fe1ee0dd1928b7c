"""How the host calls uv, and how it reads uv's reason when a command fails."""

from __future__ import annotations

import re
import shutil
import sys

from harness.cell.records import first_line


def uv_command() -> list[str]:
    """How to call uv: the binary on PATH, else the one pip installed beside this interpreter."""
    found = shutil.which("uv")
    return [found] if found else [sys.executable, "-m", "uv"]


def installer_message(output: str) -> str:
    """The sentence of an installer's output that says why, e.g. uv's 'Because jax==9.9 was not found ...'."""
    # uv draws its error tree with box characters; strip them to reach the sentence.
    lines = [re.sub(r"^[\s×╰─▶│]+", "", line).strip() for line in output.splitlines()]  # noqa: RUF001
    lines = [line for line in lines if line]
    for index, line in enumerate(lines):
        if "Because" in line:
            sentence = [line[line.index("Because"):]]
            for more in lines[index + 1:]:
                if re.match(r"^(cause|hint|help|error|warning):", more) or "Because" in more:
                    break
                sentence.append(more)
            return first_line(" ".join(sentence))
    for line in lines:
        if line.startswith("error:"):
            return first_line(line)
    return first_line(lines[-1] if lines else "installer failed without output")


def stale_reason(output: str) -> str | None:
    """Why uv would not take a lockfile as it is ('Resolving despite existing lockfile due to change in pre-release
    mode: ...'), the line `uv lock --check` gives before its bare 'needs to be updated'; None when it gives none."""
    found = re.search(r"^.*existing lockfile due to .*$", output, re.MULTILINE)
    return first_line(found.group(0).strip()) if found else None
