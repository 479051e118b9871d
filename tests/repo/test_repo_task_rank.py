"""Task-aware ranking: each signal, the reasons it leaves, tests demoted, bad tasks refused."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from agentprompt.repo.rank._task import (
    MAX_TASK_CHARS,
    FileDocument,
    InvalidTask,
    LexicalIndex,
    TaskRanking,
    check_task,
    rank_for_task,
    split_identifier,
    task_about_tests,
)

DOCS = (
    FileDocument(
        path="src/shop/cart.py",
        defs=("Cart", "add_item", "cart_total"),
        members=("checkout", "apply_coupon"),
        uses=frozenset(("Decimal", "Product", "price")),
    ),
    FileDocument(
        path="src/shop/product.py",
        defs=("Product",),
        members=("price", "describe"),
        uses=frozenset(("Decimal",)),
    ),
    FileDocument(
        path="src/shop/http/server.py",
        defs=("serve", "RequestHandler"),
        members=("do_GET",),
        uses=frozenset(("Cart", "cart_total")),
    ),
    FileDocument(
        path="tests/test_cart.py",
        defs=("test_cart_total", "test_apply_coupon"),
        uses=frozenset(("Cart", "cart_total", "apply_coupon", "checkout")),
        is_test=True,
    ),
    FileDocument(path="docs/index.rst"),
)


def _rank(task: str, docs: tuple[FileDocument, ...] = DOCS, **kwargs: object) -> TaskRanking:
    return rank_for_task(task, docs, **kwargs)  # type: ignore[arg-type]


def _signals(ranking: TaskRanking, path: str) -> dict[str, str]:
    found = next(f for f in ranking.files if f.path == path)
    return {r.signal: r.detail for r in found.reasons}


def test_identifiers_split_at_snake_and_camel_case() -> None:
    assert split_identifier("parseJSONValue") == ("parse", "json", "value", "parsejsonvalue")
    assert split_identifier("cart_total") == ("cart", "total", "cart_total")
    assert split_identifier("_private") == ("private",)
    assert split_identifier("HTTPServer") == ("http", "server", "httpserver")


def test_a_bug_report_ranks_the_implementation_above_its_test() -> None:
    ranking = _rank("The cart total is wrong after apply_coupon is called twice")
    order = ranking.order()
    assert order[0] == "src/shop/cart.py"
    assert order.index("src/shop/cart.py") < order.index("tests/test_cart.py")
    assert _signals(ranking, "tests/test_cart.py")["test"] == "a test file"


def test_a_task_about_tests_does_not_demote_them() -> None:
    ranking = _rank("Add tests for cart_total and apply_coupon in test_cart")
    assert ranking.about_tests
    assert ranking.order().index("tests/test_cart.py") <= 1
    assert "test" not in _signals(ranking, "tests/test_cart.py")
    demoted = _rank("Wrong cart_total after apply_coupon in test_cart").scores()
    assert ranking.scores()["tests/test_cart.py"] > demoted["tests/test_cart.py"]


def test_every_file_is_ranked_once_with_its_score() -> None:
    ranking = _rank("coupon")
    assert sorted(ranking.order()) == sorted(d.path for d in DOCS)
    scores = [f.score for f in ranking.files]
    assert scores == sorted(scores, reverse=True)
    assert ranking.scores()["docs/index.rst"] == 0.0


def test_lexical_reason_names_the_matched_terms() -> None:
    ranking = _rank("Products describe their price badly")
    assert ranking.order()[0] == "src/shop/product.py"
    assert "price" in _signals(ranking, "src/shop/product.py")["lexical"]


def test_a_named_path_is_a_path_mention() -> None:
    ranking = _rank("Something is off in http/server.py when serving")
    assert ranking.order()[0] == "src/shop/http/server.py"
    assert _signals(ranking, "src/shop/http/server.py")["path"] == "http/server.py"


def test_a_dotted_module_is_a_module_mention() -> None:
    ranking = _rank("Importing shop.product fails on Python 3.13")
    assert _signals(ranking, "src/shop/product.py")["module"] == "shop.product"


def test_an_identifier_the_repository_defines_is_a_definition_mention() -> None:
    ranking = _rank("RequestHandler misbehaves")
    assert ranking.order()[0] == "src/shop/http/server.py"
    assert _signals(ranking, "src/shop/http/server.py")["definition"] == "RequestHandler"


def test_a_stack_trace_frame_names_its_file_and_line() -> None:
    task = (
        "Crash on checkout:\n"
        "Traceback (most recent call last):\n"
        '  File "/srv/venv/lib/python3.12/site-packages/shop/cart.py", line 42, in checkout\n'
        "ZeroDivisionError: division by zero\n"
    )
    ranking = _rank(task)
    assert ranking.order()[0] == "src/shop/cart.py"
    detail = _signals(ranking, "src/shop/cart.py")["trace"]
    assert detail.endswith("shop/cart.py:42 in checkout")


def test_a_pytest_style_frame_is_a_trace_too() -> None:
    ranking = _rank("src/shop/product.py:17: in describe\n    raise ValueError")
    assert "src/shop/product.py:17 in describe" in _signals(ranking, "src/shop/product.py")["trace"]


def test_a_test_file_named_by_path_is_not_demoted() -> None:
    ranking = _rank("tests/test_cart.py fails on Windows")
    assert ranking.order()[0] == "tests/test_cart.py"


def test_the_graph_step_is_seeded_by_the_hits_and_leaves_a_reason() -> None:
    seen: list[Mapping[str, float]] = []

    def propagate(seeds: Mapping[str, float]) -> Mapping[str, float]:
        seen.append(dict(seeds))
        return {"src/shop/product.py": 0.6, "src/shop/cart.py": 0.4}

    ranking = _rank("cart_total is wrong", propagate=propagate)
    assert seen and "src/shop/cart.py" in seen[0]
    assert "docs/index.rst" not in seen[0]
    assert "graph" in _signals(ranking, "src/shop/product.py")


def test_a_task_in_another_language_with_non_ascii_identifiers_works() -> None:
    docs = (
        FileDocument(path="src/größe.py", defs=("berechne_größe",)),
        FileDocument(path="src/other.py", defs=("nichts",)),
    )
    ranking = _rank("berechne_größe liefert falsche Werte für leere Listen", docs)
    assert ranking.order()[0] == "src/größe.py"
    ranking = _rank("カートの合計が間違っています cart_total", DOCS)
    assert ranking.order()[0] == "src/shop/cart.py"


def test_a_task_title_about_tests_is_recognised() -> None:
    assert task_about_tests("Flaky test in CI\nThe cart fails")
    assert not task_about_tests("Cart total wrong\nsee test_cart.py")


@pytest.mark.parametrize(
    ("task", "words"),
    [
        ("", "empty"),
        ("   \n\t ", "empty"),
        ("x" * (MAX_TASK_CHARS + 1), "limit"),
        ("fix\0this", "binary"),
        ("\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f", "binary"),
        ("fix caf\udce9 parsing", "undecodable"),
    ],
)
def test_a_task_that_cannot_be_ranked_for_is_refused(task: str, words: str) -> None:
    with pytest.raises(InvalidTask, match=words):
        check_task(task)
    with pytest.raises(InvalidTask):
        rank_for_task(task, DOCS)


def test_names_whose_lower_case_is_longer_do_not_upset_the_term_search() -> None:
    docs = (
        FileDocument(path="src/tr.py", defs=("İSTANBUL_SAATİ", "load_config")),
        FileDocument(path="src/other.py", defs=("parse_config",)),
    )
    ranking = _rank("parse_config reads the wrong file", docs)
    assert ranking.order()[0] == "src/other.py"
    assert "parse" in _signals(ranking, "src/other.py")["lexical"]
    assert "config" in _signals(ranking, "src/tr.py")["lexical"]


def test_one_reason_per_signal_with_the_matches_listed_once() -> None:
    task = (
        "See src/shop/cart.py and again src/shop/cart.py, also shop/cart.py; "
        "Cart, add_item, cart_total and checkout all misbehave"
    )
    found = next(f for f in _rank(task).files if f.path == "src/shop/cart.py")
    signals = [r.signal for r in found.reasons]
    assert len(signals) == len(set(signals))
    by_signal = {r.signal: r for r in found.reasons}
    assert by_signal["path"].detail == "src/shop/cart.py, shop/cart.py"
    assert by_signal["path"].weight == pytest.approx(3.0)
    assert by_signal["definition"].detail.endswith(", +1")
    assert found.score == pytest.approx(sum(r.weight for r in found.reasons))


def test_an_index_ranks_as_its_documents_do_and_survives_bytes() -> None:
    index = LexicalIndex.build(DOCS)
    again = LexicalIndex.from_bytes(index.to_bytes())
    assert again == index
    task = "The cart total is wrong after apply_coupon; see shop.product"
    assert rank_for_task(task, index) == rank_for_task(task, DOCS)
    assert index.definers("Cart") == ["src/shop/cart.py"]
    assert sorted(index.definers("price")) == ["src/shop/product.py"]


def test_damaged_index_bytes_are_not_used() -> None:
    data = LexicalIndex.build(DOCS).to_bytes()
    assert LexicalIndex.from_bytes(data[: len(data) // 2]) is None
    assert LexicalIndex.from_bytes(b"not an index") is None
