"""The work a hook and a command share: session start, the push surface, the memory lifecycle."""
