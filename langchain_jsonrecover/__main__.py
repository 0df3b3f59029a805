"""``python -m langchain_jsonrecover``: the ``jsonrecover`` command."""

from langchain_jsonrecover.cli import main

raise SystemExit(main())
