"""Project detection from the files present, on fixture trees (seed 001, 8.1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.project.detect import ProjectFacts, detect_project, project_summary

FIXTURES = Path(__file__).parent / "fixtures"


def test_node_typescript_project_reads_node_typescript_npm() -> None:
    facts = detect_project(FIXTURES / "node_ts")
    assert facts == ProjectFacts(
        project_types=("Node.js",),
        languages=("TypeScript",),
        frameworks=("Express", "Jest"),
        package_managers=("npm",),
        docker=True,
        ci=("GitHub Actions",),
    )
    assert (
        project_summary(facts)
        == "Node.js • TypeScript • Express • Jest • npm • Docker • GitHub Actions"
    )


def test_python_project_with_uv_lock_names_uv_and_its_frameworks() -> None:
    facts = detect_project(FIXTURES / "python_uv")
    assert facts.project_types == ("Python",)
    assert facts.languages == ("Python",)
    assert facts.frameworks == ("FastAPI", "Pydantic", "pytest")
    assert facts.package_managers == ("uv",)
    assert facts.docker is True
    assert facts.ci == ("GitLab CI",)


def test_summary_does_not_repeat_an_item_that_is_both_type_and_language() -> None:
    facts = detect_project(FIXTURES / "python_uv")
    assert (
        project_summary(facts) == "Python • FastAPI • Pydantic • pytest • uv • Docker • GitLab CI"
    )


def test_rust_project_reads_cargo_dependencies_and_jenkins() -> None:
    facts = detect_project(FIXTURES / "rust_cli")
    assert facts.project_types == ("Rust",)
    assert facts.languages == ("Rust",)
    assert facts.frameworks == ("Tokio",)
    assert facts.package_managers == ("cargo",)
    assert facts.docker is False
    assert facts.ci == ("Jenkins",)


def test_go_module_requirements_name_the_framework() -> None:
    facts = detect_project(FIXTURES / "go_service")
    assert facts.project_types == ("Go",)
    assert facts.frameworks == ("Gin",)
    assert facts.package_managers == ("go modules",)


def test_mixed_repository_lists_both_ecosystems_and_the_declared_package_manager() -> None:
    facts = detect_project(FIXTURES / "monorepo")
    assert facts.project_types == ("Node.js", "Python")
    assert set(facts.languages) == {"JavaScript", "Python"}
    assert facts.frameworks == ("React", "Flask")
    assert facts.package_managers == ("pnpm", "pip")
    assert facts.ci == ("Travis CI",)


def test_empty_directory_has_no_facts(tmp_path: Path) -> None:
    facts = detect_project(tmp_path)
    assert facts.empty
    assert project_summary(facts) == ""


def test_missing_directory_has_no_facts(tmp_path: Path) -> None:
    assert detect_project(tmp_path / "absent").empty


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", "\xff\xfe"])
def test_malformed_manifest_is_ignored_not_raised(tmp_path: Path, content: str) -> None:
    (tmp_path / "package.json").write_text(content, encoding="latin-1")
    (tmp_path / "pyproject.toml").write_text("[project\n", encoding="utf-8")
    facts = detect_project(tmp_path)
    assert facts.project_types == ("Node.js", "Python")
    assert facts.frameworks == ()


def test_dependency_and_cache_directories_are_not_counted_as_languages(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("X = 1\n")
    deps = tmp_path / "node_modules" / "lib"
    deps.mkdir(parents=True)
    for i in range(20):
        (deps / f"m{i}.js").write_text("x\n")
    assert detect_project(tmp_path).languages == ("Python",)


def test_a_language_with_a_small_share_of_files_is_left_out(tmp_path: Path) -> None:
    for i in range(20):
        (tmp_path / f"m{i}.py").write_text("X = 1\n")
    (tmp_path / "deploy.sh").write_text("echo hi\n")
    assert detect_project(tmp_path).languages == ("Python",)


def test_repeated_detection_is_served_from_the_cache(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"dependencies": {"express": "4"}}')
    first = detect_project(tmp_path)
    assert detect_project(tmp_path) is first


def test_a_changed_manifest_refreshes_the_cached_facts(tmp_path: Path) -> None:
    manifest = tmp_path / "package.json"
    manifest.write_text('{"dependencies": {"express": "4"}}')
    assert detect_project(tmp_path).frameworks == ("Express",)
    manifest.write_text('{"dependencies": {"express": "4", "react": "18"}}')
    assert detect_project(tmp_path).frameworks == ("React", "Express")


def test_a_new_root_entry_refreshes_the_language_count(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("A = 1\n")
    assert detect_project(tmp_path).languages == ("Python",)
    (tmp_path / "b.go").write_text("package b\n")
    assert detect_project(tmp_path).languages == ("Go", "Python")


def test_detection_without_the_cache_reads_the_tree_again(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("A = 1\n")
    assert detect_project(tmp_path, cache=False) is not detect_project(tmp_path, cache=False)
