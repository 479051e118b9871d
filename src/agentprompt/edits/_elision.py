"""Lines that stand for code a model left out: ``# ... rest of the file unchanged ...``,
``// existing code``, ``<!-- ... -->``, ``# 以下省略``.

A model that shortens its answer writes such a line where code should be; applied, the line
replaces that code. :func:`is_elision` tells them from real comments in English and Japanese
(the prompt languages): a comment (or a bracketed or ellipsis-led line) whose whole text is an
ellipsis, or a phrase about left-out code (a topic such as "the rest of the file" or "existing
code" with or without "unchanged"/"omitted"), or any such word next to an ellipsis. A comment
that only mentions one of these words among others (``# keep the order unchanged when ...``)
is not one.
"""

from __future__ import annotations

import re

__all__ = ["is_elision"]

_LONGEST = 160
"""Longer lines are code or prose, never a stand-in."""

_LEADER = re.compile(r"^\s*(?:\{/\*|/\*+|<!--|//+|#+|--|;+|%+|\*+)\s*")
_CLOSER = re.compile(r"\s*(?:\*/\s*\}?|-->)\s*$")
_ELLIPSIS = re.compile(r"\.{2,}|…+|。。。|・・・|⋯")
_DOTS = r"(?:\.{2,}|…+|。。。|・・・|⋯)"
_EDGE_DOTS = re.compile(rf"^[\s\[(（【「<{{]*{_DOTS}|{_DOTS}[\s\])）】」>}}.:;,]*$")
"""An ellipsis at the start or the end of a comment, where a stand-in puts it (not one
inside a sentence, ``f(a, ...)``)."""
_MOST_WORDS = 10
"""A comment with more words than this around an ellipsis is prose, not a stand-in."""
_NOISE = re.compile(r"[\[\](){}<>「」（）【】\"'`*_~:;,!?。、！？=\-]+")
_TOPIC = (
    r"(?:code|file|files|class|classes|module|function|functions|method|methods|imports?|"
    r"body|content|contents|logic|implementation|tests?|properties|fields|lines|cases|"
    r"routes|handlers|helpers|styles|components?|definitions|declarations|setup|config|"
    r"configuration|stuff|script|markup|template|html|css|exports|types|tags|"
    r"everything else|the rest|rest)"
)
_STATE = (
    r"(?:(?:is |are |remains? |stays? |left |kept |continues? )?"
    r"(?:unchanged|untouched|omitted|the same|same as (?:before|above|the original)|"
    r"as (?:before|above|is|it was)|as in the original|for brevity|not shown|elided))"
)
_MORE = rf"(?:{_STATE}|here|below|above|goes here|go here|etc)"
_ENGLISH = re.compile(
    "|".join(
        (
            # the rest of the file (is unchanged)
            rf"(?:the )?rest of (?:the |this |your )?(?:\w+ ){{0,2}}\w+(?: {_MORE})*",
            # (keep the) existing code (here / unchanged)
            rf"(?:(?:keep|keeping|leave|all|the|your|other|previous|any) )*existing "
            rf"{_TOPIC}(?: {_TOPIC})?(?: {_MORE})*",
            # code unchanged, imports omitted, unchanged, remains the same, omitted for brevity
            rf"(?:(?:the |all |other |your |original |previous )?{_TOPIC} )?{_STATE}"
            rf"(?: {_MORE})*",
            # other methods unchanged / remaining code here
            rf"(?:other|remaining|previous|original|more|additional|same|earlier|old) "
            rf"{_TOPIC}(?: {_MORE})+",
            r"(?:your |the )?(?:code|implementation|logic)(?: goes)? here",
            r"(?:no changes?|nothing changed|snip|snipped|truncated|and so on)"
            r"(?: (?:here|below|above))?",
        )
    )
)
_SUFFIX = (
    r"(?:省略|中略|後略|略|そのまま|同じ|同様|変更なし|変更無し|変更はありません|変わりません|"
    r"変更しません)(?:です|します|しています|してください)?"
)
_JAPANESE = re.compile(
    "|".join(
        (
            # 既存のコード(はそのまま)
            r"(?:既存の?(?:コード|処理|実装|メソッド|関数|部分|インポート|内容)|"
            rf"元の?(?:コード|実装|内容)|残りの(?:コード|部分|処理))(?:は|も)?(?:{_SUFFIX})?",
            # 以下省略, その他は変更なし
            r"(?:以下|以降|残り|その他(?:の(?:コード|部分|処理))?|"
            rf"他の?(?:メソッド|関数|処理|コード|部分))(?:は|も|の)?{_SUFFIX}",
            r"(?:省略|中略|後略|以下略|変更なし|変更無し|変更はありません)(?:します|しています|です)?",
            r"前と同じ(?:です)?|同上",
        )
    )
)
_HINT = re.compile(
    r"\b(?:rest|existing|unchanged|same|omitted|remaining|other|previous|before|etc|snip|"
    r"more|code|original|elided)\b|省略|既存|残り|同じ|以下|変更|略",
    re.IGNORECASE,
)


def _words(text: str) -> str:
    """The text without punctuation, brackets and ellipses, lower case, single-spaced."""
    text = _ELLIPSIS.sub(" ", text)
    text = _NOISE.sub(" ", text)
    return " ".join(text.lower().split())


def is_elision(line: str) -> bool:
    """True when ``line`` stands for code left out rather than being code or a comment."""
    if len(line) > _LONGEST:
        return False
    stripped = line.strip()
    if not stripped:
        return False
    leader = _LEADER.match(stripped)
    if leader is not None:
        body = _CLOSER.sub("", stripped[leader.end() :])
    elif stripped[0] in "[(<（【「" or _ELLIPSIS.match(stripped):
        body = stripped
    else:
        return False
    dotted = _EDGE_DOTS.search(body) is not None
    words = _words(body)
    if not words:
        # A comment that is only an ellipsis (``# ...``, ``/* … */``); a bare ``...`` is
        # Python's Ellipsis, code.
        return dotted and leader is not None
    if dotted and len(words.split()) <= _MOST_WORDS and _HINT.search(words):
        return True
    compact = words.replace(" ", "")
    return _ENGLISH.fullmatch(words) is not None or _JAPANESE.fullmatch(compact) is not None
