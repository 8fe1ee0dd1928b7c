"""What a test reads back from an HTML page: its tags in order, its text and its attributes, and its hover texts
(standard library only)."""

from __future__ import annotations

from html.parser import HTMLParser


class Page(HTMLParser):
    """Every start tag, every run of text and every attribute (`name=value`) of a page, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []
        self.attributes: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [f"{name}={value}" for name, value in attrs]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(page: str) -> Page:
    """The page, parsed to its end."""
    parser = Page()
    parser.feed(page)
    parser.close()
    return parser


class HoverTips(HTMLParser):
    """Reads each hover text of a page and hands it to `tip_read` when its span closes; `reading()` says whether a
    tip opening here counts."""

    def __init__(self) -> None:
        super().__init__()
        self._tip: str | None = None

    def reading(self) -> bool:
        """Whether a tip opening now is read (every one, unless a subclass says otherwise)."""
        return True

    def tip_read(self, text: str) -> None:
        """What to do with one tip's text."""
        raise NotImplementedError

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "span" and dict(attrs).get("class") == "pd-t" and self.reading():
            self._tip = ""

    def handle_data(self, data: str) -> None:
        if self._tip is not None:
            self._tip += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "span" and self._tip is not None:
            self.tip_read(self._tip)
            self._tip = None
