"""Exact offline token counts, model-to-encoding lookup, and the per-text count cache."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.errors import UsageError
from agentprompt.tokens import (
    BpeTokenizer,
    CountCache,
    EstimatingTokenizer,
    Tokenizer,
    encoding_for_model,
    get_tokenizer,
    shared_counter,
    tokenizer_for_model,
)

O200K = get_tokenizer("o200k_base")
CL100K = get_tokenizer("cl100k_base")

# -- exact counts ----------------------------------------------------------------------------


def test_hello_world_encodes_to_the_known_o200k_tokens() -> None:
    assert O200K.encode("hello world") == [24912, 2375]


def test_hello_world_encodes_to_the_known_cl100k_tokens() -> None:
    assert CL100K.encode("hello world") == [15339, 1917]


@pytest.mark.parametrize(
    ("text", "o200k", "cl100k"),
    [
        ("", 0, 0),
        ("hello world", 2, 2),
        ("Hello, world!", 4, 4),
        ("The quick brown fox jumps over the lazy dog.", 10, 10),
        ("def add(a, b):\n    return a + b\n", 12, 12),
        ("日本語のテキスト", 6, 8),
        ("naïve café 🙂", 5, 5),
    ],
)
def test_counts_are_exact_for_both_encodings(text: str, o200k: int, cl100k: int) -> None:
    assert O200K.count(text) == o200k == len(O200K.encode(text))
    assert CL100K.count(text) == cl100k == len(CL100K.encode(text))


@settings(max_examples=150)
@given(st.text(max_size=200))
def test_count_is_the_number_of_encoded_tokens(text: str) -> None:
    assert O200K.count(text) == len(O200K.encode(text))
    assert CL100K.count(text) == len(CL100K.encode(text))


@pytest.mark.parametrize("tokenizer", [O200K, CL100K], ids=lambda t: t.name)
def test_special_token_text_counts_as_plain_text(tokenizer: BpeTokenizer) -> None:
    count = tokenizer.count("<|endoftext|>")

    assert count == 7
    assert count == len(tokenizer.encode("<|endoftext|>"))


def test_special_token_text_inside_a_file_counts_as_its_pieces() -> None:
    text = "before <|endoftext|> after <|im_start|>"

    assert O200K.count(text) > 4
    assert O200K.count(text) == len(O200K.encode(text))


@pytest.mark.parametrize("tokenizer", [O200K, CL100K], ids=lambda t: t.name)
def test_lone_surrogates_count_as_replacement_characters(tokenizer: BpeTokenizer) -> None:
    assert tokenizer.count("a\ud800b") == tokenizer.count("a\ufffdb")
    assert tokenizer.encode("a\udfffb") == tokenizer.encode("a\ufffdb")


def test_a_surrogate_pair_counts_as_the_character_it_encodes() -> None:
    assert O200K.count("smile \ud83d\ude42") == O200K.count("smile 🙂")


@settings(max_examples=100)
@given(st.text(alphabet=st.characters(categories=["Cs", "Ll", "Zs"]), max_size=50))
def test_any_python_string_can_be_counted(text: str) -> None:
    assert O200K.count(text) == len(O200K.encode(text))


def test_bpe_tokenizer_reports_its_encoding_and_exactness() -> None:
    tokenizer = BpeTokenizer("cl100k_base")

    assert tokenizer.name == "cl100k_base"
    assert tokenizer.exact is True
    assert isinstance(tokenizer, Tokenizer)


def test_bpe_tokenizer_defaults_to_o200k() -> None:
    assert BpeTokenizer().name == "o200k_base"


@pytest.mark.parametrize("name", ["p50k_base", "gpt2", "O200K_BASE", ""])
def test_other_encodings_raise_unknown_encoding_naming_it(name: str) -> None:
    with pytest.raises(UsageError) as info:
        BpeTokenizer(name)

    assert repr(name) in str(info.value)
    assert "o200k_base" in str(info.value)
    assert "cl100k_base" in str(info.value)


def test_get_tokenizer_shares_one_tokenizer_per_encoding() -> None:
    assert get_tokenizer("o200k_base") is get_tokenizer("o200k_base")
    assert get_tokenizer("cl100k_base") is not get_tokenizer("o200k_base")


def test_get_tokenizer_for_an_unknown_encoding_raises() -> None:
    with pytest.raises(UsageError, match="'r50k_base'"):
        get_tokenizer("r50k_base")


# -- models to encodings ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini", "o200k_base"),
        ("gpt-4.1", "o200k_base"),
        ("gpt-4.1-nano", "o200k_base"),
        ("o1", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("o4-mini", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("gpt-5-codex", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-4-turbo", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("text-embedding-3-small", "cl100k_base"),
    ],
)
def test_openai_models_map_to_their_encoding(model: str, encoding: str) -> None:
    assert encoding_for_model(model) == encoding


def test_longest_matching_prefix_wins() -> None:
    assert encoding_for_model("gpt-4") == "cl100k_base"
    assert encoding_for_model("gpt-4o") == "o200k_base"
    assert encoding_for_model("gpt-4.1-mini") == "o200k_base"


@pytest.mark.parametrize("model", ["openai/gpt-4o", "azure/gpt-4o", "openrouter/openai/gpt-4o"])
def test_provider_prefixes_are_ignored(model: str) -> None:
    assert encoding_for_model(model) == "o200k_base"


def test_model_names_match_regardless_of_case() -> None:
    assert encoding_for_model("GPT-4o") == "o200k_base"
    assert encoding_for_model("OpenAI/GPT-4") == "cl100k_base"


@pytest.mark.parametrize(
    "model",
    ["claude-sonnet-4-5", "anthropic/claude-3-5-haiku", "gemini-2.5-pro", "llama-3-70b", ""],
)
def test_models_without_a_public_tokenizer_have_no_encoding(model: str) -> None:
    assert encoding_for_model(model) is None


@pytest.mark.parametrize(
    ("model", "encoding"), [("gpt-4o", "o200k_base"), ("openai/gpt-3.5-turbo", "cl100k_base")]
)
def test_openai_models_get_the_shared_exact_tokenizer(model: str, encoding: str) -> None:
    tokenizer = tokenizer_for_model(model)

    assert tokenizer is get_tokenizer(encoding)
    assert tokenizer.exact is True


@pytest.mark.parametrize("model", [None, ""])
def test_no_model_counts_exactly_with_o200k(model: str | None) -> None:
    assert tokenizer_for_model(model) is get_tokenizer("o200k_base")


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "gemini-2.5-pro"])
def test_other_models_get_an_estimate_labelled_as_such(model: str) -> None:
    tokenizer = tokenizer_for_model(model)

    assert isinstance(tokenizer, EstimatingTokenizer)
    assert tokenizer.exact is False
    assert "estimate" in tokenizer.name
    assert model in tokenizer.name
    assert tokenizer.count("hello world") == O200K.count("hello world")


# -- estimates -------------------------------------------------------------------------------


@dataclass
class FakeTokenizer:
    """A tokenizer that counts characters and remembers every text it was asked to count."""

    name: str = "fake"
    exact: bool = True
    calls: list[str] = field(default_factory=list)

    def count(self, text: str) -> int:
        self.calls.append(text)
        return len(text)


def test_estimate_scales_and_rounds_the_base_count() -> None:
    estimate = EstimatingTokenizer(base=FakeTokenizer(), scale=1.25)

    assert estimate.count("abcdefghij") == 12  # round(12.5) rounds to even
    assert estimate.count("abcd") == 5


def test_estimate_names_its_label_and_base_encoding() -> None:
    estimate = EstimatingTokenizer(base=O200K, label="estimate for claude")

    assert estimate.name == "estimate for claude via o200k_base"
    assert EstimatingTokenizer(base=O200K).name == "estimate via o200k_base"


# -- count cache -----------------------------------------------------------------------------

TEXT = "x" * 64
OTHER = "y" * 100


def test_cache_counts_what_its_tokenizer_counts() -> None:
    text = "def add(a, b):\n    return a + b\n" * 4
    cache = CountCache(O200K)

    assert cache.count(text) == O200K.count(text)
    assert cache.count(text) == O200K.count(text)
    assert cache.count("short") == O200K.count("short")


def test_cache_reports_its_tokenizer_name_and_exactness() -> None:
    cache = CountCache(EstimatingTokenizer(base=O200K))

    assert cache.name == "estimate via o200k_base"
    assert cache.exact is False


def test_cache_does_not_retokenize_unchanged_text() -> None:
    fake = FakeTokenizer()
    cache = CountCache(fake)

    assert [cache.count(TEXT) for _ in range(3)] == [64, 64, 64]
    assert fake.calls == [TEXT]


def test_cache_counts_hits_and_misses() -> None:
    cache = CountCache(FakeTokenizer())

    cache.count(TEXT)
    cache.count(OTHER)
    cache.count(TEXT)
    cache.count(TEXT)

    assert (cache.hits, cache.misses) == (2, 2)


def test_cache_retokenizes_changed_text() -> None:
    fake = FakeTokenizer()
    cache = CountCache(fake)

    cache.count(TEXT)
    assert cache.count(TEXT + "z") == 65
    assert fake.calls == [TEXT, TEXT + "z"]


def test_short_text_is_remembered_too() -> None:
    fake = FakeTokenizer()
    cache = CountCache(fake)

    assert cache.count("hi") == cache.count("hi") == 2
    assert fake.calls == ["hi"]
    assert (cache.hits, cache.misses) == (1, 1)


def test_cache_remembers_a_count_of_zero() -> None:
    fake = FakeTokenizer()
    fake_zero = EstimatingTokenizer(base=fake, scale=0.0)
    cache = CountCache(fake_zero)

    assert cache.count(TEXT) == 0
    assert cache.count(TEXT) == 0
    assert len(fake.calls) == 1


def test_cache_evicts_the_least_recently_used_count_past_its_limit() -> None:
    fake = FakeTokenizer()
    cache = CountCache(fake, max_entries=2)
    a, b, c = "a" * 64, "b" * 64, "c" * 64

    cache.count(a)
    cache.count(b)
    cache.count(a)  # a is now the most recently used
    cache.count(c)  # evicts b
    fake.calls.clear()
    cache.count(a)
    cache.count(c)
    cache.count(b)

    assert fake.calls == [b]


def test_cache_evicts_the_least_recently_used_counts_past_its_character_limit() -> None:
    fake = FakeTokenizer()
    cache = CountCache(fake, max_chars=150)
    a, b, c = "a" * 60, "b" * 60, "c" * 60

    cache.count(a)
    cache.count(b)
    cache.count(a)  # a is now the most recently used
    cache.count(c)  # 180 characters: evicts b
    fake.calls.clear()
    cache.count(a)
    cache.count(c)
    cache.count(b)

    assert fake.calls == [b]


def test_text_longer_than_the_character_limit_is_counted_but_not_remembered() -> None:
    fake = FakeTokenizer()
    cache = CountCache(fake, max_chars=10)
    cache.count("short")

    assert cache.count("x" * 11) == 11
    assert cache.count("x" * 11) == 11
    assert cache.count("short") == 5
    assert fake.calls == ["short", "x" * 11, "x" * 11]
    assert (cache.hits, cache.misses) == (1, 3)


def test_cache_handles_lone_surrogates() -> None:
    cache = CountCache(O200K)
    text = "a\ud800b" * 30

    assert cache.count(text) == O200K.count(text)
    assert cache.count(text) == O200K.count(text)
    assert (cache.hits, cache.misses) == (1, 1)


def test_shared_counter_is_one_cache_per_tokenizer() -> None:
    assert shared_counter("gpt-4o") is shared_counter("gpt-4o")
    assert shared_counter("gpt-4o") is shared_counter("openai/gpt-4.1")
    assert shared_counter(None) is shared_counter("gpt-5")
    assert shared_counter("gpt-4") is not shared_counter("gpt-4o")


def test_shared_counter_wraps_the_models_tokenizer() -> None:
    assert shared_counter("gpt-3.5-turbo").tokenizer is get_tokenizer("cl100k_base")
    assert shared_counter("claude-sonnet-4-5").exact is False
    assert shared_counter("claude-sonnet-4-5") is shared_counter("claude-sonnet-4-5")


def test_fine_tuned_model_names_count_like_their_base_model() -> None:
    assert encoding_for_model("ft:gpt-4o-mini-2024-07-18:acme::abc123") == "o200k_base"
    assert encoding_for_model("ft:gpt-3.5-turbo:acme::xyz") == "cl100k_base"
