"""memrel advise's report page (docs/advise.md)."""
