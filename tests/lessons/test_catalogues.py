"""The "learn" catalogues: English built from the data; every other language has every key, translated."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import tessera
from tessera.lessons.catalogue import LANGUAGES, UI, catalogue, flatten

WEB = Path(tessera.__file__).resolve().parent / "web"


def load(lang: str) -> dict[str, str]:
    return flatten(json.loads((WEB / "locales" / lang / "learn.json").read_text("utf-8")))


def test_the_english_catalogue_is_the_datas_text() -> None:
    """en/learn.json is written by ``python -m tessera.lessons.catalogue``: it says what the data says."""
    assert load("en") == flatten(catalogue())


@pytest.mark.parametrize("lang", [x for x in LANGUAGES if x != "en"])
def test_no_key_is_missing_or_left_in_english(lang: str) -> None:
    """Issue 26: "a test fails when a key is missing from any catalogue or a page shows an
    untranslated string"."""
    en, other = load("en"), load(lang)
    assert sorted(set(en) - set(other)) == [], "missing keys"
    assert sorted(set(other) - set(en)) == [], "keys English does not have"
    same = [k for k in en if other[k] == en[k] and re.search(r"[A-Za-z]{4,}", en[k])]
    assert same == [], "left in English"
    for k in en:
        assert sorted(re.findall(r"\{\{\w+\}\}", other[k])) == sorted(re.findall(r"\{\{\w+\}\}", en[k])), k


def test_every_page_string_has_its_key() -> None:
    """The pages' t("ui.key", "English") calls use keys of the catalogue with its English words."""
    used: dict[str, str] = {}
    for name in ("learn.js", "rules.js"):
        src = (WEB / "js" / name).read_text("utf-8")
        for key, text in re.findall(r'\bt\("ui\.([\w-]+)",\s*"((?:[^"\\]|\\.)*)"', src):
            used[key] = text
    assert used, "the pages translate their words"
    for key, text in used.items():
        assert UI.get(key) == text, key
