"""The MCP front door (SPEC §11): a stdio JSON-RPC server whose tools run the CLI's own commands."""
