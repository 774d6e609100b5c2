"""Test setup for the LlamaIndex adapter.

- ``li_helpers`` (this folder) is made importable under ``--import-mode=importlib``.
- The adapter is imported from this checkout (``integrations/llamaindex``) even
  when an installed copy, or an editable install of another checkout, is on the
  path: ``llama_index`` is a namespace package, so the first path entry that holds
  ``llama_index/memory/discourse`` wins.
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_ADAPTER_ROOT = os.path.dirname(_HERE)
for _path in (_HERE, _ADAPTER_ROOT):
    if _path in sys.path:
        sys.path.remove(_path)
    sys.path.insert(0, _path)
