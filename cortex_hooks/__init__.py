"""cortex-hooks: Claude Code hooks that give a coding agent a memory of its own mistakes."""

__version__ = "0.1.0"
