"""pmucal-collect: the collector of pmucal runs (docs/collector.md)."""
