"""The renderers: what a table, a hand, a summary, the tally or a menu look like, as message content.

Functions from a table (or a snapshot, a record) to :class:`~bot.render.content.Content` (HTML text
and an inline keyboard), the tally's picture, and every word they use (:mod:`bot.render.words`,
:mod:`bot.render.labels`, from the catalogs in ``locales/`` through :mod:`bot.render.i18n`). They
send nothing: the Telegram adapter (:mod:`bot.tg`) and the live table (:mod:`bot.webapp`) do.

The rule: a module here may import :mod:`bot.table` (a button's payload and the codec that signs it,
the table's state) and python-telegram-bot's keyboard types, never :mod:`bot.tg`.
``tests/bot/test_layout_imports.py`` checks it.
"""
