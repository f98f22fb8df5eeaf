"""The built-in protection (docs/guide/selfguard.md): the agent's own calls that would switch
its guard off or weaken it."""
