"""The memory's pure domain (docs/guide/memories.md): records, ranking, similarity; its SQL is in store/, its
commands in cli/."""
