"""The op lab (`tab=ops`)."""
