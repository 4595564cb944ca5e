"""Attachment ids, file names, storage names and index shards: pure functions, no DynamoDB."""

from __future__ import annotations

import pytest

from ddbmodels.attachments.model import (
    ATTACHMENT_ID_RE,
    FILENAME_MAX,
    IN_FLIGHT_SHARDS,
    BadFilename,
    clean_filename,
    new_attachment_id,
    storage_name,
    storage_safe,
)
from ddbmodels.core.keys import shard_suffix


def test_attachment_ids_are_26_crockford_characters_unique_and_sorted_by_time() -> None:
    ids = [new_attachment_id(now_ms=1_700_000_000_000 + n) for n in range(200)]
    assert all(ATTACHMENT_ID_RE.match(i) for i in ids)
    assert len(set(ids)) == 200
    assert ids == sorted(ids)
    same_ms = {new_attachment_id(now_ms=1_700_000_000_000) for _ in range(1000)}
    assert len(same_ms) == 1000  # 80 random bits: not guessable from the time


@pytest.mark.parametrize(
    "raw",
    ["../etc/passwd", "reports/q3.pdf", "..\\..\\boot.ini", "C:\\Users\\ann\\a.txt", "/abs.txt"],
)
def test_a_file_name_with_a_path_separator_is_refused_with_a_clear_message(raw: str) -> None:
    with pytest.raises(BadFilename, match="cannot contain"):
        clean_filename(raw)


CLEANED_NAMES = {
    "whitespace-collapsed": ("  report  final.pdf ", "report final.pdf"),
    "control-characters-dropped": ("a\x00b\x1f\x7fc.txt", "abc.txt"),
    "bidi-override-dropped": ("invoice\u202egpj.exe", "invoicegpj.exe"),
    "line-separator-dropped": ("line\u2028break.txt", "linebreak.txt"),
    "normalized-nfc": ("Cafe\u0301.txt", "Café.txt"),
    "unicode-kept": ("日本語.txt", "日本語.txt"),
}


@pytest.mark.parametrize(("raw", "clean"), list(CLEANED_NAMES.values()), ids=list(CLEANED_NAMES))
def test_file_names_lose_control_characters_and_extra_whitespace(raw: str, clean: str) -> None:
    assert clean_filename(raw) == clean


@pytest.mark.parametrize("raw", ["", "   ", ".", "..", "\x00\x01"])
def test_a_file_name_with_nothing_left_is_refused(raw: str) -> None:
    with pytest.raises(BadFilename, match="needs a name"):
        clean_filename(raw)


def test_a_long_file_name_is_cut_to_the_limit_and_keeps_its_extension() -> None:
    name = clean_filename("x" * 500 + ".tar.gz")
    assert len(name) == FILENAME_MAX
    assert name.endswith("x.gz")
    assert clean_filename("y" * FILENAME_MAX) == "y" * FILENAME_MAX


def test_storage_names_are_tenant_scoped_ascii_and_carry_the_unguessable_id() -> None:
    attachment_id = new_attachment_id()
    name = storage_name("acme", "WEB", 42, attachment_id, "Résumé (final) 日本.pdf")
    assert name == f"attachments/acme/WEB/42/{attachment_id}/Resume_final_.pdf"
    assert storage_safe("日本語") == "file"
    assert storage_safe("...hidden") == "hidden"
    assert len(storage_safe("z" * 300 + ".txt")) == 80


def test_the_calculated_shard_is_stable_and_between_one_and_n() -> None:
    ids = [new_attachment_id() for _ in range(400)]
    shards = [shard_suffix(i, IN_FLIGHT_SHARDS) for i in ids]
    assert set(shards) == set(range(1, IN_FLIGHT_SHARDS + 1))
    # Fixed values: a different hash would file in-flight items under shards nobody reads.
    assert (shard_suffix("01ARZ3NDEKTSV4RRFFQ69G5FAV", 4), shard_suffix("01ARZ3NDEKTSV4RRFFQ69G5FAW", 4)) == (2, 4)
