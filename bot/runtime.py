"""The Python runtime tuned for a long-running bot process: its cyclic garbage collector.

CPython collects its youngest generation after every 700 net new container objects, and a move
makes hundreds of them (parsed updates and answers, keyboards, table documents), almost all freed by
reference counting at once. In the bot bench (``python -m bot.measure.bench --tables 30``) the collector
took about 0.8 ms of CPU per move, 7% of the bot's, and each full collection paused the event loop for
about 0.1 s of CPU (longer on a busy machine) while it walked every object of the process, the
~95,000 made at start (modules, python-telegram-bot's classes, the catalogs) included.

:func:`tune_gc`, called once the application is built: the objects made so far are frozen (never
walked again: they live as long as the process) and the youngest generation is collected every 20,000
net new objects instead. Cyclic garbage then waits a little longer; a few megabytes at most.
"""

from __future__ import annotations

import gc

#: Collection thresholds: net new objects before the youngest generation is collected, and how many
#: collections of each generation before the next older one is.
GC_THRESHOLDS = (20_000, 20, 20)


def tune_gc() -> None:
    """Freeze the objects made so far and collect less often (see the module docstring)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
