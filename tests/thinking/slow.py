"""A test level that thinks slowly (so a worker can be killed mid-decision), then plays at random."""

from __future__ import annotations

import random
import time

from bot.engine.actions import Action
from bot.engine.ai.base import RandomPlayer
from bot.engine.view import SeatView


class SlowPlayer(RandomPlayer):
    name = "slow"

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        time.sleep(5.0)
        return super().decide(view, rng)


def slow() -> SlowPlayer:
    return SlowPlayer()
