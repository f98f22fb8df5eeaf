"""Which shipped packs fit a project, from the files it holds: a Dockerfile for
`containers`, Kubernetes manifests or a chart for `kubernetes`, `*.tf` for `infrastructure`, a
publishable package.json or pyproject.toml for `publishing` … `install` and `doctor` name them
with the command that enables them; nothing is enabled by this (`core` stays the default).

Bounded: the project's top three levels, at most MAX_ENTRIES entries, the first MAX_READ bytes of
the few files whose contents decide; dependency and tool folders are not entered. Never raises."""

from __future__ import annotations

import os
import re

MAX_DEPTH = 3
MAX_ENTRIES = 3_000
MAX_READ = 64 * 1024
SKIPPED = frozenset(
    {".git", "node_modules", ".venv", "venv", "vendor", "__pycache__", ".cortex", ".terraform", "dist",
     "build", "target", ".tox", ".mypy_cache", ".pytest_cache", "site-packages", ".next"}
)  # fmt: skip
_BY_NAME = {  # a file's name: the pack it points to, and what to say
    "Dockerfile": ("containers", "a Dockerfile"),
    "Containerfile": ("containers", "a Containerfile"),
    "docker-compose.yml": ("containers", "a compose file"),
    "docker-compose.yaml": ("containers", "a compose file"),
    "compose.yml": ("containers", "a compose file"),
    "compose.yaml": ("containers", "a compose file"),
    "Chart.yaml": ("kubernetes", "a Helm chart"),
    "kustomization.yaml": ("kubernetes", "a kustomization"),
    "kustomization.yml": ("kubernetes", "a kustomization"),
    "helmfile.yaml": ("kubernetes", "a helmfile"),
    "terragrunt.hcl": ("infrastructure", "terragrunt.hcl"),
    "Pulumi.yaml": ("infrastructure", "Pulumi.yaml"),
    "cdk.json": ("infrastructure", "cdk.json"),
    "samconfig.toml": ("infrastructure", "samconfig.toml"),
    "serverless.yml": ("infrastructure", "serverless.yml"),
    "schema.prisma": ("databases", "a Prisma schema"),
    "alembic.ini": ("databases", "alembic.ini"),
    "manage.py": ("databases", "a Django manage.py"),
    "fly.toml": ("cloud", "fly.toml"),
    "vercel.json": ("cloud", "vercel.json"),
    "firebase.json": ("cloud", "firebase.json"),
    "cloudbuild.yaml": ("cloud", "cloudbuild.yaml"),
}
_BY_SUFFIX = {
    ".dockerfile": ("containers", "a Dockerfile"),
    ".tf": ("infrastructure", "*.tf files"),
    ".tofu": ("infrastructure", "*.tofu files"),
    ".bicep": ("cloud", "*.bicep files"),
    ".sql": ("databases", "*.sql files"),
    ".gemspec": ("publishing", "a gemspec"),
}
_MANIFEST = re.compile(r"^apiVersion:\s*\S+.*^kind:\s*\S+|^kind:\s*\S+.*^apiVersion:\s*\S+", re.M | re.S)
_CLOUD_PROVIDER = re.compile(r'provider\s+"(?:aws|google|azurerm)"')


def fitting(root: str) -> list[tuple[str, str]]:
    """The packs that fit the project at `root`, each with what was seen (sorted by pack)."""
    found: dict[str, str] = {}
    try:
        for path in _files(root):
            for pack, seen in _signs(path):
                found.setdefault(pack, seen)
    except (OSError, ValueError, RecursionError):
        pass
    return sorted(found.items())


def _files(root: str) -> list[str]:
    """The project's files to its top MAX_DEPTH levels, at most MAX_ENTRIES entries looked at."""
    found: list[str] = []
    folders, seen = [(root, 0)], 0
    while folders and seen < MAX_ENTRIES:
        folder, depth = folders.pop(0)
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_ENTRIES:
                break
            if entry.is_dir(follow_symlinks=False):
                if depth + 1 < MAX_DEPTH and entry.name not in SKIPPED and not entry.name.startswith("."):
                    folders.append((entry.path, depth + 1))
            elif entry.is_file(follow_symlinks=False):
                found.append(entry.path)
    return found


def _signs(path: str) -> list[tuple[str, str]]:
    """What one file says of the packs that fit."""
    name = os.path.basename(path)
    signs = []
    if name in _BY_NAME:
        signs.append(_BY_NAME[name])
    suffix = os.path.splitext(name)[1]
    if suffix in _BY_SUFFIX:
        signs.append(_BY_SUFFIX[suffix])
    if suffix == ".tf" and _CLOUD_PROVIDER.search(_head(path)):
        signs.append(("cloud", "a cloud provider in *.tf"))
    if suffix in (".yaml", ".yml") and name not in _BY_NAME and _MANIFEST.search(_head(path)):
        signs.append(("kubernetes", "Kubernetes manifests"))
    if name in ("package.json", "pyproject.toml", "Cargo.toml", "setup.py", "pubspec.yaml"):
        publishable = _publishable(name, _head(path))
        if publishable:
            signs.append(("publishing", publishable))
    return signs


def _publishable(name: str, text: str) -> str | None:
    """Whether a package's manifest describes a package that can be published, and which."""
    if name == "package.json":
        private = re.search(r'"private"\s*:\s*true', text)
        named = re.search(r'"name"\s*:', text) and re.search(r'"version"\s*:', text)
        return "a publishable package.json" if named and not private else None
    if name == "pyproject.toml":
        return (
            "a publishable pyproject.toml" if re.search(r"(?m)^\[(?:project|tool\.poetry)\]", text) else None
        )
    if name == "Cargo.toml":
        private = re.search(r"(?m)^publish\s*=\s*false", text)
        return "a publishable Cargo.toml" if re.search(r"(?m)^\[package\]", text) and not private else None
    if name == "pubspec.yaml":
        return None if re.search(r"(?m)^publish_to:\s*['\"]?none", text) else "a pubspec.yaml"
    return "a setup.py"


def _head(path: str) -> str:
    try:
        with open(path, "rb") as stream:
            return stream.read(MAX_READ).decode("utf-8", "replace")
    except OSError:
        return ""


def suggestion(fits: list[tuple[str, str]], enabled: set[str] | frozenset[str] = frozenset()) -> str | None:
    """The one line install and doctor say of the packs that fit and are not enabled, or None."""
    left = [(pack, seen) for pack, seen in fits if pack not in enabled]
    if not left:
        return None
    named = ", ".join(f"{pack} ({seen})" for pack, seen in left)
    commands = " && ".join(f"cortex-hooks packs enable {pack}" for pack, _ in left)
    return f"Packs that fit this project, not enabled: {named}; enable them with: {commands}"
