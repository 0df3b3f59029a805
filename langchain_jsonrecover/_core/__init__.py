"""The pure core: find, decode, repair, validate; no LangChain import."""
