"""`python -m ferz`: the same as the `ferz` command."""

import sys

from .cli import main

sys.exit(main())
