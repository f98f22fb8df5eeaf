"""Integrity by design: the guard's state kept out of the project's reach, checked at
every tool call, a weakening undone and told (store.keeper keeps the database's copy; this room
the files beside it and the check a hook runs)."""
