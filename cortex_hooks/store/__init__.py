"""The SQLite store: all SQL of cortex-hooks lives in this package (see store.connection)."""
