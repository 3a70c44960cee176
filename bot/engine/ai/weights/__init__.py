"""The learned policy's packaged weights (see README.md here)."""
