"""Which rows a listing shows: archiving hides a row from everything but `--archived` / `--all`."""

from __future__ import annotations

WHERE = {
    "active": "archived_at IS NULL",
    "archived": "archived_at IS NOT NULL",
    "all": "1",
}
