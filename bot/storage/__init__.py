"""Redis storage for table state, timers and stats (see the bot issue)."""
