"""Prompt files: front matter, declared variables, lookup order, caching, and seed 004's loader."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import agentprompt.prompts
import agentprompt.prompts.loader as loader_module
from agentprompt.errors import AgentPromptError
from agentprompt.prompts.loader import (
    PACKAGED_DIR,
    InvalidPromptFile,
    MissingVariables,
    PromptFileMissing,
    PromptLibrary,
    PromptTemplate,
    build_system_prompt,
    load_extra_prompt,
    load_skill,
    load_system_prompt,
    parse_prompt_file,
)


def write(path: Path, text: str) -> Path:
    """Write ``text`` as UTF-8 exactly as given (no newline translation)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty project root."""
    project = tmp_path / "project"
    project.mkdir()
    return project.resolve()


@pytest.fixture
def library(root: Path) -> PromptLibrary:
    """A library for the empty project root and the (empty) user config dir."""
    return PromptLibrary(root)


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Record every file read through ``Path.read_bytes`` from now on."""
    reads: list[Path] = []
    original = Path.read_bytes

    def counting_read_bytes(self: Path) -> bytes:
        reads.append(self)
        return original(self)

    monkeypatch.setattr(Path, "read_bytes", counting_read_bytes)
    return reads


def project_prompt(root: Path, name: str, text: str) -> Path:
    """A prompt file in the project's ``config/prompts/``."""
    return write(root / "config" / "prompts" / f"{name}.md", text)


def local_prompt(root: Path, name: str, text: str) -> Path:
    """A prompt file in the project's ``.agentprompt/prompts/``."""
    return write(root / ".agentprompt" / "prompts" / f"{name}.md", text)


def user_prompt(user_config_dir: Path, name: str, text: str) -> Path:
    """A prompt file in the user's config dir."""
    return write(user_config_dir / "prompts" / f"{name}.md", text)


GREETING = (
    "---\nvariables:\n  name: Who to greet.\n  place: Where.\n---\n"
    "Hello {{name}}, welcome to {{place}}.\n"
)


# Front matter and body


def test_body_excludes_front_matter_and_the_final_newline(
    root: Path, library: PromptLibrary
) -> None:
    project_prompt(root, "p", "---\ndescription: A test.\n---\nline one\nline two\n")
    assert library.load("p").body == "line one\nline two"


def test_only_the_final_newline_is_dropped(root: Path, library: PromptLibrary) -> None:
    project_prompt(root, "p", "text\n\n")
    assert library.load("p").body == "text\n"


def test_a_final_crlf_is_dropped(root: Path, library: PromptLibrary) -> None:
    project_prompt(root, "p", "---\r\ndescription: d\r\n---\r\none\r\ntwo\r\n")
    assert library.load("p").body == "one\r\ntwo"


def test_description_comes_from_the_front_matter(root: Path, library: PromptLibrary) -> None:
    project_prompt(root, "p", "---\ndescription: What it is for.\n---\nbody\n")
    assert library.load("p").description == "What it is for."


def test_declared_variables_are_listed_in_declaration_order(
    root: Path, library: PromptLibrary
) -> None:
    project_prompt(root, "p", "---\nvariables:\n  zeta: z\n  alpha: a\n---\n{{alpha}}{{zeta}}\n")
    assert library.load("p").variables == ("zeta", "alpha")


def test_variables_may_be_declared_as_a_list(root: Path, library: PromptLibrary) -> None:
    project_prompt(root, "p", "---\nvariables: [who, what]\n---\n{{who}} did {{what}}\n")
    template = library.load("p")
    assert template.variables == ("who", "what")
    assert template.render(who="Ann", what="it") == "Ann did it"


@pytest.mark.parametrize(
    "raw, problem",
    [
        (b"---\nvariables: [unclosed\n---\nbody\n", "not valid YAML"),
        (b"---\n- just\n- a list\n---\nbody\n", "must be a mapping"),
        (b"---\nvariables: name\n---\n{{name}}\n", "'variables' must map"),
        (b"caf\xe9 au lait\n", "not UTF-8"),
        (b"---\nvariables:\n  name: n\n---\n{{name}} and {{other}}\n", r"\{\{other\}\}.*declar"),
    ],
    ids=["invalid-yaml", "not-a-mapping", "variables-not-a-mapping", "not-utf8", "undeclared"],
)
def test_a_malformed_prompt_file_is_an_invalid_prompt_file_naming_its_path(
    root: Path, library: PromptLibrary, raw: bytes, problem: str
) -> None:
    path = root / "config" / "prompts" / "p.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(raw)
    with pytest.raises(InvalidPromptFile, match=problem) as caught:
        library.load("p")
    assert caught.value.path == path
    assert str(path) in str(caught.value)


def test_an_escaped_placeholder_need_not_be_declared(root: Path, library: PromptLibrary) -> None:
    project_prompt(root, "p", "---\nvariables:\n  name: n\n---\n{{name}} \\{{other}}\n")
    assert library.load("p").render(name="x") == "x {{other}}"


# Rendering


def test_placeholders_are_replaced_by_the_declared_values(
    root: Path, library: PromptLibrary
) -> None:
    project_prompt(root, "greeting", GREETING)
    assert library.render("greeting", name="Ann", place="Oslo") == "Hello Ann, welcome to Oslo."


def test_whitespace_is_allowed_inside_the_braces(root: Path, library: PromptLibrary) -> None:
    project_prompt(
        root, "p", "---\nvariables: [name]\n---\n[{{ name }}] [{{name  }}] [{{\tname}}]\n"
    )
    assert library.render("p", name="x") == "[x] [x] [x]"


def test_a_backslash_before_the_braces_writes_a_literal_placeholder(
    root: Path, library: PromptLibrary
) -> None:
    project_prompt(root, "p", "---\nvariables: [name]\n---\n\\{{name}} is {{name}}\n")
    assert library.render("p", name="Ann") == "{{name}} is Ann"


def test_a_variable_may_be_called_like_a_render_parameter(
    root: Path, library: PromptLibrary
) -> None:
    project_prompt(root, "p", "---\nvariables: [name, self]\n---\n{{name}} {{self}}\n")
    assert library.render("p", name="a", self="b") == "a b"
    assert library.load("p").render(name="a", self="b") == "a b"


def test_values_are_converted_to_text(root: Path, library: PromptLibrary) -> None:
    project_prompt(root, "p", "---\nvariables: [count]\n---\n{{count}} files\n")
    assert library.render("p", count=3) == "3 files"


def test_rendering_without_a_declared_variable_raises_missing_variables(
    root: Path, library: PromptLibrary
) -> None:
    path = project_prompt(root, "greeting", GREETING)
    with pytest.raises(MissingVariables) as caught:
        library.render("greeting", name="Ann")
    assert caught.value.path == path
    assert caught.value.missing == ["place"]
    assert caught.value.unknown == []
    assert str(path) in str(caught.value)
    assert "place" in str(caught.value)


def test_rendering_with_an_undeclared_variable_raises_missing_variables(
    root: Path, library: PromptLibrary
) -> None:
    path = project_prompt(root, "greeting", GREETING)
    with pytest.raises(MissingVariables) as caught:
        library.render("greeting", name="Ann", place="Oslo", mood="happy")
    assert caught.value.path == path
    assert caught.value.missing == []
    assert caught.value.unknown == ["mood"]
    assert str(path) in str(caught.value)
    assert "mood" in str(caught.value)


def test_a_file_without_variables_is_plain_text(root: Path, library: PromptLibrary) -> None:
    project_prompt(root, "p", "---\ndescription: d\n---\nKeep {{this}} and \\{{that}} as is.\n")
    assert library.render("p") == "Keep {{this}} and \\{{that}} as is."


def test_a_file_without_front_matter_is_plain_text(root: Path, library: PromptLibrary) -> None:
    project_prompt(root, "p", "Keep {{this}} as is.\n")
    template = library.load("p")
    assert template.variables == ()
    assert template.render() == "Keep {{this}} as is."


def test_a_plain_text_file_refuses_values(root: Path, library: PromptLibrary) -> None:
    project_prompt(root, "p", "Keep {{this}} as is.\n")
    with pytest.raises(MissingVariables) as caught:
        library.render("p", this="x")
    assert caught.value.unknown == ["this"]


_PLAIN = st.text(alphabet=st.characters(blacklist_characters="{}\\"))


@given(before=_PLAIN, after=_PLAIN, value=st.text())
def test_a_value_is_inserted_verbatim_and_never_expanded_again(
    before: str, after: str, value: str
) -> None:
    template = PromptTemplate(
        name="p", path=Path("p.md"), body=f"{before}{{{{x}}}}{after}", variables=("x",)
    )
    assert template.render(x=value) == before + value + after


# Lookup order


def test_the_packaged_default_is_used_when_nothing_overrides_it(library: PromptLibrary) -> None:
    source = library.resolve("agent/identity")
    assert source.origin == "packaged"
    assert source.path == PACKAGED_DIR / "agent" / "identity.md"
    assert source.shadows == ()


def test_the_user_config_dir_overrides_the_packaged_default(
    library: PromptLibrary, user_config_dir: Path
) -> None:
    mine = user_prompt(user_config_dir, "agent/identity", "I am me.\n")
    source = library.resolve("agent/identity")
    assert source.origin == "user"
    assert source.path == mine
    assert source.shadows == (PACKAGED_DIR / "agent" / "identity.md",)
    assert library.render("agent/identity") == "I am me."


def test_the_local_dir_overrides_the_user_config_dir(
    root: Path, library: PromptLibrary, user_config_dir: Path
) -> None:
    users = user_prompt(user_config_dir, "p", "user\n")
    local = local_prompt(root, "p", "local\n")
    source = library.resolve("p")
    assert source.origin == "local"
    assert source.path == local
    assert source.shadows == (users,)


def test_the_project_config_prompts_dir_wins_over_every_other(
    root: Path, library: PromptLibrary, user_config_dir: Path
) -> None:
    project = project_prompt(root, "agent/identity", "project\n")
    local = local_prompt(root, "agent/identity", "local\n")
    users = user_prompt(user_config_dir, "agent/identity", "user\n")
    source = library.resolve("agent/identity")
    assert source.origin == "project"
    assert source.path == project
    assert source.shadows == (local, users, PACKAGED_DIR / "agent" / "identity.md")
    assert library.render("agent/identity") == "project"


def test_a_user_dir_given_to_the_library_replaces_the_config_dir(
    root: Path, tmp_path: Path
) -> None:
    elsewhere = write(tmp_path / "elsewhere" / "p.md", "elsewhere\n")
    source = PromptLibrary(root, user_dir=tmp_path / "elsewhere").resolve("p")
    assert source.origin == "user"
    assert source.path == elsewhere


def test_find_returns_none_for_a_name_no_directory_has(library: PromptLibrary) -> None:
    assert library.find("no/such/prompt") is None


def test_resolving_a_missing_name_lists_every_path_searched(
    root: Path, library: PromptLibrary, user_config_dir: Path
) -> None:
    searched = [
        root / "config" / "prompts" / "nothing.md",
        root / ".agentprompt" / "prompts" / "nothing.md",
        user_config_dir / "prompts" / "nothing.md",
        PACKAGED_DIR / "nothing.md",
    ]
    with pytest.raises(PromptFileMissing) as caught:
        library.resolve("nothing")
    assert caught.value.searched == searched
    for path in searched:
        assert str(path) in str(caught.value)


def test_a_missing_prompt_file_is_both_file_not_found_and_an_agentprompt_error(
    library: PromptLibrary,
) -> None:
    with pytest.raises(PromptFileMissing) as caught:
        library.load("nothing")
    assert isinstance(caught.value, FileNotFoundError)
    assert isinstance(caught.value, AgentPromptError)


def test_list_reports_every_name_with_its_origin_and_the_files_it_shadows(
    root: Path, library: PromptLibrary, user_config_dir: Path
) -> None:
    project = project_prompt(root, "system", "project system\n")
    local = local_prompt(root, "system", "local system\n")
    skill = user_prompt(user_config_dir, "skills/compaction", "compact\n")
    identity = user_prompt(user_config_dir, "agent/identity", "me\n")

    sources = {source.name: source for source in library.list()}

    assert (sources["system"].origin, sources["system"].path) == ("project", project)
    assert sources["system"].shadows == (local, PACKAGED_DIR / "system.md")
    assert (sources["skills/compaction"].origin, sources["skills/compaction"].path) == (
        "user",
        skill,
    )
    assert sources["agent/identity"].origin == "user"
    assert sources["agent/identity"].path == identity
    assert sources["agent/identity"].shadows == (PACKAGED_DIR / "agent" / "identity.md",)
    packaged = {
        p.relative_to(PACKAGED_DIR).with_suffix("").as_posix() for p in PACKAGED_DIR.rglob("*.md")
    }
    assert set(sources) == packaged | {"system", "skills/compaction"}
    assert [source.name for source in library.list()] == sorted(sources)


@pytest.mark.parametrize("name", ["../secret", "agent/../../secret", "..", "/etc/passwd", ""])
def test_names_with_dotdot_or_absolute_names_are_refused(library: PromptLibrary, name: str) -> None:
    for lookup in (library.find, library.resolve, library.load):
        with pytest.raises(AgentPromptError, match="is not valid"):
            lookup(name)


# Reloading


def test_a_changed_file_is_read_again(root: Path, library: PromptLibrary) -> None:
    path = project_prompt(root, "p", "first\n")
    assert library.render("p") == "first"
    write(path, "second version\n")
    assert library.render("p") == "second version"


def test_a_file_is_read_once_while_it_is_unchanged(
    root: Path, library: PromptLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = project_prompt(root, "p", "text\n")
    reads = count_reads(monkeypatch)
    first = library.load("p")
    second = library.load("p")
    assert reads == [path]
    assert second is first


def test_a_new_override_wins_from_the_next_load(root: Path, library: PromptLibrary) -> None:
    local_prompt(root, "p", "local\n")
    assert library.render("p") == "local"
    project_prompt(root, "p", "project\n")
    assert library.render("p") == "project"


# Seed 004's loader


def test_load_system_prompt_reads_system_md_from_the_project_config_prompts(root: Path) -> None:
    project_prompt(root, "system", "You are an expert coding agent.\n")
    assert load_system_prompt(root) == "You are an expert coding agent."


def test_the_project_system_md_wins_over_local_and_user_ones(
    root: Path, user_config_dir: Path
) -> None:
    project_prompt(root, "system", "project\n")
    local_prompt(root, "system", "local\n")
    user_prompt(user_config_dir, "system", "user\n")
    assert load_system_prompt(root) == "project"


def test_load_system_prompt_falls_back_to_the_user_config_dir(
    root: Path, user_config_dir: Path
) -> None:
    user_prompt(user_config_dir, "system", "user system\n")
    assert load_system_prompt(root) == "user system"


def test_a_missing_system_md_raises_file_not_found_listing_the_paths_searched(
    root: Path, user_config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = root / "no-packaged-prompts"
    monkeypatch.setattr(loader_module, "PACKAGED_DIR", empty)  # as if system.md were not shipped
    with pytest.raises(FileNotFoundError) as caught:
        load_system_prompt(root)
    message = str(caught.value)
    assert str(root / "config" / "prompts" / "system.md") in message
    assert str(root / ".agentprompt" / "prompts" / "system.md") in message
    assert str(user_config_dir / "prompts" / "system.md") in message
    assert str(empty / "system.md") in message


def test_load_system_prompt_sees_a_changed_file(root: Path) -> None:
    path = project_prompt(root, "system", "old\n")
    assert load_system_prompt(root) == "old"
    write(path, "new and longer\n")
    assert load_system_prompt(root) == "new and longer"


def test_load_extra_prompt_is_none_without_system_extra_md(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loader_module, "PACKAGED_DIR", root / "no-packaged-prompts")
    project_prompt(root, "system", "system\n")
    assert load_extra_prompt(root) is None


def test_load_extra_prompt_reads_system_extra_md(root: Path) -> None:
    project_prompt(root, "system_extra", "Be brief.\n")
    assert load_extra_prompt(root) == "Be brief."


def test_build_system_prompt_joins_system_and_extra_with_a_blank_line(root: Path) -> None:
    project_prompt(root, "system", "System text.\n")
    project_prompt(root, "system_extra", "Extra text.\n")
    assert build_system_prompt(root) == "System text.\n\nExtra text."


def test_build_system_prompt_is_the_system_prompt_alone_without_an_extra(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loader_module, "PACKAGED_DIR", root / "no-packaged-prompts")
    project_prompt(root, "system", "System text.\n")
    assert build_system_prompt(root) == "System text."


def test_the_prompts_package_exports_exactly_the_three_loader_functions() -> None:
    assert agentprompt.prompts.__all__ == [
        "build_system_prompt",
        "load_extra_prompt",
        "load_system_prompt",
    ]
    assert agentprompt.prompts.load_system_prompt is load_system_prompt
    assert agentprompt.prompts.load_extra_prompt is load_extra_prompt
    assert agentprompt.prompts.build_system_prompt is build_system_prompt


def test_load_skill_reads_the_skills_dir(root: Path) -> None:
    project_prompt(root, "skills/compaction", "Find the topic boundary.\n")
    assert load_skill("compaction", root) == "Find the topic boundary."


def test_load_skill_reads_the_file_once_until_it_changes(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = project_prompt(root, "skills/compaction", "first\n")
    reads = count_reads(monkeypatch)
    assert load_skill("compaction", root) == "first"
    assert load_skill("compaction", root) == "first"
    assert reads == [path]

    write(path, "second version\n")
    assert load_skill("compaction", root) == "second version"
    assert reads == [path, path]


def test_a_missing_skill_raises_prompt_file_missing(root: Path) -> None:
    with pytest.raises(PromptFileMissing, match=r"skills/nope\.md"):
        load_skill("nope", root)


def test_a_skill_name_cannot_escape_the_skills_dir(root: Path) -> None:
    with pytest.raises(AgentPromptError, match="is not valid"):
        load_skill("../system", root)


def test_an_escaped_opening_brace_pair_is_literal_anywhere_in_a_templated_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "p.md"
    path.write_text("---\nvariables: [x]\n---\n\\{{ not a name }} and \\{{x}} and {{x}}\n")
    template = parse_prompt_file("p", path, path.read_text())
    assert template.render(x="1") == "{{ not a name }} and {{x}} and 1"


def test_empty_front_matter_is_front_matter(tmp_path: Path) -> None:
    path = tmp_path / "p.md"
    template = parse_prompt_file("p", path, "---\n---\nbody\n")
    assert template.body == "body"
    assert template.variables == ()


def test_a_byte_order_mark_does_not_hide_the_front_matter(tmp_path: Path) -> None:
    path = tmp_path / "config" / "prompts" / "system.md"
    path.parent.mkdir(parents=True)
    path.write_bytes("\ufeff---\ndescription: core rules\n---\nBe nice.\n".encode())
    assert load_system_prompt(tmp_path) == "Be nice."
