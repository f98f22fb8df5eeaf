"""What the front doors say to a person or the model: the human texts of the library's results,
the same from the CLI and from the MCP server, every stored text through the one sanitizer."""
