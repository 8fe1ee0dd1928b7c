"""compat.csv and compat.json written from reports.verdicts.compat.verdicts() (harness.outputs owns both formats)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness import outputs
from harness.formats import Source


def write(table: pd.DataFrame, report_dir: Path) -> tuple[Path, Path]:
    """compat.csv (causes, changes and known bugs joined by ' | ', sources as 'flax 0.12.6+tree.5a0b5832 from
    file:///src/flax') and compat.json (a list of objects, sources as {package: {version, where, label}}), each row
    carrying its schema_version (harness.outputs owns both files)."""
    csv_path, json_path = Path(report_dir) / outputs.COMPAT_CSV.name, Path(report_dir) / outputs.COMPAT_JSON.name
    sources: list[dict[str, Source]] = ([found if isinstance(found, dict) else {} for found in table["sources"]]
                                        if "sources" in table else [{} for _ in range(len(table))])
    outputs.write_frame(csv_path, outputs.COMPAT_CSV, table.assign(
        causes=[" | ".join(found) for found in table["causes"]],
        family_coverage=[" | ".join(found) for found in table["family_coverage"]],
        changes=[" | ".join(found) for found in table["changes"]],
        known_bugs=[" | ".join(found) for found in table["known_bugs"]],
        family_verdicts=[" | ".join(f"{family}: {said['verdict']}" for family, said in found.items())
                         for found in table["family_verdicts"]],
        sources=[" | ".join(f"{s.package} {s.tag} from {s.where}" for _, s in sorted(found.items()))
                 for found in sources]))
    records = table.to_dict("records")
    for record, found in zip(records, sources, strict=True):
        record["sources"] = {name: {"version": s.version, "where": s.where, "label": s.label}
                             for name, s in sorted(found.items())}
    return csv_path, outputs.write_rows(json_path, outputs.COMPAT_JSON, records)
