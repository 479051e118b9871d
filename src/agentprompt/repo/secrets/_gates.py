"""Quick necessary gates for detect-secrets' costliest regexes, and the lines they leave.

A few of detect-secrets' regexes begin with a character class, an alternation or a
lookbehind, so Python's ``re`` tries them at every offset of every text, and the plain
words they need (:mod:`agentprompt.repo.secrets._regexneeds`) are too common to spare a file
(``cl``, ``ap``, ``:``, ``.``). Each has here a *gate*: a few small regexes that begin
with a literal (which ``re`` looks for at C speed), one of which matches somewhere inside
every string the detect-secrets regex matches; the comment above each says why. A line
detect-secrets could flag with that regex therefore holds a gate hit, and the full regex
is tried only on the lines that hold one (:func:`gated_lines`). The tests check every
gate against its regex on generated strings.

A gate applies only to the exact regex it was written for, named by a digest of the
pattern's text and flags: another detect-secrets version with other patterns gets no
gate (the slower whole-text path), never a wrong one. Gates marked ``lowered`` are for
case-insensitive regexes, written in lower case and searched in the lowercased text
(same length, no character folding to a letter: see ``secretfilter._lowered``). No gate
matches a line break, so every hit lies within one line.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from agentprompt.repo.secrets._regexneeds import line_around

__all__ = ["Gate", "digest", "gate_for", "gated_lines"]


@dataclass(frozen=True, kw_only=True)
class Gate:
    """A necessary condition for one of detect-secrets' regexes, searched quickly."""

    name: str
    """The detect-secrets rule it is for (for readers and tests)."""
    patterns: tuple[re.Pattern[str], ...]
    """One of them matches within every string the rule's regex matches; none matches a
    line break."""
    lowered: bool
    """Searched in the lowercased text (the rule is case-insensitive)."""


# The separators the assignment-style rules (Cloudant, IBM, SoftLayer, IBM COS) allow
# between a keyword and its value: ``(?:"|'|)(?:\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|'|)``
# is a non-empty run of these characters, as every alternative of the middle is non-empty.
_SEPARATORS = r"[\"'\]=:> ]+"

# Keywords then value: every one of those rules ends in ``(?:key|pwd|password|pass|token)``
# (IBM COS: ``...key``), the separators, then a value of at least 24 characters, all of
# ``[a-z0-9_-]`` in lower case (``[0-9a-f]{64}``, ``[a-z]{24}``, ``[a-zA-Z0-9_\-]{44}``,
# ``[a-z0-9]{64}``, ``[a-f0-9]{48}``). ``password`` is ``pass`` followed by ``word``, not
# by a separator, hence ``pass(?:word)?``. One pattern per keyword: each begins with a
# literal, four quick passes instead of one slow one.
_ASSIGNMENT = tuple(
    re.compile(rf"{word}{_SEPARATORS}[a-z0-9_\-]{{24}}")
    for word in ("key", "pwd", "pass(?:word)?", "token")
)
_CLOUDANT = (re.compile(r"cl(?:ou(?:dant)?)?[_-]?(?:api)?(?:key|pw|pass|token)"),)

_GATES: dict[str, Gate] = {
    # IPPublicDetector: three octets each followed by a dot, then a fourth; every octet
    # alternative is one to three of [0-9]. So a match holds ".", 1-3 digits, ".",
    # 1-3 digits, ".", a digit (from the first octet's dot on). The regex ignores case,
    # but digits and dots have none: the gate is searched in the text itself.
    "b2f248e2eb9a0083": Gate(
        name="IP address",
        patterns=(re.compile(r"\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]"),),
        lowered=False,
    ),
    # CloudantDetector, both assignment regexes: ``(?:cloudant|cl|clou)(?:_|-|)(?:api|)``
    # then a keyword; each keyword begins with ``key``, ``pw``, ``pass`` or ``token``.
    "5af95c221644b3ae": Gate(
        name="Cloudant (hex)",
        patterns=_CLOUDANT,
        lowered=True,
    ),
    "ef86cd701d42c135": Gate(
        name="Cloudant (letters)",
        patterns=_CLOUDANT,
        lowered=True,
    ),
    # ArtifactoryDetector's ``AP`` regex: after its leading separator, ``AP``, one of
    # ``[\dABCDEF]``, then at least eight of ``[a-zA-Z0-9]`` (case-sensitive).
    "ef797824620d0a78": Gate(
        name="Artifactory (AP)",
        patterns=(re.compile(r"AP[\dABCDEF][a-zA-Z0-9]{8}"),),
        lowered=False,
    ),
    # TelegramBotTokenDetector: ``\d{8,10}:`` then exactly 35 of ``[0-9A-Za-z_-]``.
    "c635b805cf32e52b": Gate(
        name="Telegram bot token",
        patterns=(re.compile(r":[0-9A-Za-z_-]{35}"),),
        lowered=False,
    ),
    # AWSKeyDetector's key id: every alternative of its prefix begins with ``A``; the gate
    # is the same regex with that ``A`` factored out in front.
    "fbe6dc262974d717": Gate(
        name="AWS access key id",
        patterns=(re.compile(r"A(?:3T[A-Z0-9]|BIA|CCA|KIA|SIA)[0-9A-Z]{16}"),),
        lowered=False,
    ),
    # DiscordBotTokenDetector: its last two parts, a dot, six of ``[a-zA-Z\d_-]``, a dot
    # and 27 more.
    "e75d57f7b5097b0a": Gate(
        name="Discord bot token",
        patterns=(re.compile(r"\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}"),),
        lowered=False,
    ),
    # MailchimpDetector: ``-us`` then a digit, after the 32-character key.
    "924e5d3bc5ddeb26": Gate(name="Mailchimp", patterns=(re.compile(r"-us[0-9]"),), lowered=False),
    # IbmCloudIamDetector, SoftlayerDetector, IbmCosHmacDetector: see _ASSIGNMENT.
    "393b977e75a44b1a": Gate(name="IBM Cloud IAM", patterns=_ASSIGNMENT, lowered=True),
    "6512f1642dad8615": Gate(name="SoftLayer", patterns=_ASSIGNMENT, lowered=True),
    "73b3549f53f39941": Gate(name="IBM COS HMAC", patterns=_ASSIGNMENT, lowered=True),
}


def digest(regex: re.Pattern[str]) -> str:
    """The name of a regex in the gate table: a digest of its exact text and its flags
    (except ``re.MULTILINE``, which whole-text matching adds)."""
    named = f"{regex.flags & ~re.MULTILINE}:{regex.pattern}"
    return hashlib.blake2b(named.encode("utf-8"), digest_size=8).hexdigest()


def gate_for(regex: re.Pattern[str]) -> Gate | None:
    """The gate written for exactly this regex (its text and flags), if any."""
    return _GATES.get(digest(regex))


def gated_lines(gate: Gate, text: str, lowered: str) -> list[tuple[int, int]]:
    """The ``(start, stop)`` offsets of every line of ``text`` holding a hit of ``gate``
    (``stop`` before the line's trailing whitespace, as detect-secrets reads lines), in
    order; ``lowered`` is ``text`` in lower case, same length (searched by lowered gates).

    Why no line with a hit is missed: the search restarts at the start of the line after
    each line it reports, so it reports the first hit at or after that offset; a hit
    never spans a line break, so a line holding a hit is reached before the search passes
    it (for each of the gate's patterns)."""
    hay = lowered if gate.lowered else text
    lines: set[tuple[int, int]] = set()
    for pattern in gate.patterns:
        at = 0
        while (hit := pattern.search(hay, at)) is not None:
            start, stop, end = line_around(text, hit.start())
            lines.add((start, stop))
            at = end + 1
    return sorted(lines)
