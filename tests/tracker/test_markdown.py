"""Markdown of comments and descriptions: rendered, sanitised, members' @mentions linked (tracker/markdown.py)."""

from __future__ import annotations

from html.parser import HTMLParser

from tracker.markdown import Mentions, mentioned, render

TEAM = Mentions.of("acme", ["alice", "bob"])


class Elements(HTMLParser):
    """Every start tag with its attributes, as a browser would parse the page."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))

    @property
    def tags(self) -> list[str]:
        return [tag for tag, _ in self.found]

    def attributes(self) -> set[str]:
        return {name for _, attrs in self.found for name in attrs}


def test_bold_becomes_strong() -> None:
    assert render("**bold** and _it_") == "<p><strong>bold</strong> and <em>it</em></p>\n"


def test_a_script_tag_is_escaped_text_never_an_element() -> None:
    html = render("<script>alert(1)</script>")
    assert html == "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"
    assert "script" not in Elements(html).tags


def test_javascript_and_data_links_are_not_links() -> None:
    for text in ("[x](javascript:alert(1))", "[x](JaVaScRiPt:alert(1))", "[x](data:text/html;base64,PHNjcmlwdD4=)"):
        html = render(text)
        assert "a" not in Elements(html).tags, text
        assert "href" not in html, text


def test_an_img_with_onerror_never_becomes_an_element() -> None:
    html = render('<img src=x onerror="alert(1)"> ![pic](http://example.com/p.png)')
    elements = Elements(html)
    assert "img" not in elements.tags
    assert not any(name.startswith("on") for name in elements.attributes())
    # an image written in markdown is a link to it (no tracking pixels)
    assert ("a", {"href": "http://example.com/p.png", "rel": "nofollow noopener"}) in elements.found


def test_links_get_rel_nofollow_noopener() -> None:
    assert render('[docs](https://example.com/a "Docs")') == (
        '<p><a href="https://example.com/a" title="Docs" rel="nofollow noopener">docs</a></p>\n'
    )


def test_headings_move_down_under_the_page_headings_and_tables_and_strikethrough_render() -> None:
    assert render("# One\n## Two\n#### Four").split("\n")[:3] == ["<h3>One</h3>", "<h4>Two</h4>", "<h6>Four</h6>"]
    assert render("~~gone~~") == "<p><s>gone</s></p>\n"
    assert Elements(render("| a | b |\n|---|---|\n| 1 | 2 |")).tags == [
        "table",
        "thead",
        "tr",
        "th",
        "th",
        "tbody",
        "tr",
        "td",
        "td",
    ]


def test_mentions_of_members_link_to_their_issues_and_others_stay_text() -> None:
    html = render("@alice and @bob, ask @carol (bob@example.com) `@alice`", TEAM)
    assert html == (
        '<p><a href="/t/acme/issues/?assignee=alice" class="mention" rel="nofollow noopener">@alice</a> and '
        '<a href="/t/acme/issues/?assignee=bob" class="mention" rel="nofollow noopener">@bob</a>, ask @carol '
        "(bob@example.com) <code>@alice</code></p>\n"
    )
    assert render("@alice") == "<p>@alice</p>\n"  # nobody may be mentioned without the team


def test_mentioned_lists_members_outside_code_and_links_once_each() -> None:
    text = "@bob look, @alice too; again @bob. `@alice` [@alice](https://x.example) @carol"
    assert mentioned(text, TEAM) == ["bob", "alice"]
    assert mentioned("```\n@alice\n```", TEAM) == []


def test_line_breaks_are_kept_and_nothing_is_an_empty_string() -> None:
    assert render("one\ntwo") == "<p>one<br>\ntwo</p>\n"
    assert render("") == ""
    assert render(None) == ""
