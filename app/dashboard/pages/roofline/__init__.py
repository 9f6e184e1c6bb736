"""The inference roofline (the default tab)."""
