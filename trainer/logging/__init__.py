"""``self.log`` machinery: the per-hook rules, the result collection and the connector that fans values out."""
