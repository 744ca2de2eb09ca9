"""``python -m compile_profile.cli``: the ``compile-profile`` command."""

import sys

from . import main

sys.exit(main())
