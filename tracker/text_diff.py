"""Word diffs of two texts (a title or a description before and after an edit), in bounded time, stdlib only.

``word_diff(before, after)`` compares the texts word by word (a word is a run of letters and digits;
each punctuation mark, kana or CJK character is a word of its own; the spaces and line breaks after
a word go with it and are not compared) and returns segments: unchanged words, removed ones, added ones, and gaps where
long unchanged stretches were left out (``CONTEXT_WORDS`` are kept on each side of a change).

Why not ``difflib.SequenceMatcher`` over the whole text: with ``autojunk=False`` (which frequent
words like "the" need, or they never match) its ``find_longest_match`` is quadratic and its
recursion makes it cubic on repetitive text: 10 KB of ``"a "`` against 10 KB of ``"a b "`` did not
finish in five minutes (measured, and common prose of a small vocabulary took 0.4–1.6 s). So the
texts are compared in three bounded steps: the common beginning and end are skipped (linear), the
rest is anchored on words that occur exactly once in each side (patience diff: the longest
increasing run of such pairs, O(n log n)), and only the stretches between anchors that are small
(``SMALL_PRODUCT`` = words before × words after) go to ``SequenceMatcher``; a larger stretch with
no anchor is shown as rewritten (removed, then added). A budget of words examined
(``WORK_BUDGET``) ends the anchoring of pathological input the same way. The worst 10 KB × 10 KB
case stays well under a tenth of a second (tests/tracker/test_text_diff.py measures it).
``diff-match-patch`` (Google's algorithm, with a timeout) was the fallback, not needed: no new
dependency.

``stored_diff`` makes the compact form an ``issue.edited`` event keeps (``"=…"`` unchanged, ``"-…"``
removed, ``"+…"`` added, ``"~"`` a gap), capped at ``DIFF_MAX_BYTES`` as DynamoDB sizes it (a list:
3 bytes, and each string's UTF-8 bytes + 1), so a description edit's event grows by at most 2 KB:
at most 2 WCU more, and as much for its ``by_day`` copy; what did not fit is counted in a last
``"!<n>"`` (n more changed words not kept).
``stored_segments`` reads it back. Pure functions, no I/O: the history (``selectors.activity``)
renders the segments as ``<del>``/``<ins>`` with classes (no style attributes: the CSP forbids them).
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Op = Literal["equal", "delete", "insert", "gap"]
CONTEXT_WORDS = 8  # unchanged words kept on each side of a change
SMALL_PRODUCT = 4_096  # a stretch this small (words before × words after) goes to SequenceMatcher
WORK_BUDGET = 60_000  # words examined while anchoring (a 10 KB text: ≤ 10,000 a side); past it: rewritten
DIFF_MAX_BYTES = 2_000  # the stored ops' size as DynamoDB counts a list of strings (``stored_size``)
_COUNT_ROOM = 9  # the last "!<n>" element: its byte, "!" and up to 7 digits

_IDEOGRAPHS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # kana and CJK: written without spaces
_WORD_RE = re.compile(rf"([{_IDEOGRAPHS}]|[^\W{_IDEOGRAPHS}]+|[^\w\s])(\s*)")
_STORED_OP: dict[str, Op] = {"=": "equal", "-": "delete", "+": "insert", "~": "gap"}
_STORED_MARK = {op: mark for mark, op in _STORED_OP.items()}


@dataclass(frozen=True)
class Segment:
    """A piece of the diff: ``op`` is equal, delete, insert or gap (unchanged words left out, ``text`` empty)."""

    op: Op
    text: str = ""


@dataclass(frozen=True)
class StoredDiff:
    """A stored diff read back: its segments, and how many changed words did not fit (0: all did)."""

    segments: tuple[Segment, ...]
    not_kept: int = 0


@dataclass(frozen=True)
class _Token:
    word: str
    space: str

    @property
    def text(self) -> str:
        return self.word + self.space


def tokens(text: str) -> list[_Token]:
    """The words of ``text`` (letters and digits, one kana or CJK character, or one punctuation mark), each with
    the spaces after it."""
    return [_Token(m.group(1), m.group(2)) for m in _WORD_RE.finditer(text)]


# --------------------------------------------------------------------------------- matching


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of ``pairs`` (sorted by their first) whose seconds increase: O(n log n)."""
    tails: list[int] = []  # tails[k]: the smallest second ending an increasing run of length k + 1
    tail_at: list[int] = []  # ... and the index of that pair
    back: list[int] = [-1] * len(pairs)
    for index, (_, second) in enumerate(pairs):
        k = bisect.bisect_left(tails, second)
        if k == len(tails):
            tails.append(second)
            tail_at.append(index)
        else:
            tails[k], tail_at[k] = second, index
        back[index] = tail_at[k - 1] if k else -1
    run: list[tuple[int, int]] = []
    index = tail_at[-1] if tail_at else -1
    while index >= 0:
        run.append(pairs[index])
        index = back[index]
    return run[::-1]


class _Matcher:
    """The matching word positions of two word lists (patience anchors, SequenceMatcher in small stretches)."""

    def __init__(self, a: Sequence[str], b: Sequence[str]) -> None:
        self.a, self.b = a, b
        self.budget = WORK_BUDGET
        self.matches: list[tuple[int, int]] = []

    def run(self) -> list[tuple[int, int]]:
        stack = [(0, len(self.a), 0, len(self.b))]
        while stack:
            stack += reversed(self._stretch(*stack.pop()))
        return sorted(self.matches)

    def _stretch(self, alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int, int, int]]:
        """Match what it can in a[alo:ahi] × b[blo:bhi]; the stretches left to look into."""
        a, b = self.a, self.b
        while alo < ahi and blo < bhi and a[alo] == b[blo]:  # the same beginning
            self.matches.append((alo, blo))
            alo, blo = alo + 1, blo + 1
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:  # the same end
            ahi, bhi = ahi - 1, bhi - 1
            self.matches.append((ahi, bhi))
        if alo == ahi or blo == bhi:
            return []
        if (ahi - alo) * (bhi - blo) <= SMALL_PRODUCT:
            matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            for i, j, size in matcher.get_matching_blocks():
                self.matches += [(alo + i + k, blo + j + k) for k in range(size)]
            return []
        self.budget -= (ahi - alo) + (bhi - blo)
        if self.budget < 0:
            return []  # pathological input: the rest reads as rewritten
        in_a, in_b = Counter(a[alo:ahi]), Counter(b[blo:bhi])
        where_b = {b[j]: j for j in range(blo, bhi) if in_b[b[j]] == 1}
        pairs = [(i, where_b[a[i]]) for i in range(alo, ahi) if in_a[a[i]] == 1 and a[i] in where_b]
        anchors = _longest_increasing(pairs)
        if not anchors:
            return []  # nothing in common that can be told apart: rewritten
        stretches = []
        for i, j in anchors:
            stretches.append((alo, i, blo, j))
            self.matches.append((i, j))
            alo, blo = i + 1, j + 1
        return [*stretches, (alo, ahi, blo, bhi)]


# --------------------------------------------------------------------------------- segments


def _merged(segments: list[Segment]) -> list[Segment]:
    result: list[Segment] = []
    for segment in segments:
        if result and result[-1].op == segment.op and segment.op != "gap":
            result[-1] = Segment(segment.op, result[-1].text + segment.text)
        elif segment.text or segment.op == "gap":
            result.append(segment)
    return result


@dataclass
class _Run:
    """Equal, deleted or inserted words in a row; an equal run also keeps the old words (their old spacing)."""

    op: Op
    words: list[_Token]
    old: list[_Token]


def _runs(before: list[_Token], after: list[_Token]) -> list[_Run]:
    """Runs of equal / deleted / inserted tokens, a change's deletions before its insertions."""
    matches = _Matcher([t.word for t in before], [t.word for t in after]).run()
    runs: list[_Run] = []

    def add(op: Op, found: list[_Token], old: list[_Token]) -> None:
        if not found:
            return
        if runs and runs[-1].op == op:
            runs[-1].words += found
            runs[-1].old += old
        else:
            runs.append(_Run(op, list(found), list(old)))

    i = j = 0
    for mi, mj in [*matches, (len(before), len(after))]:
        add("delete", before[i:mi], before[i:mi])
        add("insert", after[j:mj], after[j:mj])
        if mi < len(before):
            add("equal", [after[mj]], [before[mi]])  # the words are equal; the spacing shown is the new one
        i, j = mi + 1, mj + 1
    return _cleaned(runs)


def _cleaned(runs: list[_Run]) -> list[_Run]:
    """Fold a short unchanged stretch between two changes into them ("the", a comma), as people read it.

    diff-match-patch's semantic rule: an equality no longer than the changes on both sides of it.
    """
    out: list[_Run] = []
    for k, run in enumerate(runs):
        if run.op == "equal" and 0 < k < len(runs) - 1 and runs[k - 1].op != "equal" and runs[k + 1].op != "equal":
            left = sum(len(r.words) for r in runs[max(0, k - 2) : k] if r.op != "equal")
            right = sum(len(r.words) for r in runs[k + 1 : k + 3] if r.op != "equal")
            if len(run.words) <= min(left, right):
                out += [_Run("delete", run.old, run.old), _Run("insert", run.words, run.words)]
                continue
        out.append(run)
    # regroup each change: all its deletions, then all its insertions
    grouped: list[_Run] = []
    changes: tuple[Op, Op] = ("delete", "insert")
    pending: dict[Op, list[_Token]] = {"delete": [], "insert": []}
    for run in [*out, _Run("equal", [], [])]:
        if run.op == "equal":
            grouped += [_Run(op, pending[op], pending[op]) for op in changes if pending[op]]
            pending = {"delete": [], "insert": []}
            if run.words:
                grouped.append(run)
        else:
            pending[run.op] = pending[run.op] + run.words
    return grouped


def _reach(found: list[_Token]) -> int:
    """How many tokens from the start of ``found`` hold ``CONTEXT_WORDS`` words (punctuation does not count)."""
    words = 0
    for index, token in enumerate(found):
        words += token.word[0].isalnum() or token.word[0] == "_"
        if words == CONTEXT_WORDS:
            return index + 1
    return len(found)


def _context(found: list[_Token], *, keep_head: bool, keep_tail: bool) -> list[Segment]:
    """An unchanged run, with only ``CONTEXT_WORDS`` words kept next to the changes it touches."""
    head = _reach(found) if keep_head else 0
    tail = _reach(found[::-1]) if keep_tail else 0
    if head + tail >= len(found):
        return [Segment("equal", "".join(t.text for t in found))]
    return [
        Segment("equal", "".join(t.text for t in found[:head])),
        Segment("gap"),
        Segment("equal", "".join(t.text for t in found[len(found) - tail :])),
    ]


def word_diff(before: str, after: str) -> list[Segment]:
    """What changed from ``before`` to ``after``, word by word; ``[]`` when no word changed (spacing may have)."""
    runs = _runs(tokens(before), tokens(after))
    if all(run.op == "equal" for run in runs):
        return []
    segments: list[Segment] = []
    for k, run in enumerate(runs):
        if run.op == "equal":
            segments += _context(run.words, keep_head=k > 0, keep_tail=k < len(runs) - 1)
        else:
            segments.append(Segment(run.op, "".join(t.text for t in run.words)))
    return _merged(segments)


# --------------------------------------------------------------------------------- stored form


def _words(text: str) -> int:
    return sum(1 for _ in _WORD_RE.finditer(text))


def _cut(text: str, room: int) -> str:
    """The longest start of ``text`` within ``room`` UTF-8 bytes (never half a character)."""
    return text.encode()[: max(room, 0)].decode(errors="ignore")


def stored_size(ops: list[str]) -> int:
    """The size DynamoDB gives ``ops`` stored as a list of strings: 3 bytes, and each string's UTF-8 + 1."""
    return 3 + sum(len(op.encode()) + 1 for op in ops)


def stored_diff(before: str, after: str, *, max_bytes: int = DIFF_MAX_BYTES) -> list[str]:
    """The compact diff an event keeps: ``["=…", "-…", "+…", "~", …]``, ``stored_size`` at most ``max_bytes``.

    What does not fit is left out from the first op that overflows on (a change cut short shows its
    beginning), and counted in a last op ``"!<n>"``: n changed words not kept.
    """
    ops: list[str] = []
    used = stored_size([])
    segments = word_diff(before, after)
    for index, segment in enumerate(segments):
        op = _STORED_MARK[segment.op] + segment.text
        size = len(op.encode()) + 1
        if used + size + _COUNT_ROOM <= max_bytes or (index == len(segments) - 1 and used + size <= max_bytes):
            ops.append(op)
            used += size
            continue
        rest = [s for s in segments[index:] if s.op in ("delete", "insert")]
        left_out = sum(_words(s.text) for s in rest)
        if segment.op in ("delete", "insert"):
            shown = _cut(segment.text, max_bytes - used - 2 - _COUNT_ROOM)  # room for the op and "!<n>"
            if shown:
                ops.append(_STORED_MARK[segment.op] + shown)
                left_out -= _words(shown)
        ops.append(f"!{max(left_out, 1)}")
        break
    return ops


def stored_segments(ops: object) -> StoredDiff | None:
    """``stored_diff``'s ops read back; None for anything that is not a list of such ops (an old or odd event)."""
    if not isinstance(ops, list | tuple) or not all(isinstance(op, str) and op for op in ops):
        return None
    segments: list[Segment] = []
    not_kept = 0
    for op in ops:
        mark, text = op[0], op[1:]
        if mark == "!" and text.isdigit():
            not_kept = int(text)
        elif mark in _STORED_OP:
            segments.append(Segment(_STORED_OP[mark], "" if mark == "~" else text))
        else:
            return None
    return StoredDiff(tuple(segments), not_kept)
