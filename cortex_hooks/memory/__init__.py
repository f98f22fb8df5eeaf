"""The memory's pure domain (SPEC §9): records, ranking, similarity; its SQL is in store/, its
commands in cli/."""
