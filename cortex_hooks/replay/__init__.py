"""Replay: the guard's decision run, read only, over the tool calls of past transcripts."""
