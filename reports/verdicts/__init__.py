"""reports' verdicts floor: what the shaped results mean (a cell's verdict, an upgrade's, causes, known changes)."""
