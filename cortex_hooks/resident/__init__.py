"""The resident recall process: semantic recall kept warm for a session's command-line
recalls. SessionStart starts it (api.resident); `cortex-hooks recall` asks it over a socket of
the user's own, and recalls cold when it is not there."""
