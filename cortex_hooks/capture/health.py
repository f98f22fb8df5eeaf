"""What `doctor` says about capture: transcripts scanned only in part, the worker's last error."""

from __future__ import annotations

import os
import sqlite3

from cortex_hooks.store import proposals


def checks(connection: sqlite3.Connection) -> list[tuple[bool, str, str]]:
    """(ok, detail, fix) for each capture check."""
    found: list[tuple[bool, str, str]] = []
    behind = []
    for row in proposals.scans(connection):
        try:
            size = os.stat(row.transcript).st_size
        except OSError:
            continue  # the transcript is gone: nothing left to scan
        if size > row.offset:
            behind.append(f"session {row.session_id}: {size - row.offset:,} bytes of {row.transcript}")
    if behind:
        first = proposals.scans(connection)[0]
        found.append(
            (
                False,
                f"{len(behind)} transcript(s) scanned only in part: " + "; ".join(behind[:3]),
                "the background worker finishes them after the next session end, or run "
                f"`cortex-hooks capture --transcript {first.transcript} --session {first.session_id}`",
            )
        )
    notes = proposals.notes(connection)
    error = notes.get("worker_error")
    if error and error[0]:
        found.append(
            (
                False,
                f"the background worker's last error ({error[1]}): {error[0]}",
                "see the error; the next run retries",
            )
        )
    elif "worker_last_run" in notes or proposals.scans(connection):
        pending = len(proposals.listed(connection))
        found.append((True, f"{pending} proposal(s) await an answer (cortex-hooks proposals)", ""))
    return found
