"""Helpers with no page of their own: the translations and CSS-safe trace uids."""
