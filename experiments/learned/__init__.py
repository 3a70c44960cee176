"""The learned policy: self-play records, training, its checks (docs/bots.md, "The learned policy")."""
