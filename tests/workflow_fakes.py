"""The commands a workflow's steps call, faked for tests/workflow_driver.py: `gh`, `nox`, `uv`, `python` and
`shardmatrix`.

    python tests/workflow_fakes.py TOOL ARGS...

- gh answers from, and records every call into, the driver's GitHub state ($DRIVER_GITHUB/state.json): runs,
  artifacts, issues and jobs; `--jq` goes through the real jq, as gh's own does. A call whose words start with an
  entry of the state's "fail" list fails as a server error would.
- nox runs a cell as the scenario ($DRIVER_SCENARIO) says: "pass", "fail" (its first case fails), "die" (nothing
  written) or "hang" (half its cases written, then it never ends); `report` runs the report's own command;
  `frontier` stores a release's result ("die": nothing; "hang": one probe's results, then no end); `ecosystem
  --only NAME` writes that project's summary with the real report writer as the scenario's "projects" says ("pass":
  SAFE, "fail": UNSAFE with one cause, "die": nothing, "hang": a result line, then no end, "elsewhere": SAFE, against
  another baseline than asked). Installs (pip, uv, a
  nox session's own) are recorded, never made.
- shardmatrix (only once a job installed it: `uv pip install "shardmatrix... @ file://PATH"`) answers the scenario's
  "verdict" (SAFE, UNSAFE, INCONCLUSIVE, or BROKEN: exit 3, nothing written) and writes OUT/report/compare.md;
  `watch` judges the scenario's "releases" not yet in its --state file, adds them to it, and writes its --json and
  a report per release judged. The scenario's "coverage" (default '': every test judged) is each verdict's, in
  compare.json and in each judgment, as the real command writes it; its "regressions" (default: the one regressed
  case of an UNSAFE verdict, unexplained) are compare.json's counts by kind.
  Every call is recorded in the state's "shardmatrix" list.
- python is the test venv's, with the folder a job installed shardmatrix from on its path and the scenario's
  "json_api" (if any) as $SHARDMATRIX_JSON_API, the index the real command reads, except `-m pip`
  (recorded) and `-m shardmatrix.frontier plan` (the scenario's plan, or a failure where it is null: the real one
  asks PyPI).
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

STATE = Path(os.environ.get("DRIVER_GITHUB", ".")) / "state.json"


def load() -> dict[str, Any]:
    return json.loads(STATE.read_text())


def save(state: dict[str, Any]) -> None:
    STATE.write_text(json.dumps(state, indent=1))


def scenario() -> dict[str, Any]:
    return json.loads(Path(os.environ["DRIVER_SCENARIO"]).read_text())


def record_install(tool: str, args: list[str]) -> int:
    state = load()
    state.setdefault("installs", []).append({"job": Path(os.environ["GITHUB_WORKSPACE"]).name, "tool": tool,
                                             "args": args})
    save(state)
    return 0


# --- gh ---------------------------------------------------------------------------------------------------------


def option(args: list[str], name: str, default: str | None = None) -> str | None:
    return args[args.index(name) + 1] if name in args else default


def emit(value: Any, args: list[str]) -> int:
    """Print `value` as gh does: JSON, or through --jq (strings raw, one result a line)."""
    jq = option(args, "--jq")
    if jq is None:
        print(json.dumps(value))
        return 0
    done = subprocess.run(["jq", "-r", "-c", jq], input=json.dumps(value), capture_output=True, text=True,
                          check=False)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    return done.returncode


def gh(args: list[str]) -> int:
    state = load()
    state["calls"].append(args)
    save(state)
    if not os.environ.get("GH_TOKEN"):
        print("gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN environment variable.",
              file=sys.stderr)
        return 4
    words = " ".join(a for a in args if not a.startswith("-"))
    if any(words.startswith(prefix) for prefix in state["fail"]):
        print("HTTP 502: Server Error (https://api.github.com/graphql)", file=sys.stderr)
        return 1
    command = args[:2]
    if command == ["run", "list"]:
        return run_list(state, args)
    if command == ["run", "download"]:
        return run_download(state, args)
    if command == ["run", "cancel"]:
        state["cancelled"] = [*state.get("cancelled", []), args[2]]
        save(state)
        return 0
    if args[0] == "api":
        return api(state, args)
    if args[0] == "issue":
        return issue(state, args)
    print(f"fake gh: {' '.join(args)} is not emulated", file=sys.stderr)
    return 2


def run_list(state: dict[str, Any], args: list[str]) -> int:
    wanted = option(args, "--status")
    runs = [r for r in state["runs"]
            if r["event"] == option(args, "--event", r["event"]) and r["headBranch"] == option(args, "--branch", "main")
            and (wanted is None or wanted in (r["status"], r["conclusion"]))]
    runs.sort(key=lambda r: -r["databaseId"])
    fields = (option(args, "--json") or "databaseId").split(",")
    limit = int(option(args, "--limit", "20") or 20)
    return emit([{f: r[f] for f in fields} for r in runs[:limit]], args)


def run_download(state: dict[str, Any], args: list[str]) -> int:
    run, name, target = args[2], option(args, "--name"), Path(option(args, "--dir", ".") or ".")
    listed = state["artifacts"].get(run, {})
    if name not in listed or listed[name]["expired"]:
        print("no valid artifacts found to download", file=sys.stderr)
        return 1
    shutil.copytree(STATE.parent / "artifacts" / run / str(name), target, dirs_exist_ok=True)
    return 0


def api(state: dict[str, Any], args: list[str]) -> int:
    path = next(a for a in args[1:] if not a.startswith("-") and a != option(args, "--jq"))
    artifacts = re.fullmatch(r"repos/\{owner\}/\{repo\}/actions/runs/(\d+)/artifacts(?:\?name=(\S+))?", path)
    if artifacts:
        listed = state["artifacts"].get(artifacts.group(1), {})
        found = [{"name": n, "expired": a["expired"]} for n, a in listed.items()
                 if artifacts.group(2) in (None, n)]
        return emit({"total_count": len(found), "artifacts": found}, args)
    named = re.fullmatch(r"repos/\{owner\}/\{repo\}/actions/artifacts\?name=([^&]+)(?:&per_page=\d+)?", path)
    if named:
        found = [{"name": named.group(1), "expired": listed[named.group(1)]["expired"],
                  "workflow_run": {"id": int(run)}}
                 for run, listed in sorted(state["artifacts"].items(), key=lambda item: -int(item[0]))
                 if named.group(1) in listed]
        return emit({"total_count": len(found), "artifacts": found}, args)
    if re.fullmatch(r"repos/\{owner\}/\{repo\}/actions/runs/\d+/attempts/\d+/jobs", path):
        return emit({"total_count": len(state["jobs"]), "jobs": state["jobs"]}, args)
    print(f"fake gh: api {path} is not emulated", file=sys.stderr)
    return 2


def issue(state: dict[str, Any], args: list[str]) -> int:
    verb = args[1]
    if verb == "list":
        wanted = option(args, "--state", "open")
        return emit([{"number": i["number"], "title": i["title"]} for i in state["issues"] if i["state"] == wanted],
                    args)
    body_file = option(args, "--body-file")
    body = Path(body_file).read_text() if body_file else None
    if verb == "create":
        number = 1 + max((i["number"] for i in state["issues"]), default=0)
        state["issues"].append({"number": number, "title": option(args, "--title"), "body": body, "state": "open",
                                "comments": []})
        print(f"https://github.com/owner/repo/issues/{number}")
    else:
        found = next(i for i in state["issues"] if i["number"] == int(args[2]))
        if verb == "edit":
            found["title"] = option(args, "--title", found["title"])
            found["body"] = body if body is not None else found["body"]
        elif verb == "comment":
            found["comments"].append(option(args, "--body"))
        elif verb == "close":
            found["state"] = "closed"
            found["comments"] += [c for c in [option(args, "--comment")] if c]
        else:
            print(f"fake gh: issue {verb} is not emulated", file=sys.stderr)
            return 2
    save(state)
    return 0


# --- nox --------------------------------------------------------------------------------------------------------


def cases(root: Path, count: int = 4) -> list[str]:
    """The first `count` real case ids of the corpus: reports and reproducers read their modules."""
    found = []
    for path in sorted((root / "cases").glob("[!_]*.py")):
        tree = ast.parse(path.read_text())
        found += [f"{path.stem}::{n.name}" for n in tree.body if isinstance(n, ast.FunctionDef)
                  and n.name.startswith("test_")]
    return found[:count]


def nox(args: list[str]) -> int:
    session, rest = option(args, "-s"), args[args.index("--") + 1:] if "--" in args else []
    out = Path(option(rest, "--out", "out") or "out")
    if session == "report":
        record_install("nox", ["report", "the report's dependencies"])
        return subprocess.run([os.environ["DRIVER_PYTHON"], "-m", "reports", *rest], check=False).returncode
    if session == "frontier":
        return frontier((option(rest, "--flax") or "").removeprefix("=="), out)
    if session == "ecosystem":
        return ecosystem_project(rest, out)
    if session == "ranges":
        # The range checker's own logic is tested on fakes (tests/test_ranges.py); here only its job's wiring.
        record_install("nox", ["ranges", "the report's dependencies"])
        return 0 if behaviour("ranges", "all") == "pass" else 1
    cell = re.fullmatch(r"cell\((.+)\)", session or "")
    if cell is None:
        print(f"fake nox: session {session} is not emulated", file=sys.stderr)
        return 2
    return run_cell(cell.group(1), out, option(rest, "--run-id") or "", option(rest, "--cells"))


def behaviour(kind: str, name: str) -> str:
    setting = scenario().get(kind, {}).get(name, "pass")
    if isinstance(setting, dict):
        setting = setting.get(str(scenario()["attempt"]), setting.get("*", "pass"))
    return str(setting)


def run_cell(cell_id: str, out: Path, run_id: str, named: str | None = None) -> int:
    from harness.celldocuments import write_collection
    from harness.cellrecord import CellFiles, make_record
    from harness.host import matrix

    if cell_id not in {c.id for c in matrix.select(matrix.load(Path("matrix.toml")), [named] if named else [])}:
        print(f"fake nox: cell {cell_id}: skipped, as the noxfile skips a cell --cells does not select")
        return 0
    what = behaviour("cells", cell_id)
    print(f"fake nox: cell {cell_id}: {what}")
    if what == "die":
        return 1
    cell = next(c for c in matrix.load(Path("matrix.toml")) if c.id == cell_id)
    ids = cases(Path.cwd())
    target = CellFiles(out, run_id, cell_id).results
    target.parent.mkdir(parents=True, exist_ok=True)
    write_collection(target, cell_id, ids)  # as the plugin does, at the end of collection
    with target.open("w") as handle:
        for number, case in enumerate(ids):
            if what == "hang" and number == len(ids) // 2:
                handle.flush()
                Path(os.environ["DRIVER_HANG"]).touch()
                time.sleep(3600)
            failed = what == "fail" and number == 0
            handle.write(json.dumps(make_record(
                run_id=run_id, cell_id=cell_id, case_id=case, family=case.split("::")[0],
                status="failed" if failed else "passed", jax=cell.jax, jaxlib=cell.jaxlib, flax=cell.flax,
                python=cell.python, backend=cell.backend,
                error_type="AssertionError" if failed else None,
                error_message="AssertionError: the sharding moved" if failed else None)) + "\n")
    done = CellFiles(out, run_id, cell_id).done
    done.write_text(json.dumps({"schema_version": 1, "cell_id": cell_id, "returncode": 0}))
    return 0


def frontier(flax: str, out: Path) -> int:
    sys.path.insert(0, str(Path.cwd() / "tests"))
    from frontier_fakes import fake, jax_versions
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    from shardmatrix import frontier_report, frontier_search

    what = behaviour("frontier", flax)
    print(f"fake nox: frontier of flax {flax}: {what}")
    if what == "die":
        return 1
    if what == "hang":  # one probe's cell recorded, then a release slower than the step's limit
        probed = out / "results" / "probe" / f"jax0.4.30-flax{flax}-py3.11.jsonl"
        probed.parent.mkdir(parents=True, exist_ok=True)
        probed.write_text("{}\n")
        Path(os.environ["DRIVER_HANG"]).touch()
        time.sleep(3600)
    candidates = jax_versions(8)
    _, probe = fake(candidates, {2, 3, 4, 5})
    found = frontier_search.measure(Version(flax), SpecifierSet(), candidates, probe, contemporary=candidates[3])
    frontier_report.store(out, frontier_report.to_json(found, SpecifierSet(">=0.5.0")))
    return 0


def ecosystem_project(args: list[str], out: Path) -> int:
    """One project's job of the ecosystem fan-out: its summary as `shardmatrix ecosystem --only NAME` writes it."""
    from reports.ecosystem_report import write

    name = option(args, "--only") or ""
    what = behaviour("projects", name)
    print(f"fake nox: ecosystem {name}: {what}")
    state = load()
    state.setdefault("ecosystem", []).append(args)
    save(state)
    if what == "die":
        return 1
    results = out / "results" / f"{name}.jsonl"  # what a stopped project's cells recorded before it stopped
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text("{}\n")
    if what == "hang":
        Path(os.environ["DRIVER_HANG"]).touch()
        time.sleep(3600)
    failed = what == "fail"
    causes = [{"signature": "AssertionError: the sharding moved", "example": "AssertionError: the sharding moved",
               "change": "", "cases": ["tests/test_mesh.py::test_sharded_sum"], "reproducer": ""}] if failed else []
    candidate = [a for a in args if re.fullmatch(r"(jax|flax)==[\w.]+", a)]
    # "elsewhere": the summary of an earlier run, against another baseline, left in the folder.
    baseline = option(args, "--baseline", "jax==0.8.2,flax==0.12.0")
    if what == "elsewhere":
        baseline = "jax==0.8.1,flax==0.12.0"
    write(out, {"candidate": candidate, "baseline": baseline,
                "as_of": option(args, "--as-of", "2026-01-20"), "whole_suite": False, "pending": [],
                "projects": [{"name": name, "why": "shards", "source": "sdist", "revision": f"{name} 1.0",
                              "verdict": "UNSAFE" if failed else "SAFE", "reason": "", "coverage": "",
                              # What a real run writes beside a verdict (a merge takes no SAFE without it).
                              "baseline": "jax0.8.2-flax0.12.0-py3.11", "candidate": "jax0.9.0-flax0.12.0-py3.11",
                              "tests": 1, "causes": causes}]})
    return 1 if failed else 0


# --- uv, python -------------------------------------------------------------------------------------------------


def uv(args: list[str]) -> int:
    if args[:2] == ["pip", "install"]:
        for requirement in args[2:]:
            local = re.fullmatch(r"shardmatrix(?:\[[\w,]+\])? @ file://(/\S+)", requirement)
            if local:  # what the job's python then imports, and its `shardmatrix` command
                state = load()
                state.setdefault("installed", {})[os.environ["GITHUB_WORKSPACE"]] = local.group(1)
                save(state)
        return record_install("uv", args[2:])
    print(f"fake uv: {' '.join(args)} is not emulated", file=sys.stderr)
    return 2


def python(args: list[str]) -> int:
    if args[:2] == ["-m", "pip"]:
        return record_install("pip", args[2:])
    if args[:3] == ["-m", "shardmatrix.frontier", "plan"]:
        plan = scenario()["frontier_plan"]
        if plan is None:
            print("shardmatrix: cannot read https://pypi.org/simple/flax/: HTTP 503", file=sys.stderr)
            return 2
        print(json.dumps(plan))
        return 0
    installed = load().get("installed", {}).get(os.environ.get("GITHUB_WORKSPACE", ""))
    if scenario().get("json_api"):  # the index the real command reads, offline ($SHARDMATRIX_JSON_API)
        os.environ["SHARDMATRIX_JSON_API"] = scenario()["json_api"]
    if installed:
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [installed, os.environ.get("PYTHONPATH")]))
    os.execv(os.environ["DRIVER_PYTHON"], [os.environ["DRIVER_PYTHON"], *args])
    return 0


# --- shardmatrix ----------------------------------------------------------------------------------------------------

EXITS = {"SAFE": 0, "UNSAFE": 1, "INCONCLUSIVE": 2, "BROKEN": 3}


def shardmatrix(args: list[str]) -> int:
    state = load()
    if os.environ.get("GITHUB_WORKSPACE", "") not in state.get("installed", {}):
        print("shardmatrix: command not found", file=sys.stderr)
        return 127
    state.setdefault("shardmatrix", []).append(args)
    save(state)
    verdict = behaviour_of("verdict", "SAFE")
    print(f"fake shardmatrix {' '.join(args)}: {verdict}")
    if verdict == "BROKEN":
        return EXITS[verdict]
    out = Path(option(args, "--out", "out") or "out")
    (out / "report").mkdir(parents=True, exist_ok=True)
    regressed = "| `test_model::test_gather` | jax 0.9.2 | AssertionError |\n" if verdict == "UNSAFE" else ""
    coverage = str(scenario().get("coverage", ""))
    if args[0] == "watch":
        # shardmatrix.watch's files: the state (judgments), the JSON summary, a compare report per release.
        state_file = Path(option(args, "--state") or "")
        remembered = json.loads(state_file.read_text())["judged"] if state_file.is_file() else []
        known = {j["version"] for j in remembered}
        judged = [{"package": "jax", "version": v, "verdict": verdict, "regressed": ["test_model::test_gather"]
                   if verdict == "UNSAFE" else [], "first_bad": f"jax=={v}" if verdict == "UNSAFE" else "",
                   "report": str(out / "report" / "watch" / f"jax-{v}.md"), "coverage": coverage}
                  for v in scenario().get("releases", []) if v not in known]
        for judgment in judged:
            Path(judgment["report"]).parent.mkdir(parents=True, exist_ok=True)
            Path(judgment["report"]).write_text(f"# {verdict}\n\njax {judgment['version']}\n{regressed}")
        state_file.write_text(json.dumps({"schema_version": 1, "judged": remembered + judged}))
        Path(option(args, "--json") or "").write_text(json.dumps(
            {"schema_version": 1, "verdict": verdict, "judged": judged, "remembered": remembered}))
    else:
        (out / "report" / "compare.md").write_text(f"# {verdict}\n\nthe candidate\n{regressed}")
        (out / "report" / "compare.json").write_text(json.dumps(
            {"schema_version": 2, "verdict": verdict, "coverage": coverage, "reasons": [],
             "regressions": scenario().get("regressions", {"documented": 0, "known": 0,
                                                           "unexplained": int(verdict == "UNSAFE")})}))
    return EXITS[verdict]


def behaviour_of(key: str, default: str) -> str:
    """The scenario's `key`: one value, or one per attempt ({"1": ..., "*": ...})."""
    setting = scenario().get(key, default)
    if isinstance(setting, dict):
        setting = setting.get(str(scenario()["attempt"]), setting.get("*", default))
    return str(setting)


if __name__ == "__main__":
    tool = sys.argv[1]
    raise SystemExit({"gh": gh, "nox": nox, "uv": uv, "python": python, "shardmatrix": shardmatrix}[tool](sys.argv[2:]))
