"""The exclusions a user expects without writing them: dependencies, build output, lock files.

Two lists, both in gitignore syntax: :data:`DEFAULT_EXCLUDES` apply to every file, and
:data:`UNTRACKED_DEFAULT_EXCLUDES` (build output and tool caches, whose folder names such as
``build/``, ``out/`` or ``coverage/`` are also ordinary source folder names) apply, inside a
git work tree, only to files git does not track: a tracked ``pkg/build/steps.py`` is source
someone committed, an untracked ``build/lib/x.py`` is output. Outside git both apply to all.
``dist/`` stays in the first list: a committed ``dist/`` holds bundles, not source.
"""

from __future__ import annotations

__all__ = [
    "BINARY_SUFFIXES",
    "DEFAULT_EXCLUDES",
    "GENERATED_EXCLUDES",
    "GENERATED_SOURCE",
    "UNTRACKED_DEFAULT_EXCLUDES",
]

DEFAULT_EXCLUDES: tuple[str, ...] = (
    # version control and tool state
    ".git/",
    ".hg/",
    ".svn/",
    ".agentprompt/cache/",
    # dependencies and virtual environments
    "node_modules/",
    "bower_components/",
    "jspm_packages/",
    ".venv/",
    "venv/",
    ".pnpm-store/",
    "vendor/bundle/",
    # build output that is build output even when committed (bundles shipped in the repository)
    "dist/",
    # lock files
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
    "poetry.lock",
    "Pipfile.lock",
    "pdm.lock",
    "uv.lock",
    "Cargo.lock",
    "composer.lock",
    "Gemfile.lock",
    "go.sum",
    "flake.lock",
    "mix.lock",
    "pubspec.lock",
    "Podfile.lock",
    "packages.lock.json",
    # compiled files
    "*.pyc",
    "*.pyo",
    # operating-system litter
    ".DS_Store",
    "Thumbs.db",
)
"""Patterns left out of every listing (tracked or not); see the README."""

GENERATED_EXCLUDES: tuple[str, ...] = (
    "*.min.*",
    "*.map",
    "*_pb2.py",
    "*_pb2_grpc.py",
    "*.pb.go",
)
"""Names of minified and generated files: left out with the default exclusions unless
generated files are asked for (the files whose content shows it are found by
:mod:`agentprompt.repo.discovery._sniff`)."""

GENERATED_SOURCE = "default exclusion of generated files"
"""How a rule of :data:`GENERATED_EXCLUDES` is named in an exclusion's reason."""

UNTRACKED_DEFAULT_EXCLUDES: tuple[str, ...] = (
    # caches
    "__pycache__/",
    ".tox/",
    ".nox/",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    ".hypothesis/",
    ".cache/",
    ".parcel-cache/",
    ".gradle/",
    ".terraform/",
    ".eggs/",
    "*.egg-info/",
    # build output
    "build/",
    "target/",
    "out/",
    ".next/",
    ".nuxt/",
    ".svelte-kit/",
    "coverage/",
    "htmlcov/",
    ".coverage",
)
"""Build output and tool caches: left out when git does not track them (always outside git)."""


BINARY_SUFFIXES: frozenset[str] = frozenset(
    [
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".bmp",
        ".ico",
        ".icns",
        ".webp",
        ".tif",
        ".tiff",
        ".psd",
        ".avif",
        ".heic",
        ".pdf",
        ".doc",
        ".docx",
        ".xls",
        ".xlsx",
        ".ppt",
        ".pptx",
        ".odt",
        ".ods",
        ".zip",
        ".gz",
        ".tgz",
        ".bz2",
        ".xz",
        ".zst",
        ".7z",
        ".rar",
        ".tar",
        ".jar",
        ".war",
        ".whl",
        ".egg",
        ".deb",
        ".rpm",
        ".dmg",
        ".iso",
        ".exe",
        ".dll",
        ".so",
        ".dylib",
        ".o",
        ".a",
        ".lib",
        ".obj",
        ".class",
        ".pyd",
        ".wasm",
        ".bin",
        ".dat",
        ".woff",
        ".woff2",
        ".ttf",
        ".otf",
        ".eot",
        ".mp3",
        ".mp4",
        ".m4a",
        ".wav",
        ".ogg",
        ".flac",
        ".avi",
        ".mov",
        ".mkv",
        ".webm",
        ".sqlite",
        ".sqlite3",
        ".db",
        ".pkl",
        ".pickle",
        ".npy",
        ".npz",
        ".parquet",
        ".h5",
        ".hdf5",
        ".fits",
        ".fit",
        ".fts",
        ".fz",
        ".onnx",
        ".pt",
        ".safetensors",
    ]
)
"""File name suffixes known to hold binary data: left out without reading the file."""
