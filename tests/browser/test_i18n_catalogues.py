"""The client's translation catalogues (tessera/web/locales/<lang>/<namespace>.json) are complete.

"A test fails when a key is missing from any catalogue": every namespace exists in every language,
every language has exactly the English keys (plural forms aside), no translation is empty, each
keeps the English text's {{placeholders}}, and every key the pages and scripts ask for exists.
These checks read files only: no browser is needed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

WEB = Path(__file__).resolve().parents[2] / "tessera" / "web"
LOCALES = WEB / "locales"
LANGUAGES = ("en", "ko", "es", "de", "fr")
PLURAL = re.compile(r"_(zero|one|two|few|many|other)$")
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_]+)")


def _flatten(data: Any, prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    if isinstance(data, dict):
        for k, v in data.items():
            out.update(_flatten(v, f"{prefix}{k}." if isinstance(v, dict) else f"{prefix}{k}"))
    else:
        out[prefix] = data
    return out


def _catalogue(lang: str, ns: str) -> dict[str, str]:
    return _flatten(json.loads((LOCALES / lang / f"{ns}.json").read_text(encoding="utf-8")))


def _namespaces() -> list[str]:
    return sorted(p.stem for p in (LOCALES / "en").glob("*.json"))


def _base(key: str) -> str:
    return PLURAL.sub("", key)


def test_every_language_has_every_namespace() -> None:
    """Each language has a catalogue for each namespace English has, and no other."""
    english = set(_namespaces())
    assert english, "no English catalogue at all"
    for lang in LANGUAGES:
        have = {p.stem for p in (LOCALES / lang).glob("*.json")}
        assert have == english, f"{lang}: missing {sorted(english - have)}, extra {sorted(have - english)}"


@pytest.mark.parametrize("lang", [x for x in LANGUAGES if x != "en"])
def test_no_key_is_missing_from_a_catalogue(lang: str) -> None:
    """Every language has exactly the English keys in every namespace (plural suffixes aside)."""
    problems = []
    for ns in _namespaces():
        en = {_base(k) for k in _catalogue("en", ns)}
        other = {_base(k) for k in _catalogue(lang, ns)}
        if en - other:
            problems.append(f"{lang}/{ns}.json lacks {sorted(en - other)}")
        if other - en:
            problems.append(f"{lang}/{ns}.json has keys English lacks: {sorted(other - en)}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_translations_are_non_empty_strings_with_the_english_placeholders(lang: str) -> None:
    """A translation is a non-empty string that uses the same {{values}} as the English text."""
    problems = []
    for ns in _namespaces():
        en = {_base(k): v for k, v in _catalogue("en", ns).items()}
        for key, value in _catalogue(lang, ns).items():
            if not isinstance(value, str) or not value.strip():
                problems.append(f"{lang}/{ns}:{key} is empty or not a string")
                continue
            want = set(PLACEHOLDER.findall(en.get(_base(key), "")))
            have = set(PLACEHOLDER.findall(value))
            # a plural form may drop {{count}} ("one game"), never invent a value
            if have - want or (want - have) - {"count"}:
                problems.append(f"{lang}/{ns}:{key} uses {sorted(have)}, English {sorted(want)}")
    assert not problems, "\n".join(problems)


KEY_IN_CODE = re.compile(r"""\bt\(\s*["'`]([a-z_]+:[A-Za-z0-9_.]+)["'`]""")
KEY_IN_HTML = re.compile(r"""data-i18n(?:-html|-title|-placeholder|-aria-label)?=["']([a-z_]+:[A-Za-z0-9_.]+)["']""")


def test_every_key_the_client_asks_for_exists_in_english() -> None:
    """Each literal t("ns:key") in the scripts and data-i18n="ns:key" in the pages names an English key."""
    english: dict[str, set[str]] = {ns: {_base(k) for k in _catalogue("en", ns)} for ns in _namespaces()}
    missing = []
    sources = list((WEB / "js").glob("*.js")) + list(WEB.glob("*.html"))
    for path in sources:
        # comments show keys as examples: only code and markup count
        text = "\n".join(ln for ln in path.read_text(encoding="utf-8").splitlines() if not ln.lstrip().startswith("//"))
        for key in KEY_IN_CODE.findall(text) + KEY_IN_HTML.findall(text):
            ns, _, rest = key.partition(":")
            if ns not in english or _base(rest) not in english[ns]:
                missing.append(f"{path.name}: {key}")
    assert not missing, "keys used but not in the English catalogues:\n" + "\n".join(sorted(set(missing)))
