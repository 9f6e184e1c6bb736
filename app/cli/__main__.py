"""`python -m app.cli ...`, the same as the `llm-roofline` console script."""

import sys

from . import main

sys.exit(main())
