"""The guard: how a tool call is judged against the learnings, and what the agent is told."""
