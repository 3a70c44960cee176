"""``python -m bot.measure.soak``: many tables for minutes through two bot instances killed at random.

The emulator runs here; every bot instance is a process of its own (webhook mode) on one Redis, under
a key prefix of this run's own (deleted at the end), so a soak never touches real tables. Every update
is posted to every instance that is up, and again until one answers 200 (as Telegram delivers what
was not confirmed; an instance answers only once it has handled the update), and every
``--restart-every`` seconds one instance, picked at random, is killed with SIGKILL and started again.
With ``--workers N`` the bot players think in N worker processes (``BOT_THINKING=redis``), and every
``--kill-worker-every`` seconds one of them is killed with SIGKILL and a fresh one started.
On a Redis Cluster on this machine ``--kill-master-after S`` also kills (SIGKILL) the master of a
table's keys S seconds in (``make soak-failover``).

At each table one simulated person sits with three bot players and taps random legal decisions as
soon as their hand asks for one (and "one more match" when a match ends). At the end the instances are
stopped and every stored state is scanned: each table's match (every finished deal replayed, every
state on the way checked for card conservation, the match recounted) and every archived match; and
every move the bot acknowledged (answered without a word: saved) is looked up in the stored records.
Printed: deals finished, taps handled, the alerts among their answers by text (and those on a hand
the person had not tapped yet as it showed), move waits (p50/p95/max seconds from a person's first tap
on a decision to its acknowledgement), errors (lines logged at ERROR or above by any instance: must be 0),
invariant violations (states the scan finds broken, plus saves the storage refused as broken: must be
0) and acknowledged moves lost or doubled (not in the records, or there twice: must be 0), with the
restarts and what they cost (taps left unanswered), the workers killed, the jobs another worker took
over and the decisions no worker answered in time. The exit status is 1 unless all three are 0.

Modules: :mod:`bot.measure.soak.instances` (the bot and worker processes),
:mod:`bot.measure.soak.people` (the simulated people), :mod:`bot.measure.soak.check` (the checks at
the end), :mod:`bot.measure.soak.run` (the run and the command line).
"""

from bot.measure.soak.run import main, run

__all__ = ["main", "run"]
