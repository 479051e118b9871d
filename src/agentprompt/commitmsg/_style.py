"""The commit subject's style: the imperative mood and a lower-case start.

The commit prompt asks for "add", not "added" or "adds", and for a subject that starts with
a lower-case word after the type. :func:`subject_style_problems` finds a subject that breaks
either rule; :func:`~agentprompt.commitmsg._message.commit_problems` counts them among the format's
problems, so a message breaking them is asked for again once, like any other.

A word written in capitals (``README``, ``API``) or in mixed case (``TodoList``) is a name,
not a capitalised sentence start, and is accepted.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["subject_style_problems"]

_SUBJECT: Final = re.compile(r"^[A-Za-z]+(?:\([^)]*\))?!?:\s*(?P<subject>.*)$")
_WORD: Final = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_VERBS: Final = _words(
    """
    accept add adjust align allow apply avoid bump build cache change check clarify
    clean close combine compute configure convert correct count create declare define
    delete describe detect disable document drop emit enable ensure explain export
    expose extend extract fetch fill find fix follow format generate group guard handle
    hide ignore implement import improve include increase inline install introduce keep
    limit list load log make map mark match merge migrate move name normalise normalize
    open optimise optimize order parse pass pick pin place polish port prefer prepare
    preserve prevent print raise rank read record reduce refactor register reject reload
    remove rename render reorder repair replace report request require reset resolve
    restore retry return reuse revert rewrite reword run save scan send separate serve
    set share show simplify skip sort split start stop store strip support switch test
    tidy track trim tweak unify unwrap update upgrade use validate verify wait warn
    watch wrap write
    """
)
"""Verbs commit subjects start with, to recognise their third-person form (``adds``)."""

_NOT_PAST: Final = _words(
    """
    bed bleed breed embed exceed feed need proceed red seed shed shred speed succeed
    """
)
_NOT_GERUND: Final = _words(
    """
    bring ring sing spring sting string swing thing wing
    """
)
_IRREGULAR_PAST: Final = _words(
    """
    began brought built chose did done drew fell felt found gave got grew held hid kept
    knew led left lost made meant met paid ran said sent shown sold spent stood thought
    threw told took went won wrote written
    """
)


def _third_person(word: str) -> bool:
    if word.endswith("ies") and f"{word[:-3]}y" in _VERBS:
        return True
    if word.endswith("es") and word[:-2] in _VERBS:
        return True
    return word.endswith("s") and word[:-1] in _VERBS


def _not_imperative(word: str) -> str | None:
    """How ``word`` (lower case) is not the imperative, or None when it may be."""
    if word in _IRREGULAR_PAST or (word.endswith("ed") and word not in _NOT_PAST):
        return "past tense"
    if word.endswith("ing") and len(word) > 4 and word not in _NOT_GERUND:
        return "a gerund"
    if _third_person(word):
        return "third person"
    return None


def subject_style_problems(text: str) -> list[str]:
    """What breaks the subject's style in the commit message ``text``: a first word that is
    not in the imperative mood, or one written with a capital (empty: it is fine)."""
    match = _SUBJECT.match(text.split("\n", 1)[0])
    word = _WORD.match(match.group("subject")) if match else None
    if word is None:
        return []
    first = word.group(0)
    problems = []
    form = _not_imperative(first.lower())
    if form is not None:
        problems.append(
            f"the subject starts with {first!r} ({form}); write it in the imperative mood, "
            "as a command: 'add', 'fix', 'change', not 'added', 'adds' or 'adding'"
        )
    if first[0].isupper() and first[1:].islower():
        problems.append(
            f"the subject starts with a capital letter ({first!r}); start it with a "
            "lower-case word after the type"
        )
    return problems
