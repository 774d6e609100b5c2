"""A small HTML tree for tests of the inspector page (stdlib ``html.parser`` only)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Callable, Iterator

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list["Node | str"] = field(default_factory=list)
    parent: "Node | None" = None

    @property
    def classes(self) -> list[str]:
        return (self.attrs.get("class") or "").split()

    def text(self, skip: Callable[["Node"], bool] = lambda n: False) -> str:
        out: list[str] = []

        def walk(n: Node) -> None:
            for c in n.children:
                if isinstance(c, str):
                    out.append(c)
                elif not skip(c):
                    walk(c)
        walk(self)
        return "".join(out)

    def iter(self) -> Iterator["Node"]:
        for c in self.children:
            if isinstance(c, Node):
                yield c
                yield from c.iter()

    def find_all(self, pred: Callable[["Node"], bool]) -> list["Node"]:
        return [n for n in self.iter() if pred(n)]

    def by_id(self, ident: str) -> "Node | None":
        return next((n for n in self.iter() if n.attrs.get("id") == ident), None)

    def ancestors(self) -> Iterator["Node"]:
        n = self.parent
        while n is not None:
            yield n
            n = n.parent


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.stack = [self.root]
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs}, parent=self.stack[-1])
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {k: v or "" for k, v in attrs}, parent=self.stack[-1]))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if self.stack[-1].tag != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1].tag}>")
            while len(self.stack) > 1 and self.stack[-1].tag != tag:
                self.stack.pop()
        if len(self.stack) > 1:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(page: str, *, strict: bool = True) -> Node:
    """Parse ``page``; with ``strict``, every element must be closed by its own end tag."""
    b = _Builder()
    b.feed(page)
    b.close()
    if strict:
        assert not b.errors, b.errors[:5]
        assert len(b.stack) == 1, f"unclosed: {[n.tag for n in b.stack[1:]]}"
    return b.root
