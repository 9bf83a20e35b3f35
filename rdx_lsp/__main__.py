"""``python -m rdx_lsp``: the language server over stdio."""

import sys

from rdx_lsp.app import main

sys.exit(main(sys.argv[1:]))
