"""SessionStart's resident moment (issue 40): the session's command-line recalls kept warm by a
process of their own (cortex_hooks.resident.server), started detached when semantic recall runs
the local model — the one whose loading makes a cold recall slow. The MCP server warms itself."""

from __future__ import annotations

import os
import sys

OFF = "CORTEX_RESIDENT"  # =off: no resident process is started or asked


def start(project: str, user: str, root: str, setting: str) -> bool:
    """Start the resident recall process of these databases, detached from the session (it
    exits at once when one already answers for them); whether one was started."""
    from cortex_hooks.embeddings.backend import chosen

    if os.environ.get(OFF) == "off" or setting == "off" or chosen(setting) != "local":
        return False
    if not os.path.exists(project):  # nothing to recall yet: the first cold recall is cheap
        return False
    import subprocess  # only when one is started: `recall` imports this module for OFF

    from cortex_hooks.boundary import child_environment

    try:
        subprocess.Popen(
            [sys.executable, "-m", "cortex_hooks.resident.server", project, user, root],
            env=child_environment(CLAUDE_PROJECT_DIR=root),
            cwd=root if os.path.isdir(root) else None,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:  # never costs the session its start
        return False
    return True
