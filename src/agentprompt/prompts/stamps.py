"""Files parsed once per change: a cache keyed by each file's stamp (size, modification and
change time, inode), shared by every reader of the process."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Generic, TypeVar

__all__ = ["FileStamp", "StampedCache", "file_stamp"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

FileStamp = tuple[int, int, int, int]
"""A file's size, modification time, change time (nanoseconds) and inode."""


def file_stamp(path: Path) -> FileStamp:
    """The stamp of ``path`` now; OSError when it cannot be read."""
    info = path.stat()
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


class StampedCache(Generic[K, V]):
    """Values parsed from files, each kept with the stamp its file had when it was parsed,
    so a file is parsed again only when it changed."""

    def __init__(self) -> None:
        self._entries: dict[K, tuple[FileStamp, V]] = {}

    def load(self, key: K, path: Path, parse: Callable[[bytes], V]) -> V:
        """The value ``parse`` makes of the bytes of ``path``, remembered under ``key``;
        OSError when the file cannot be read (whatever ``parse`` raises passes through)."""
        stamp = file_stamp(path)
        cached = self._entries.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        value = parse(path.read_bytes())
        self._entries[key] = (stamp, value)
        return value

    def load_text(
        self,
        key: K,
        path: Path,
        parse: Callable[[str], V],
        refuse: Callable[[str], Exception],
    ) -> V:
        """The value ``parse`` makes of the UTF-8 text of ``path`` (a byte-order mark is not
        part of it), remembered under ``key``. A file that cannot be read, or is not UTF-8,
        raises what ``refuse`` makes of the problem (``"cannot be read (...)"``)."""

        def decoded(raw: bytes) -> V:
            try:
                text = raw.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                raise refuse(f"is not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
            return parse(text)

        try:
            return self.load(key, path, decoded)
        except OSError as exc:
            raise refuse(f"cannot be read ({exc.strerror})") from None
