"""The tables project detection reads: which files mean which project type, language,
framework, package manager, container setup and CI system.

Kept apart from the detector so adding an ecosystem is one line in a table, not a branch.
"""

from __future__ import annotations

__all__ = [
    "CI_FILES",
    "DOCKER_FILES",
    "EXTENSION_LANGUAGES",
    "FRAMEWORK_DEPENDENCIES",
    "LOCK_FILES",
    "MANIFEST_PACKAGE_MANAGERS",
    "PROJECT_MARKERS",
    "SKIPPED_DIRS",
]

PROJECT_MARKERS: tuple[tuple[str, str], ...] = (
    ("package.json", "Node.js"),
    ("deno.json", "Deno"),
    ("deno.jsonc", "Deno"),
    ("pyproject.toml", "Python"),
    ("setup.py", "Python"),
    ("setup.cfg", "Python"),
    ("requirements.txt", "Python"),
    ("Pipfile", "Python"),
    ("Cargo.toml", "Rust"),
    ("go.mod", "Go"),
    ("pom.xml", "Java"),
    ("build.gradle", "Java"),
    ("build.gradle.kts", "Kotlin"),
    ("Gemfile", "Ruby"),
    ("composer.json", "PHP"),
    ("mix.exs", "Elixir"),
    ("pubspec.yaml", "Dart"),
    ("Package.swift", "Swift"),
    ("CMakeLists.txt", "C/C++"),
    ("*.csproj", ".NET"),
    ("*.sln", ".NET"),
)
"""A file (or glob) at the project root, and the project type it marks, in display order."""

EXTENSION_LANGUAGES: dict[str, str] = {
    ".py": "Python",
    ".pyi": "Python",
    ".ts": "TypeScript",
    ".tsx": "TypeScript",
    ".mts": "TypeScript",
    ".cts": "TypeScript",
    ".js": "JavaScript",
    ".jsx": "JavaScript",
    ".mjs": "JavaScript",
    ".cjs": "JavaScript",
    ".go": "Go",
    ".rs": "Rust",
    ".java": "Java",
    ".kt": "Kotlin",
    ".kts": "Kotlin",
    ".scala": "Scala",
    ".rb": "Ruby",
    ".php": "PHP",
    ".cs": "C#",
    ".fs": "F#",
    ".c": "C",
    ".h": "C",
    ".cc": "C++",
    ".cpp": "C++",
    ".cxx": "C++",
    ".hpp": "C++",
    ".swift": "Swift",
    ".m": "Objective-C",
    ".ex": "Elixir",
    ".exs": "Elixir",
    ".erl": "Erlang",
    ".dart": "Dart",
    ".lua": "Lua",
    ".hs": "Haskell",
    ".clj": "Clojure",
    ".ml": "OCaml",
    ".jl": "Julia",
    ".zig": "Zig",
    ".r": "R",
    ".R": "R",
    ".sh": "Shell",
    ".bash": "Shell",
    ".vue": "Vue",
    ".svelte": "Svelte",
}
"""Source file extensions and the language each is written in."""

FRAMEWORK_DEPENDENCIES: dict[str, dict[str, str]] = {
    "npm": {
        "next": "Next.js",
        "react": "React",
        "vue": "Vue",
        "nuxt": "Nuxt",
        "@angular/core": "Angular",
        "svelte": "Svelte",
        "@sveltejs/kit": "SvelteKit",
        "solid-js": "Solid",
        "express": "Express",
        "fastify": "Fastify",
        "koa": "Koa",
        "@nestjs/core": "NestJS",
        "hono": "Hono",
        "electron": "Electron",
        "react-native": "React Native",
        "astro": "Astro",
        "vite": "Vite",
        "jest": "Jest",
        "vitest": "Vitest",
    },
    "python": {
        "django": "Django",
        "flask": "Flask",
        "fastapi": "FastAPI",
        "starlette": "Starlette",
        "tornado": "Tornado",
        "aiohttp": "aiohttp",
        "streamlit": "Streamlit",
        "pydantic": "Pydantic",
        "sqlalchemy": "SQLAlchemy",
        "click": "Click",
        "typer": "Typer",
        "pytest": "pytest",
        "torch": "PyTorch",
        "tensorflow": "TensorFlow",
    },
    "cargo": {
        "actix-web": "Actix Web",
        "axum": "Axum",
        "rocket": "Rocket",
        "tokio": "Tokio",
        "bevy": "Bevy",
        "tauri": "Tauri",
    },
    "go": {
        "github.com/gin-gonic/gin": "Gin",
        "github.com/labstack/echo": "Echo",
        "github.com/gofiber/fiber": "Fiber",
        "github.com/go-chi/chi": "chi",
        "github.com/spf13/cobra": "Cobra",
    },
    "ruby": {"rails": "Rails", "sinatra": "Sinatra", "rspec": "RSpec"},
    "php": {"laravel/framework": "Laravel", "symfony/framework-bundle": "Symfony"},
    "jvm": {
        "spring-boot": "Spring Boot",
        "quarkus": "Quarkus",
        "micronaut": "Micronaut",
        "junit": "JUnit",
    },
}
"""Per ecosystem: a dependency name (or name prefix for Go and JVM) and the framework it
means, in display order."""

LOCK_FILES: tuple[tuple[str, str], ...] = (
    ("pnpm-lock.yaml", "pnpm"),
    ("yarn.lock", "yarn"),
    ("bun.lockb", "bun"),
    ("bun.lock", "bun"),
    ("package-lock.json", "npm"),
    ("uv.lock", "uv"),
    ("poetry.lock", "poetry"),
    ("pdm.lock", "pdm"),
    ("Pipfile.lock", "pipenv"),
    ("Cargo.lock", "cargo"),
    ("go.sum", "go modules"),
    ("Gemfile.lock", "bundler"),
    ("composer.lock", "composer"),
)
"""Lock files and the package manager that writes them."""

MANIFEST_PACKAGE_MANAGERS: tuple[tuple[str, str], ...] = (
    ("package.json", "npm"),
    ("Pipfile", "pipenv"),
    ("pyproject.toml", "pip"),
    ("requirements.txt", "pip"),
    ("setup.py", "pip"),
    ("Cargo.toml", "cargo"),
    ("go.mod", "go modules"),
    ("Gemfile", "bundler"),
    ("composer.json", "composer"),
    ("pom.xml", "maven"),
    ("build.gradle", "gradle"),
    ("build.gradle.kts", "gradle"),
    ("mix.exs", "mix"),
    ("pubspec.yaml", "pub"),
)
"""The package manager a manifest implies when no lock file names a more specific one."""

DOCKER_FILES: tuple[str, ...] = (
    "Dockerfile",
    "Containerfile",
    "docker-compose.yml",
    "docker-compose.yaml",
    "compose.yml",
    "compose.yaml",
)
"""Files at the root that mean the project builds or runs in containers (``Dockerfile.*``
variants count too)."""

CI_FILES: tuple[tuple[str, str], ...] = (
    (".github/workflows", "GitHub Actions"),
    (".gitlab-ci.yml", "GitLab CI"),
    (".circleci/config.yml", "CircleCI"),
    ("Jenkinsfile", "Jenkins"),
    (".travis.yml", "Travis CI"),
    ("azure-pipelines.yml", "Azure Pipelines"),
    ("bitbucket-pipelines.yml", "Bitbucket Pipelines"),
    (".drone.yml", "Drone"),
    (".buildkite", "Buildkite"),
    (".woodpecker.yml", "Woodpecker"),
    (".woodpecker", "Woodpecker"),
)
"""A path at the root and the CI system it configures."""

SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "env",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "dist",
        "build",
        "target",
        "vendor",
        "out",
        "coverage",
        ".next",
        ".nuxt",
        "site-packages",
    }
)
"""Directories the language count never enters (dependencies, caches, build output)."""
