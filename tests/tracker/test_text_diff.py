"""Word diffs (tracker/text_diff.py): what they show, the stored form and its cap, and their time on the worst input."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import pytest

from ddbmodels import events
from devtools.bench.floors import attribute_size
from tracker import text_diff
from tracker.text_diff import DIFF_MAX_BYTES, Segment, stored_diff, stored_segments, stored_size, word_diff

WORST_CASE_CPU_SECONDS = 0.1  # 10 KB against 10 KB, the best of three runs' CPU time (other processes share it)


def shown(segments: list[Segment]) -> str:
    """The diff as a reader sees it: [-removed-] {+added+} and … for unchanged words left out."""
    marks = {"equal": "{}", "delete": "[-{}-]", "insert": "{{+{}+}}", "gap": "…"}
    return "".join(marks[s.op].format(s.text) for s in segments)


def test_a_changed_word_is_removed_then_added_between_its_unchanged_neighbours() -> None:
    assert shown(word_diff("The cat sat on the mat.", "The dog sat on the red mat!")) == (
        "The [-cat -]{+dog +}sat on the [-mat.-]{+red mat!+}"
    )


def test_titles_diff_by_words_not_characters() -> None:
    assert shown(word_diff("Crash on save", "Crash when saving")) == "Crash [-on save-]{+when saving+}"


def test_empty_before_or_after_is_all_added_or_all_removed() -> None:
    assert shown(word_diff("", "Steps: open, save")) == "{+Steps: open, save+}"
    assert shown(word_diff("Steps: open, save", "")) == "[-Steps: open, save-]"
    assert word_diff("", "") == []


def test_only_spacing_changed_is_no_word_changed() -> None:
    assert word_diff("one  two\nthree", "one two three") == []


def test_unicode_words_accents_and_ideographs() -> None:
    assert shown(word_diff("héllo wörld, ça va", "héllo welt, ça va")) == "héllo [-wörld-]{+welt+}, ça va"
    # Japanese is written without spaces: each character is a word, so one changed character is one change
    assert shown(word_diff("日本語のテキスト", "日本語のテスト")) == "日本語のテ[-キ-]スト"
    # emoji and combining marks pass through whole
    assert shown(word_diff("ship it 🚀 now", "ship it 🎉 now")) == "ship it [-🚀 -]{+🎉 +}now"


def test_long_unchanged_stretches_keep_eight_words_each_side() -> None:
    before = " ".join(f"w{i}" for i in range(100))
    after = before.replace("w50", "fifty")
    assert shown(word_diff(before, after)) == (
        "…w42 w43 w44 w45 w46 w47 w48 w49 [-w50 -]{+fifty +}w51 w52 w53 w54 w55 w56 w57 w58 …"
    )


def test_a_short_equal_between_two_changes_folds_into_them() -> None:
    # "the" alone between two rewritten words reads better as part of one change
    assert (
        shown(word_diff("cats chase the mice", "dogs fear the cats")) == "[-cats chase the mice-]{+dogs fear the cats+}"
    )


def test_the_stored_form_reads_back_as_the_same_segments() -> None:
    before = " ".join(f"w{i}" for i in range(100))
    after = before.replace("w10", "ten").replace("w80", "eighty")
    ops = stored_diff(before, after)
    assert ops[0] == "~"
    assert "-w10 " in ops
    assert "+ten " in ops
    read = stored_segments(ops)
    assert read is not None
    assert list(read.segments) == word_diff(before, after)
    assert read.not_kept == 0


def test_the_stored_form_is_capped_in_utf8_bytes_and_counts_what_it_left_out() -> None:
    before = "intro " + " ".join(f"old{i}" for i in range(1000))
    after = "intro " + " ".join(f"néw{i}" for i in range(1000))
    ops = stored_diff(before, after)
    assert stored_size(ops) <= DIFF_MAX_BYTES
    assert ops[0] == "=intro "
    assert ops[1].startswith("-old0 old1 ")  # the removal cut short shows its beginning
    assert ops[-1].startswith("!")
    read = stored_segments(ops)
    assert read is not None
    # every word removed or added is either shown or counted as not kept
    shown_words = sum(len(s.text.split()) for s in read.segments if s.op in ("delete", "insert"))
    assert 1990 <= shown_words + read.not_kept <= 2000


def test_the_cap_never_splits_a_character() -> None:
    ops = stored_diff("", "日本" * 3000, max_bytes=100)
    assert stored_size(ops) <= 100
    assert ops[0].startswith("+日本")
    assert ops[-1][0] == "!"
    assert ops[-1][1:].isdigit()


def test_the_cap_is_dynamodbs_size_of_the_list_however_many_small_changes() -> None:
    before = " ".join(f"w{i}" for i in range(1600))
    after = " ".join(f"w{i}" if i % 4 else f"x{i}" for i in range(1600))  # every 4th word changed: many ops
    ops = stored_diff(before, after)
    assert len(ops) > 200  # each adds 1 byte to its text
    assert attribute_size(events.to_attribute(ops)) == stored_size(ops)  # DynamoDB's rules (devtools.bench)
    assert DIFF_MAX_BYTES - 30 <= stored_size(ops) <= DIFF_MAX_BYTES
    assert ops[-1].startswith("!")
    edited = {"changed": {}, "description": True}
    grew = attribute_size(events.to_attribute({**edited, "diff": ops})) - attribute_size(events.to_attribute(edited))
    assert grew <= DIFF_MAX_BYTES + len("diff") + 1  # the event grows by at most 2 KB: ≤ 2 WCU (+ 2 by_day)


@pytest.mark.parametrize("odd", [None, True, "=a", [1], ["?x"], [""], {"omitted": 3}])
def test_anything_else_stored_reads_as_no_diff(odd: object) -> None:
    assert stored_segments(odd) is None


def _sized(words: list[str], rng: random.Random, size: int = 10_000) -> str:
    text = ""
    while len(text) < size:
        text += rng.choice(words) + " "
    return text[:size]


_RNG = random.Random(21)
_SMALL = ["the", "a", "of", "to", "and", "in", "is", "it", "that", "for", "on", "with", "as", "was", "at", "by"]
_PROSE = _sized([f"w{i}" for i in range(800)], _RNG)
WORST_CASES: dict[str, tuple[str, str]] = {
    # difflib.SequenceMatcher(autojunk=False) on the whole text did not finish "a vs a b" in five minutes
    "a vs a b": ("a " * 5000, "a b " * 2500),
    "a vs b": ("a " * 5000, "b " * 5000),
    "small vocabulary, random": (_sized(_SMALL, _RNG), _sized(_SMALL, _RNG)),
    "one letter words, random": (
        _sized([chr(c) for c in range(97, 123)], _RNG),
        _sized([chr(c) for c in range(97, 123)], _RNG),
    ),
    "punctuation": (". , " * 2500, ", . " * 2500),
    "prose, one word changed": (_PROSE, _PROSE[:5000] + "XYZ" + _PROSE[5003:]),
    "prose shuffled": (_PROSE, " ".join(sorted(_PROSE.split(), key=lambda _: _RNG.random()))),
    "ideographs": ("日本語" * 3333, "本日語" * 3333),
}


def _cpu(call: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(3):
        began = time.process_time()
        call()
        best = min(best, time.process_time() - began)
    return best


@pytest.mark.parametrize("name", list(WORST_CASES))
def test_ten_kb_against_ten_kb_in_under_a_tenth_of_a_second(name: str) -> None:
    before, after = WORST_CASES[name]
    assert 9_990 <= len(before) <= 10_000
    assert 9_990 <= len(after) <= 10_000
    seconds = _cpu(lambda: stored_diff(before, after))
    assert seconds < WORST_CASE_CPU_SECONDS, f"{name}: {seconds * 1000:.0f} ms"


def test_the_work_budget_ends_anchoring_and_the_rest_reads_as_rewritten(monkeypatch: pytest.MonkeyPatch) -> None:
    before = " ".join(f"u{i}" for i in range(300)) + " tail"
    after = " ".join(f"u{i}" for i in range(300) if i % 3) + " tail"
    assert any(s.op == "equal" for s in word_diff("x " + before, "y " + after)[1:])
    monkeypatch.setattr(text_diff, "WORK_BUDGET", 0)
    segments = word_diff("x " + before, "y " + after)
    assert [s.op for s in segments] == ["delete", "insert", "equal"]  # only the common end is matched
    assert segments[-1].text == "u298 u299 tail"
