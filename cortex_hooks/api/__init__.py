"""The library both front doors call: remember, recall, add a learning, consolidate, reflect …

Each function takes the databases it works on (api.databases.Databases) and typed values, runs
its transaction and returns records; an expected failure is a CortexError worded for a person
(the CLI prints it as its one stderr line, the MCP server as the tool's `isError` text). What a
call has to say beside its result goes into the `Notes` it is given (cortex_hooks.notes).
Neither front door calls the other: the CLI parses argv, calls, renders; the MCP server
validates its arguments, calls, renders. One module per group, imported only by the command
or tool that uses it (`recall` and `remember` never import pydantic).
"""
