"""Symbol ranking: each signal and the reason it leaves, innermost definitions first, the
whole body's lines, and the repository-level ranking."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.repo.rank import (
    InvalidTask,
    RankOptions,
    RelevantSymbol,
    rank_symbols,
    rank_symbols_in,
)
from agentprompt.repo.symbols import FileSymbols, extract_symbols

CONFIG = '''\
class Config:
    """Settings read from files."""

    def from_pyfile(self, filename):
        """Load a Python file of settings."""
        with open(filename) as handle:
            code = compile(handle.read(), filename, "exec")
        return self.load(code)

    def load(self, code):
        namespace = {}
        exec(code, namespace)
        return namespace


def read_environment(prefix):
    """Settings from the environment variables starting with the prefix."""
    return {key: value for key, value in environ.items() if key.startswith(prefix)}


def cache_directory():
    home = user_home()
    return home + "/.cache/app.d"
'''

SERVER = '''\
def run_server(host, port):
    """Serve until stopped."""
    if port < 1024:
        raise ValueError("The port must be above 1024 for a user")
    listen(host, port)


def shutdown():
    close_sockets()
'''


def _rank(
    task: str,
    files: dict[str, str],
    scores: dict[str, float] | None = None,
    *,
    details: bool = True,
) -> tuple[RelevantSymbol, ...]:
    entries = {p: extract_symbols(p, t.encode(), details=details) for p, t in files.items()}
    ranked = [(p, (scores or {}).get(p, 1.0)) for p in files]
    return rank_symbols_in(task, ranked, entries, files)


def _signals(found: RelevantSymbol) -> dict[str, str]:
    return {r.signal: r.detail for r in found.reasons}


def test_name_the_task_writes_as_code_ranks_its_definition_first() -> None:
    found = _rank("`read_environment` drops the values", {"app/config.py": CONFIG})
    assert found[0].name == "read_environment"
    assert _signals(found[0])["name"] == "read_environment"


def test_name_terms_shared_with_the_task_count() -> None:
    found = _rank("the cache directory is wrong on Windows", {"app/config.py": CONFIG})
    assert found[0].name == "cache_directory"
    assert set(_signals(found[0])["name"].split(", ")) == {"cache", "directory"}


def test_name_terms_match_other_forms_of_the_task_words() -> None:
    code = (
        "class Window:\n    def __iter__(self):\n        return self\n\n"
        "    def __len__(self):\n        return 0\n"
    )
    found = _rank("iterating over it skips the last item", {"w.py": code})
    assert found[0].name == "Window.__iter__"
    assert "iter" in _signals(found[0])["name"]


def test_body_terms_of_the_task_count() -> None:
    found = _rank("settings compiled with exec lose the namespace", {"app/config.py": CONFIG})
    assert found[0].name == "Config.load"
    assert "namespace" in _signals(found[0])["body"]


def test_exact_quoted_string_found_in_the_body() -> None:
    task = 'Starting fails with "The port must be above 1024 for a user" for root'
    found = _rank(task, {"app/config.py": CONFIG, "app/server.py": SERVER})
    assert found[0].name == "run_server"
    assert "The port must be above 1024 for a user" in _signals(found[0])["exact"]


def test_exact_error_message_after_its_exception_name_is_found() -> None:
    task = "It raises `ValueError: The port must be above 1024 for a user` on port 80"
    found = _rank(task, {"app/server.py": SERVER})
    assert found[0].name == "run_server"
    assert "exact" in _signals(found[0])


def test_exact_dotted_string_found_in_the_body() -> None:
    found = _rank("files land in app.d under home", {"app/config.py": CONFIG})
    assert found[0].name == "cache_directory"
    assert "app.d" in _signals(found[0])["exact"]


def test_calls_the_task_names() -> None:
    found = _rank("close_sockets() leaks a handle", {"app/server.py": SERVER})
    assert found[0].name == "shutdown"
    assert _signals(found[0])["calls"] == "close_sockets"


def test_trace_frame_points_into_a_definition() -> None:
    task = (
        "Traceback (most recent call last):\n"
        '  File "/site-packages/app/server.py", line 4, in run_server\n'
        "ValueError: bad port\n"
    )
    found = _rank(task, {"app/config.py": CONFIG, "app/server.py": SERVER})
    assert found[0].name == "run_server"
    assert _signals(found[0])["trace"] == "server.py:4 in run_server"


def test_trace_frame_nearest_the_error_weighs_most() -> None:
    code = "def start_app():\n    open_port()\n\n\ndef open_port():\n    listen()\n"
    task = (
        "Traceback (most recent call last):\n"
        '  File "app/net.py", line 2, in start_app\n'
        '  File "app/net.py", line 6, in open_port\n'
        '  File "/usr/lib/python3/socket.py", line 9, in listen\n'
        "OSError: busy\n"
    )
    found = _rank(task, {"app/net.py": code})
    weights = {s.name: r.weight for s in found for r in s.reasons if r.signal == "trace"}
    assert weights["open_port"] > weights["start_app"]
    caller = _signals(next(s for s in found if s.name == "start_app"))
    assert "calls" not in caller and "exact" not in caller  # open_port is the trace's


def test_file_score_breaks_even_evidence() -> None:
    twin = "def load_settings(path):\n    return parse(path)\n"
    files = {"a/settings.py": twin, "b/settings.py": twin}
    found = _rank("load_settings fails", files, {"a/settings.py": 0.2, "b/settings.py": 1.0})
    assert [s.path for s in found] == ["b/settings.py", "a/settings.py"]
    assert _signals(found[0])["file"] == "the best file"
    assert _signals(found[1])["file"] == "0.20 of the best file's score"


def test_the_method_holding_the_evidence_ranks_above_its_class() -> None:
    found = _rank("the settings file is compiled without its filename", {"c.py": CONFIG})
    names = [s.name for s in found]
    assert names.index("Config.from_pyfile") < names.index("Config")


def test_a_class_the_task_names_ranks_for_its_name() -> None:
    found = _rank("`Config` should be frozen", {"c.py": CONFIG})
    assert found[0].name == "Config"
    assert found[0].kind == "class"


def test_lines_cover_the_whole_body() -> None:
    found = {s.name: s for s in _rank("Config.from_pyfile and Config.load", {"c.py": CONFIG})}
    assert (found["Config.from_pyfile"].start, found["Config.from_pyfile"].end) == (4, 8)
    assert (found["Config"].start, found["Config"].end) == (1, 13)


def test_entries_without_details_end_where_the_next_definition_begins() -> None:
    task = "Config.from_pyfile, Config.load and cache_directory"
    found = {s.name: s for s in _rank(task, {"c.py": CONFIG}, details=False)}
    assert (found["Config.from_pyfile"].start, found["Config.from_pyfile"].end) == (4, 8)
    assert (found["Config.load"].start, found["Config.load"].end) == (10, 13)
    assert (found["cache_directory"].start, found["cache_directory"].end) == (21, 23)


def test_limit_files_without_entries_or_text_and_no_evidence() -> None:
    entries = {"c.py": extract_symbols("c.py", CONFIG.encode())}
    ranked = [("c.py", 1.0), ("gone.py", 0.5)]
    found = rank_symbols_in("settings from files", ranked, entries, {"c.py": CONFIG}, limit=1)
    assert len(found) == 1 and found[0].path == "c.py"
    assert rank_symbols_in("zebra", ranked, entries, {"c.py": CONFIG}) == ()


def test_rank_symbols_ranks_the_files_then_their_definitions(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "app").mkdir(parents=True)
    (root / "app" / "config.py").write_text(CONFIG)
    (root / "app" / "server.py").write_text(SERVER)
    options = RankOptions(use_cache=False)
    found = rank_symbols(root, "run_server refuses port 80", options, files=1, limit=5)
    assert found[0].path == "app/server.py" and found[0].name == "run_server"
    assert {s.path for s in found} == {"app/server.py"}
    assert (found[0].start, found[0].end) == (1, 5)


def test_rank_symbols_refuses_an_empty_task_before_reading(tmp_path: Path) -> None:
    with pytest.raises(InvalidTask, match="the task is empty"):
        rank_symbols(tmp_path / "missing", "  ", RankOptions(use_cache=False))


def test_symbols_of_a_file_without_a_grammar_are_none() -> None:
    entries = {"notes.txt": FileSymbols(path="notes.txt", language=None)}
    assert rank_symbols_in("notes", [("notes.txt", 1.0)], entries, {"notes.txt": "x"}) == ()
