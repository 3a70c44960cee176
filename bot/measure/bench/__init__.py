"""``python -m bot.measure.bench``: many tables at once through the real handlers, emulator and Redis.

Four simulated people sit at each table and play as fast as the bot lets them (the quickest players
there are). Two modes:

* inline (the default, :mod:`bot.measure.bench.players`): they tap random legal buttons of their DM hands (one
  whose card was taken waits for the hand to change). Reports the handling time of a move (median
  and p95, Telegram's network excluded): from the update being taken to the move saved and handed to
  the presenter, bot players and timers, and on to the presenter having queued the move's messages;
  Bot API calls per deal to the group and to the players' DMs, the most calls any group got within a
  minute, and the CPU seconds of the bot process.
* ``--miniapp`` (:mod:`bot.measure.bench.miniapp`): every seated person has the live table's page open (a
  real Server-Sent Events connection over loopback to the bot's own aiohttp server, ``--watchers N``
  more pages a table for people watching) and plays on it (taps posted to ``api/act``). Reports tap →
  every open page of the table updated (median, p95), Bot API calls per deal, the bot's memory per
  open connection (its RSS grown while the pages opened, over their number) and how many were open.

Both modes also report how soon the group's table message shows a card tapped
(:mod:`bot.measure.bench.group`: every card, and the cards that end a trick; median, p95, max), and
``--pace S`` has people think 0.5 to 1.5 S before each tap (0: none).

The bot runs in a process of its own (as in production, Telegram is elsewhere); ``--profile FILE``
writes its cProfile statistics (in CPU time) and prints the share of it each package's code took (the
bot's own, each library's, built-ins counted with their caller).

``--bots N --level L`` seats N bot players of level L at each table instead of the last N people
(they think as ``--thinking`` says: the bot's own ``processes`` — ``--workers`` of them, 0: one per
CPU —, its ``threads``, or ``redis``: jobs for ``--workers`` ``python -m bot.worker`` processes the
bench starts); it then also reports each bot decision's wait (queue and thought: median, p95, max),
decisions per second, and the CPU seconds of the thinking processes.
Redis: ``$REDIS_URL``, else an embedded one in a temporary folder.

Modules by role: :mod:`~bot.measure.bench.players` (the people of the inline mode and the lobby both
modes share), :mod:`~bot.measure.bench.miniapp` (the pages), :mod:`~bot.measure.bench.botside` (the
bot's process), :mod:`~bot.measure.bench.figures` (what is reported), :mod:`~bot.measure.bench.group`
(the group's table message followed), :mod:`~bot.measure.bench.run` (one
run), ``__main__`` (options).
"""
