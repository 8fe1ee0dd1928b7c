"""Which tests read from source a cell's `-k` and `--deselect` leave in, for the records the host writes on a cell's
behalf (harness.host.unreported: a cell not built, a conftest that stopped pytest, a process that died).

pytest applies the selection to what it collects; when it collected nothing, the host answers for the tests a
source scan finds, and without this it answered for every one of them, `-k` aside: tests the baseline never ran
were then "recorded on one side only". `-k` is evaluated with pytest's own expression grammar over what the source
tells of a test: its file, class and function names, not its markers, parameter ids or folders. Where the
expression cannot be evaluated here (a pytest whose grammar moved), and for `-m` (marks are not read from source),
every test is kept. A test kept too many is an answer on one side only; one dropped that pytest would have run
leaves the baseline's record without a counterpart: either way the verdict cannot be SAFE.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

#: The plugin's option that deselects one case id (harness.host.options.LeftOut.pytest_args).
DESELECT = "--shardmatrix-deselect"


def keyword_matcher(expression: str) -> Callable[[Sequence[str]], bool] | None:
    """A function telling whether pytest's `-k expression` selects a test of these names; None where this pytest's
    grammar cannot be used (the expression is then unknown here, and every test is kept)."""
    try:
        from _pytest.mark.expression import Expression  # pytest's own grammar: `and`, `or`, `not`, parentheses

        compiled = Expression.compile(expression)
    except Exception:  # a private API that moved, or an expression pytest itself will refuse
        return None

    def selects(names: Sequence[str]) -> bool:
        lowered = [name.lower() for name in names]

        def matches(part: str, /, **_: object) -> bool:  # -m may pass arguments; -k never does
            return any(part.lower() in name for name in lowered)

        return bool(compiled.evaluate(matches))

    return selects


def source_names(case_id: str) -> list[str]:
    """The names pytest's `-k` matches that a source scan knows of a case `<module>::[Class::]test`: its file, its
    class and its function; for a module named by the end of its path (`core/misc_util_test`), its folders too."""
    module, _, rest = case_id.partition("::")
    *folders, stem = module.split("/")
    return [*folders, stem, f"{stem}.py", *rest.split("[")[0].split("::")]


def left_in(case_ids: Sequence[str], pytest_args: Sequence[str]) -> list[str]:
    """`case_ids` less those `pytest_args` (a cell's `-k EXPR` and `--shardmatrix-deselect ID`) leave out."""
    keywords = _value(pytest_args, "-k")
    deselected = {arg.split("[")[0] for flag, arg in itertools.pairwise(pytest_args) if flag == DESELECT}
    selects = keyword_matcher(keywords) if keywords else None
    return [case_id for case_id in case_ids if case_id.split("[")[0] not in deselected
            and (selects is None or selects(source_names(case_id)))]


def _value(args: Sequence[str], flag: str) -> str | None:
    return next((value for name, value in itertools.pairwise(args) if name == flag), None)
