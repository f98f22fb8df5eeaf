"""The judge at work: the rules in force, read from the scopes and the environment, and
the answer Claude Code reads."""
