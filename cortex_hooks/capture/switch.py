"""Whether capture runs for a project: `[capture] enabled` in the project's config.toml, and in
the global database's (the user's switch for every project)."""

from __future__ import annotations

from cortex_hooks import location


def enabled(project_database: str) -> bool:
    if not location.config_for(project_database).capture:
        return False
    return location.config_for(location.global_database()).capture
