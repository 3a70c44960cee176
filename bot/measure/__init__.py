"""The measuring tools: they drive the product from outside and print figures; the product never
imports them.

* ``python -m bot.measure.engine_bench`` — the engine's speed: random legal deals per second, the
  solver's time.
* ``python -m bot.measure.arena`` / ``arena3`` — duplicate tournaments between bot levels (pairs;
  three seats).
* ``python -m bot.measure.soak`` — many tables through bot instances and workers killed at random.
* ``python -m bot.measure.bench`` — the bot as a whole: tables of people and bot players through the
  emulated Bot API (calls per deal, move latency, CPU per move), inline and on the live table.

Rule (``tests/test_structure.py``): no module outside this package imports it.
"""
