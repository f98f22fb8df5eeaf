"""Session transcripts read once, one way: the bounded reading of the bytes (source), any agent's
records in Claude Code's shape (formats), the tool calls with their results (calls) and the
session's summary (summary), for the hooks, capture and replay."""
