"""Exact, offline token counts, with a per-text cache.

The default tokenizers are the OpenAI encodings ``o200k_base`` and ``cl100k_base``, whose
tables ship inside the ``bpe-openai`` wheel, so nothing is downloaded. Text that looks like a
special token (``<|endoftext|>``) inside a file is counted as plain text. For models whose
encoding is not public the count is an estimate, and every report says so.

Large prompts (a whole repository packed for a web chat) are counted by parts with
:meth:`CountCache.count_keyed`. OpenAI's BPE encodings first cut a text into pieces with a
pre-tokenizer regex and merge only within a piece, so the count of a text is the sum of its
parts' counts when every cut falls on a piece boundary. In ``o200k_base`` and
``cl100k_base`` no piece runs from a line break into a following character that is neither
whitespace nor ``/``: the pieces that may contain ``\\n`` are whitespace runs, and
punctuation runs that go on only with more ``\\r``, ``\\n`` or ``/``; letter and number
pieces never contain a line break. So a text cut right after ``\\n`` and before a printable
ASCII character other than ``/`` counts exactly as the sum of its parts (a property test
checks this against the real tokenizer). Such a text is cut before each Markdown heading,
each part is counted once (in worker processes when much text is new), and its count is
remembered by the part's digest in memory and, when the cache was made with one, in the
cache database (:mod:`agentprompt._countstore`).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import itertools
import os
import re
import sys
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from agentprompt._countstore import CountStore
from agentprompt.errors import UsageError, literal

__all__ = [
    "BpeTokenizer",
    "CountCache",
    "EstimatingTokenizer",
    "KeyedSpan",
    "Tokenizer",
    "encoding_for_model",
    "get_tokenizer",
    "is_piece_boundary",
    "shared_counter",
    "split_for_count",
    "tokenizer_for_model",
]


@runtime_checkable
class Tokenizer(Protocol):
    """Counts the tokens of a text for one encoding."""

    @property
    def name(self) -> str:
        """The encoding's name, e.g. ``o200k_base``."""
        ...

    @property
    def exact(self) -> bool:
        """Whether counts are exact for the target model (False: an estimate)."""
        ...

    def count(self, text: str) -> int:
        """The number of tokens in ``text``, all of it read as ordinary text."""
        ...


EXACT_ENCODINGS = ("o200k_base", "cl100k_base")

# Model-name prefixes and the OpenAI encoding each uses; the longest matching prefix wins.
_OPENAI_MODEL_ENCODINGS: dict[str, str] = {
    "gpt-5": "o200k_base",
    "gpt-4.5": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4o": "o200k_base",
    "chatgpt-4o": "o200k_base",
    "gpt-oss": "o200k_base",
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o4": "o200k_base",
    "codex": "o200k_base",
    "gpt-4": "cl100k_base",
    "gpt-3.5": "cl100k_base",
    "gpt-35": "cl100k_base",
    "text-embedding-3": "cl100k_base",
    "text-embedding-ada-002": "cl100k_base",
}


def encoding_for_model(model: str) -> str | None:
    """The OpenAI encoding a model uses, or None when its tokenizer is not public."""
    # "openai/gpt-4o" and fine-tuned "ft:gpt-4o-mini:org::id" count like their base model.
    name = model.lower().rsplit("/", 1)[-1].removeprefix("ft:")
    best: str | None = None
    for prefix in _OPENAI_MODEL_ENCODINGS:
        if name.startswith(prefix) and (best is None or len(prefix) > len(best)):
            best = prefix
    return _OPENAI_MODEL_ENCODINGS[best] if best else None


def _load_backend() -> Any:
    """The Rust core of ``bpe-openai``, loaded without its Python package.

    Importing the ``bpe_openai`` package decodes every bundled table in Python at import
    time (about half a second); the Rust core needs none of that, so it is loaded on its
    own when it can be found, and through the package otherwise.
    """
    name = "bpe_openai._bindings"
    if name in sys.modules:
        return sys.modules[name]
    package = importlib.util.find_spec("bpe_openai")
    for folder in (package.submodule_search_locations or []) if package else []:
        for path in Path(folder).glob("_bindings*"):
            if not path.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
                continue
            loader = importlib.machinery.ExtensionFileLoader(name, str(path))
            spec = importlib.util.spec_from_file_location(name, path, loader=loader)
            if spec is None:
                continue
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
            return module
    from bpe_openai import _bindings

    return _bindings


def _clean(text: str) -> str:
    """``text`` with lone surrogates (which UTF-8 cannot hold) replaced by U+FFFD.

    A surrogate pair becomes the character it encodes; UTF-8's own ``replace`` handler
    would give ``?`` instead.
    """
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class BpeTokenizer:
    """Exact counts for an OpenAI encoding, from tables bundled with ``bpe-openai``."""

    def __init__(self, encoding: str = "o200k_base") -> None:
        if encoding not in EXACT_ENCODINGS:
            # An encoding name that agentprompt cannot count with.
            raise UsageError(
                f"unknown token encoding {literal(repr(encoding))}: use one of "
                f"{', '.join(EXACT_ENCODINGS)}, "
                "or name a model with {model} so the encoding is chosen for you",
                names=True,
            )
        self._backend = _load_backend().tokenizer_for_encoding(encoding)
        self._name = encoding

    @property
    def name(self) -> str:
        """The encoding's name."""
        return self._name

    @property
    def exact(self) -> bool:
        """Always True: these are the model's own tables."""
        return True

    def count(self, text: str) -> int:
        """The exact number of tokens in ``text``; special-token text counts as plain text."""
        try:
            return int(self._backend.count(text))
        except UnicodeEncodeError:
            return int(self._backend.count(_clean(text)))

    def encode(self, text: str) -> list[int]:
        """The token ids of ``text`` (special-token text encoded as plain text)."""
        try:
            return list(self._backend.encode(text))
        except UnicodeEncodeError:
            return list(self._backend.encode(_clean(text)))


@dataclass(frozen=True, kw_only=True)
class EstimatingTokenizer:
    """An estimate for models whose tokenizer is not public, labelled as such everywhere.

    It counts with a public encoding and scales the result; the default scale of 1.0 with
    ``o200k_base`` is a reasonable stand-in for recent Anthropic and Google models.
    """

    base: Tokenizer
    """The exact tokenizer the estimate is computed with."""
    scale: float = 1.0
    """Multiplier applied to the base count."""
    label: str = "estimate"
    """How the estimate is described in reports."""

    @property
    def name(self) -> str:
        """The base encoding's name, marked as an estimate."""
        return f"{self.label} via {self.base.name}"

    @property
    def exact(self) -> bool:
        """Always False: the target model's tokenizer is not known."""
        return False

    def count(self, text: str) -> int:
        """An estimated token count for ``text``."""
        return round(self.base.count(text) * self.scale)


_TOKENIZERS: dict[str, BpeTokenizer] = {}


def get_tokenizer(encoding: str = "o200k_base") -> BpeTokenizer:
    """The shared exact tokenizer for ``encoding`` (built once per process)."""
    tok = _TOKENIZERS.get(encoding)
    if tok is None:
        tok = _TOKENIZERS[encoding] = BpeTokenizer(encoding)
    return tok


def tokenizer_for_model(model: str | None) -> Tokenizer:
    """The tokenizer to count with for ``model``: exact for OpenAI models, else an estimate."""
    if not model:
        return get_tokenizer("o200k_base")
    encoding = encoding_for_model(model)
    if encoding is not None:
        return get_tokenizer(encoding)
    return EstimatingTokenizer(base=get_tokenizer("o200k_base"), label=f"estimate for {model}")


class CountCache:
    """Token counts remembered by content, so unchanged text is never re-tokenized.

    One in-memory cache holds every count: a text's by the text itself (Python caches a
    string's hash on the string, so looking up a text that was seen before, the same object
    as unchanged sections and history messages are from turn to turn, costs no hashing at
    all, and an equal text from elsewhere one hash and one comparison), and a keyed
    count (:meth:`count_keyed`'s parts and spans, :meth:`count_each_keyed`'s texts) by its
    key. It is bounded by entries and by the characters of the texts it holds; the least
    recently used entries are evicted first. Keyed counts are also kept in ``store``, a
    cache database given when the cache is made (:class:`~agentprompt._countstore.CountStore`;
    None: in memory only), so a later process finds them too.
    """

    def __init__(
        self,
        tokenizer: Tokenizer,
        *,
        store: Path | None = None,
        max_entries: int = 500_000,
        max_chars: int = 64_000_000,
    ) -> None:
        self.tokenizer = tokenizer
        self.store = store
        """The cache database keyed counts are kept in (None: in memory only)."""
        self._stored = CountStore(store) if store is not None else None
        self._max_entries = max_entries
        self._max_chars = max_chars
        self._chars = 0
        self._memo: OrderedDict[str | tuple[str], int] = OrderedDict()
        """Counts by text, and by key (as a one-item tuple, never equal to a text), the
        most recent last; a keyed count in memory is one :attr:`store` holds."""
        self.hits = 0
        self.misses = 0

    @property
    def name(self) -> str:
        """The wrapped tokenizer's name."""
        return self.tokenizer.name

    @property
    def exact(self) -> bool:
        """Whether the wrapped tokenizer is exact."""
        return self.tokenizer.exact

    def count(self, text: str) -> int:
        """The token count of ``text``, from the cache when the same text was counted before."""
        found = self._memo.get(text)
        if found is not None:
            self.hits += 1
            self._memo.move_to_end(text)
            return found
        self.misses += 1
        n = self.tokenizer.count(text)
        if len(text) <= self._max_chars:
            self._memo[text] = n
            self._chars += len(text)
            self._evict()
        return n

    def _evict(self) -> None:
        """Drop the least recently used counts until the cache is within its bounds."""
        while len(self._memo) > self._max_entries or self._chars > self._max_chars:
            old, _ = self._memo.popitem(last=False)
            if isinstance(old, str):
                self._chars -= len(old)

    def count_keyed(
        self, text: str, known: Sequence[KeyedSpan] = (), *, workers: int | None = None
    ) -> int:
        """The exact token count of ``text``, summed over its parts cut before each
        Markdown heading (see the module's docstring), each part's count remembered by its
        digest (in :attr:`store` too). ``known``: spans of ``text`` whose content is
        already identified by a key (:data:`KeyedSpan`), so their text is neither cut nor
        digested; a span that does not start and end on piece boundaries is ignored. New
        parts are counted in ``workers`` processes (default: one per core) when there is
        much new text."""
        keys: list[str] = []
        pending: dict[str, str | tuple[int, int]] = {}
        at = 0
        for start, end, ident in sorted(known):
            if start < at or not (is_piece_boundary(text, start) and is_piece_boundary(text, end)):
                continue
            _cut(self.name, text, at, start, keys, pending)
            key = f"{self.name}\0span\0{ident}"
            keys.append(key)
            pending.setdefault(key, (start, end))
            at = end
        _cut(self.name, text, at, len(text), keys, pending)
        if len(keys) == 1 and not known:
            return self.count(text)  # nothing to cut: no use remembering it
        remembered = self._recall_keyed(set(keys))
        todo = {k: v for k, v in pending.items() if k not in remembered}
        parts = [v if isinstance(v, str) else text[v[0] : v[1]] for v in todo.values()]
        learned = dict(zip(todo, self._count_all(parts, workers), strict=True))
        self._learn_keyed(learned)
        remembered.update(learned)
        return sum(remembered[k] for k in keys)

    def count_each_keyed(
        self, items: Sequence[tuple[str, str]], *, workers: int | None = None
    ) -> list[int]:
        """The exact token counts of many texts, each identified by a key (``(key,
        text)``; equal keys, equal texts): those remembered (in memory, then in
        :attr:`store`, in one query) are not tokenized; the rest are counted (in
        ``workers`` processes when there is much new text) and remembered. A text's key is
        the one :meth:`count_keyed` gives a span covering all of it, so the two share
        counts."""
        keys = [f"{self.name}\0span\0{key}" for key, _text in items]
        remembered = self._recall_keyed(set(keys))
        todo: dict[str, str] = {}
        for key, (_ident, text) in zip(keys, items, strict=True):
            if key not in remembered:
                todo.setdefault(key, text)
        learned = dict(zip(todo, self._count_all(list(todo.values()), workers), strict=True))
        self._learn_keyed(learned)
        remembered.update(learned)
        return [remembered[k] for k in keys]

    def remembered_each_keyed(self, idents: Iterable[str]) -> dict[str, int]:
        """The counts remembered (in memory, then in :attr:`store`) of the texts that
        :meth:`count_each_keyed` would be given with the keys ``idents``, by key; those not
        remembered are left out, and nothing is tokenized (so a caller reads only the texts
        it must count)."""
        named = {f"{self.name}\0span\0{ident}": ident for ident in idents}
        return {named[key]: n for key, n in self._recall_keyed(set(named)).items()}

    def _recall_keyed(self, keys: set[str]) -> dict[str, int]:
        """The counts of ``keys`` known in memory or in the store (one query for those not
        in memory); those from the store are then kept in memory too."""
        found: dict[str, int] = {}
        for key in keys:
            n = self._memo.get((key,))
            if n is not None:
                found[key] = n
                self._memo.move_to_end((key,))
        missing = keys - found.keys()
        if missing and self._stored is not None:
            stored = self._stored.recall(missing)
            self._memo_keyed(stored)
            found.update(stored)
        return found

    def _learn_keyed(self, learned: dict[str, int]) -> None:
        """Remember newly counted keyed texts, in the store and in memory."""
        if self._stored is not None:
            self._stored.remember(learned)
        self._memo_keyed(learned)

    def _memo_keyed(self, counts: dict[str, int]) -> None:
        self._memo.update(((k,), n) for k, n in counts.items())
        self._evict()

    def _count_all(self, parts: Sequence[str], workers: int | None) -> list[int]:
        size = sum(len(p) for p in parts)
        processes = workers if workers is not None else (os.cpu_count() or 1)
        if processes <= 1 or size < _PARALLEL_CHARS or not _is_bpe(self.tokenizer):
            return [self.count(p) for p in parts]
        from agentprompt.shares import map_shares

        spans: list[range] = []
        first = filled = 0
        for number, part in enumerate(parts):
            if filled >= _CHUNK_CHARS:
                spans.append(range(first, number))
                first, filled = number, 0
            filled += len(part)
        spans.append(range(first, len(parts)))
        done = map_shares(parts, spans, partial(_count_parts, self.name), processes)
        return [count for chunk in done for count in chunk]


KeyedSpan = tuple[int, int, str]
"""``(start, end, key)``: ``text[start:end]`` is identified by ``key`` (equal keys, equal
texts), so its remembered count can be used without reading it."""

_HEADING = re.compile(r"\n(?=#{1,6} )")
# The same in UTF-8, where "\n" and "#" bytes are those characters only; a cut between
# them is always a piece boundary.
_HEADING_BYTES = re.compile(rb"\n(?=#{1,6} )")
_PARALLEL_CHARS = 4_000_000
"""Less new text than this is counted in-process (starting workers would cost more)."""
_CHUNK_CHARS = 2_000_000


def is_piece_boundary(text: str, at: int) -> bool:
    """Whether cutting ``text`` at ``at`` cannot split a pre-tokenizer piece: right after a
    line break and before a printable ASCII character other than ``/`` (or at either end)."""
    if at <= 0 or at >= len(text):
        return True
    after = text[at]
    return text[at - 1] == "\n" and "!" <= after <= "~" and after != "/"


def split_for_count(text: str) -> list[str]:
    """``text`` cut before every Markdown heading that starts a line, at piece boundaries
    only; joining the parts gives ``text`` back."""
    cuts = [m.end() for m in _HEADING.finditer(text) if is_piece_boundary(text, m.end())]
    edges = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(edges) if b > a]


def _cut(
    name: str,
    text: str,
    start: int,
    end: int,
    keys: list[str],
    pending: dict[str, str | tuple[int, int]],
) -> None:
    """Cut ``text[start:end]`` before each heading, and add each part's key (by digest) to
    ``keys`` and its text to ``pending``."""
    if end <= start:
        return
    # Cut and digest the UTF-8 bytes: a compact copy, and no copy of the parts (a text of
    # a few hundred megabytes is stored four bytes a character in Python).
    whole = text if (start, end) == (0, len(text)) else text[start:end]
    data = whole.encode("utf-8", "surrogatepass")
    cuts = [m.end() for m in _HEADING_BYTES.finditer(data)]
    view = memoryview(data)
    for a, b in itertools.pairwise([0, *cuts, len(data)]):
        if b > a:
            piece = view[a:b]
            key = f"{name}\0{hashlib.blake2b(piece, digest_size=20).hexdigest()}"
            keys.append(key)
            if key not in pending:
                pending[key] = str(piece, "utf-8", "surrogatepass")


def _count_parts(encoding: str, parts: Sequence[str]) -> list[int]:
    """Count parts in a worker (the tables rebuilt there from the encoding's name)."""
    counter = get_tokenizer(encoding)
    return [counter.count(part) for part in parts]


def _is_bpe(counter: Tokenizer) -> bool:
    """Whether workers can count with the same tables (rebuilt there from the name)."""
    return counter.exact and counter.name in EXACT_ENCODINGS


_SHARED_CACHES: OrderedDict[tuple[str, Path | None], CountCache] = OrderedDict()
_SHARED_LIMIT = 16
"""At most this many shared caches (an encoding and a store each) are kept, the least
recently asked for dropped first, so a process that works on many projects stays bounded."""


def shared_counter(model: str | None = None, *, store: Path | None = None) -> CountCache:
    """A process-wide count cache for ``model``'s tokenizer keeping its keyed counts in
    ``store`` (a cache database; None: in memory only), shared by every composition."""
    tokenizer = tokenizer_for_model(model)
    key = (tokenizer.name, store)
    cache = _SHARED_CACHES.get(key)
    if cache is None:
        cache = _SHARED_CACHES[key] = CountCache(tokenizer, store=store)
        while len(_SHARED_CACHES) > _SHARED_LIMIT:
            _SHARED_CACHES.popitem(last=False)
    else:
        _SHARED_CACHES.move_to_end(key)
    return cache
