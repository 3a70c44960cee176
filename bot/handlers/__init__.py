"""python-telegram-bot handlers: decode an update, call the engine, save, render."""
