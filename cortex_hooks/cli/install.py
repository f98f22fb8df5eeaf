"""CLI install / uninstall: wiring the hooks into Claude Code settings files (work in progress)."""

from __future__ import annotations

import argparse
from typing import Any


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    """Nothing registered yet."""
