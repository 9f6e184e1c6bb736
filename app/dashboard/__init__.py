"""The Dash dashboard: layout, URL state, figures and thin callbacks over the engine."""
