from __future__ import annotations

from harness.case import MARKER, api, case


def test_case_marks_family_devices_needs_and_timeout() -> None:
    @case("fam", devices=8, needs=[api("json.dumps")], timeout=3)
    def test_x() -> None: ...

    marks = {m.name: m for m in test_x.pytestmark}  # type: ignore[attr-defined]
    assert marks[MARKER].kwargs == {"family": "fam", "devices": 8, "needs": (api("json.dumps"),)}
    assert marks["timeout"].args == (3,)


def test_case_without_timeout_adds_no_timeout_mark() -> None:
    @case("fam")
    def test_y() -> None: ...

    assert [m.name for m in test_y.pytestmark] == [MARKER]  # type: ignore[attr-defined]
