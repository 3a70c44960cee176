"""The table's application layer: what happens at a table, whoever asks for it.

Load a table, rebuild its deal, decide, save with one compare-and-set (:mod:`bot.table.usecase`);
the moves a person makes (:mod:`bot.table.moves`), turn timers and expiry (:mod:`bot.table.timers`),
the bot players (:mod:`bot.table.bots`), rotation and rematch; the typed payloads a button or the
live table's page carries and the codec that signs them (:mod:`bot.table.payloads`,
:mod:`bot.table.codec`). Telegram's bot and the live table's page are two front ends of it.

The rule: a module here imports the engine, storage, the thinking pool and this package, never
``telegram`` (python-telegram-bot), :mod:`bot.render` or :mod:`bot.tg`. What a change means to the
people at the table is shown by whatever the front ends hand it (:class:`bot.table.usecase.Tables`
gives each saved snapshot to a list of renderers; the timers speak through a small protocol).
``tests/bot/test_layout_imports.py`` checks it.
"""
