"""`python -m cortex_hooks`: the `cortex-hooks` command, for an environment whose scripts are not on PATH."""

import sys

from cortex_hooks.cli import main

if __name__ == "__main__":
    sys.exit(main())
