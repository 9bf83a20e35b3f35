"""``python -m rdx_resident ARGS`` is the ``rdx`` command (see ``client.main``)."""

import sys

from rdx_resident.client import main

sys.exit(main())
