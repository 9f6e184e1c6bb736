"""The training lab (`tab=training`)."""
