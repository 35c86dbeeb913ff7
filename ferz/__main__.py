"""`python -m ferz`: the same as the `ferz` command."""

import sys

from .commands import main

sys.exit(main())
