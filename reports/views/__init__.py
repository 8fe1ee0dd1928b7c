"""reports' views floor: how data and verdicts are drawn (HTML, Markdown, text, reproducers); a view never decides."""
