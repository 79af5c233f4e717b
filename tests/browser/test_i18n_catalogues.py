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
    """Each literal t("ns:key") in the scripts (the client's and the games' client modules) and
    data-i18n="ns:key" in the pages names an English key."""
    english: dict[str, set[str]] = {ns: {_base(k) for k in _catalogue("en", ns)} for ns in _namespaces()}
    missing = []
    # the games' own client modules (Game.client_module) ask for keys of the same catalogues
    sources = list((WEB / "js").glob("*.js")) + list(WEB.glob("*.html")) + list((WEB.parent / "games").glob("*/*.js"))
    for path in sources:
        # comments show keys as examples: only code and markup count
        text = "\n".join(ln for ln in path.read_text(encoding="utf-8").splitlines() if not ln.lstrip().startswith("//"))
        for key in KEY_IN_CODE.findall(text) + KEY_IN_HTML.findall(text):
            ns, _, rest = key.partition(":")
            if ns not in english or _base(rest) not in english[ns]:
                missing.append(f"{path.name}: {key}")
    assert not missing, "keys used but not in the English catalogues:\n" + "\n".join(sorted(set(missing)))


# -- what the games and the server write ----------------------------------------------------------
# Render descriptions, end sentences and refusals carry a key of the "engine" namespace and its
# arguments beside the English (tessera.core.texts.Text); the client says them from these keys.

ENGINE = "engine"
CLIENT_WORDS = {"panel.ply": "Move"}
"""Keys whose English in the client deliberately differs from the API's word ("Ply" is engine talk)."""

TEXT_KEY_IN_SOURCE = re.compile(r"""\bText\(\s*"([a-z_]+(?:\.[a-z_]+)+)\"""")
SAY_IN_SOURCE = re.compile(r"""\bsay\(\s*"([a-z_]+)\"""")


@pytest.fixture(scope="module")
def emitted() -> Any:
    """Every text random games of every game and variant wrote (renders for every seat and a
    spectator, Nelaxtam with a sealed order, end sentences, refusals of random and malformed moves)."""
    from tests.games.emitted_texts import collect

    return collect(games=2, seed=26)


def _say(cat: dict[str, str], key: str, args: dict[str, Any], english: str) -> str:
    """The English catalogue's sentence for ``key`` with ``args``, as i18next builds it (count picks
    ``_one`` for 1, else ``_other``; a nested text is said first; a list is joined with ", ")."""
    template = None
    if isinstance(args.get("count"), int):
        template = cat.get(f"{key}_{'one' if args['count'] == 1 else 'other'}")
    template = template or cat.get(key)
    if template is None:
        return english

    def value(v: Any) -> str:
        if isinstance(v, list):
            return ", ".join(value(x) for x in v)
        if isinstance(v, dict):
            return _say(cat, v["key"], v.get("args", {}), v.get("text", ""))
        return str(v)

    def fill(m: re.Match[str]) -> str:
        return value(args[m.group(1)]) if m.group(1) in args else m.group(0)

    return re.sub(r"\{\{\s*(\w+)\s*\}\}", fill, template)


def test_every_key_a_game_can_emit_exists_in_every_language(emitted: Any) -> None:
    """Each key random games of every game and variant wrote (and each literal key in the games'
    and the server's source) is in the engine catalogue of every language."""
    keys = set(emitted.keys)
    assert len(keys) > 120, f"only {len(keys)} keys: the walk missed most texts"
    source = Path(__file__).resolve().parents[2] / "tessera"
    for path in source.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        keys |= set(TEXT_KEY_IN_SOURCE.findall(text))
        prefix = {"nymbat": "refusal.nymbat.", "nelaxtam": "refusal.nelaxtam."}.get(path.parent.name)
        if prefix and path.name == "game.py":
            keys |= {prefix + k for k in SAY_IN_SOURCE.findall(text)}
    problems = []
    for lang in LANGUAGES:
        have = {_base(k) for k in _catalogue(lang, ENGINE)}
        missing = sorted(keys - have)
        if missing:
            problems.append(f"{lang}/{ENGINE}.json lacks {missing}")
    assert not problems, "\n".join(problems)


def test_the_english_catalogue_says_what_the_games_write(emitted: Any) -> None:
    """The English catalogue's sentence, built from a text's key and arguments, is the English the
    game or server wrote (so a translation starts from the same words and the same arguments)."""
    cat = _catalogue("en", ENGINE)
    wrong = {}
    for key, args, english in emitted.texts.values():
        said = _say(cat, key, args, english)
        if said != english and CLIENT_WORDS.get(key) != said:
            wrong.setdefault(key, f"{key}: catalogue {said!r}, game {english!r}")
    assert not wrong, "\n".join(sorted(wrong.values()))


def test_every_argument_a_sentence_uses_is_given(emitted: Any) -> None:
    """Each {{placeholder}} of a key's English sentence is among the arguments the games give it."""
    cat = _catalogue("en", ENGINE)
    missing = {}
    for key, args, _ in emitted.texts.values():
        for k in (key, f"{key}_one", f"{key}_other"):
            for name in PLACEHOLDER.findall(cat.get(k, "")):
                if name not in args:
                    missing[key] = f"{key} lacks {name} (has {sorted(args)})"
    assert not missing, "\n".join(sorted(missing.values()))
