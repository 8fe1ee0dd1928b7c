"""What a test reads back from an HTML page: its tags in order, its text and its attributes (standard library only)."""

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
