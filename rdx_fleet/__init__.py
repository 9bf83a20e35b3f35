"""rdx_fleet: many repositories indexed and served on Ray (issue 26).

``index_fleet`` runs one Ray task per repository and publishes each snapshot under
``STORE/<name>/<commit>``; ``Fleet`` keeps one Ray actor per repository holding its opened graph
and fans queries out to them; ``build_app`` is the HTTP JSON API in front of a ``Fleet``. Ray is
an optional extra (``pip install rdx[fleet]``): importing this package does not import Ray.
Like the other surfaces it uses only the names ``rdx`` exports (and ``rdx_mcp``'s tools).
"""

from rdx_fleet.manifest import Manifest, Repository, load_manifest
from rdx_fleet.store import Store, commit_of

__all__ = ["Manifest", "Repository", "Store", "commit_of", "load_manifest"]
