"""The judge at work (SPEC §20): the rules in force, read from the scopes and the environment, and
the answer Claude Code reads."""
