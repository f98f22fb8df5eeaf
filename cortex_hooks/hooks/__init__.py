"""The three hook entry points, each a few lines on the one pipeline (hooks.pipeline)."""
