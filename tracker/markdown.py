"""Markdown of comments and issue descriptions: rendered by markdown-it-py, sanitised by nh3, @mentions linked.

Line breaks inside a paragraph are kept (``<br>``), as people expect in comments.

Two locks, either enough on its own:

1. markdown-it-py in CommonMark mode with raw HTML off: ``<script>`` or ``<img onerror=…>`` typed
   in a comment is text, escaped; its link validator refuses ``javascript:``, ``vbscript:`` and
   ``file:`` URLs (the text stays, the link goes). Tables and ~~strikethrough~~ are on (GFM's),
   images off (``![x](url)`` is a link to ``url``: no tracking pixels, no layout surprises).
2. nh3 (the Ammonia sanitiser) cleans what comes out against an allow-list of tags and
   attributes, only ``http``, ``https`` and ``mailto`` URLs (and the site's own relative ones),
   and every link gets ``rel="nofollow noopener"``. No ``<script>``, no ``on*`` attribute, no
   ``style``, no ``data:`` URL reaches the page, whatever the first step lets through.

Headings move down two levels (``#`` → ``<h3>``, ``####`` and below → ``<h6>``): a comment's
headings sit under the page's own ``<h1>``/``<h2>``.

@mentions: ``@alice`` becomes a link to the team's issues assigned to alice when alice is one of
the team's members (``Mentions.usernames``); ``@someone-else`` stays text. A mention is a word:
``bob@example.com`` is no mention, neither is anything in code or inside a link.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import nh3
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

ALLOWED_TAGS = {
    "p",
    "br",
    "strong",
    "em",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "a",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "del",
    "s",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
ALLOWED_CLASSES = {"a": {"mention"}}
URL_SCHEMES = {"http", "https", "mailto"}
LINK_REL = "nofollow noopener"
HEADING_SHIFT = 2
# A username as Django allows it (letters, digits, @ . + - _), after an @ that starts a word.
_MENTION = re.compile(r"(?<![\w@.+-])@([\w.+-]*\w)")


@dataclass(frozen=True)
class Mentions:
    """Who may be mentioned (the team's usernames), and the team whose issue list a mention links to."""

    tenant: str
    usernames: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, tenant: str, usernames: Iterable[str]) -> Mentions:
        return cls(tenant=tenant, usernames=frozenset(usernames))

    def url(self, username: str) -> str:
        """The team's issues assigned to ``username`` (the tenant-wide list, ``?assignee=``)."""
        return f"{reverse('tenant_issues', kwargs={'tenant': self.tenant})}?{urlencode({'assignee': username})}"


def _shift_headings(state: StateCore) -> None:
    for token in state.tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + HEADING_SHIFT, 6)}"


def _link_mentions(state: StateCore) -> None:
    """Split text tokens at @mentions of members into link tokens; record who was mentioned."""
    mentions: Mentions | None = state.env.get("mentions")
    found: list[str] = state.env.setdefault("mentioned", [])
    if mentions is None:
        return
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        inside_link = 0
        for token in block.children:
            if token.type == "link_open":
                inside_link += 1
            elif token.type == "link_close":
                inside_link -= 1
            if token.type != "text" or inside_link or "@" not in token.content:
                children.append(token)
                continue
            children.extend(_split(token.content, mentions, found))
        block.children = children


def _split(text: str, mentions: Mentions, found: list[str]) -> list[Token]:
    tokens: list[Token] = []
    position = 0
    for match in _MENTION.finditer(text):
        username = match.group(1)
        if username not in mentions.usernames:
            continue
        if match.start() > position:
            tokens.append(_text(text[position : match.start()]))
        link = Token("link_open", "a", 1)
        link.attrs = {"href": mentions.url(username), "class": "mention"}
        tokens += [link, _text(f"@{username}"), Token("link_close", "a", -1)]
        if username not in found:
            found.append(username)
        position = match.end()
    if position < len(text):
        tokens.append(_text(text[position:]))
    return tokens


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False, "breaks": True})
    parser.enable(["table", "strikethrough"])
    parser.disable("image")
    parser.core.ruler.push("shift_headings", _shift_headings)
    parser.core.ruler.push("link_mentions", _link_mentions)
    return parser


_PARSER = _parser()


def sanitise(html: str) -> str:
    """``html`` through nh3's allow-list: safe tags and attributes only, safe URLs only, rel on links."""
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        allowed_classes=ALLOWED_CLASSES,
        url_schemes=URL_SCHEMES,
        link_rel=LINK_REL,
        strip_comments=True,
    )


def render(text: str | None, mentions: Mentions | None = None) -> SafeString:
    """The markdown ``text`` as sanitised HTML, safe to put in a page (members' @mentions linked)."""
    if not text:
        return mark_safe("")
    env: dict[str, Any] = {"mentions": mentions}
    return mark_safe(sanitise(_PARSER.render(text, env)))  # noqa: S308  (sanitised by nh3 just now)


def mentioned(text: str, mentions: Mentions) -> list[str]:
    """The members ``text`` mentions (@username outside code and links), in order of first mention."""
    env: dict[str, Any] = {"mentions": mentions}
    _PARSER.parse(text, env)
    return list(env["mentioned"])


_PLAIN_BLOCKS = frozenset({"code_block", "fence"})


def plain_text(text: str | None) -> str:
    """The words of the markdown ``text`` as a reader sees them, without the formatting: one line.

    ``**only**`` → ``only``, ``[the docs](https://…)`` → ``the docs``, ``# Steps`` → ``Steps``;
    code keeps its content; paragraphs, list items and line breaks become single spaces. For
    inbox previews and e-mails, where the markdown is not rendered.
    """
    if not text:
        return ""
    words: list[str] = []
    for token in _PARSER.parse(text, {"mentions": None}):
        if token.type in _PLAIN_BLOCKS:
            words.append(token.content)
        elif token.type == "inline":
            for child in token.children or ():
                if child.type in ("text", "code_inline"):
                    words.append(child.content)
                elif child.type in ("softbreak", "hardbreak"):
                    words.append(" ")
        words.append(" ")
    return " ".join("".join(words).split())
