"""Installation into Claude Code: settings, the push surface import, slash commands, MCP."""
