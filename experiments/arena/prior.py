"""Experiment: ``hard`` with a smaller head start for the rule player's card (0.1 penalty points per deal
instead of 0.3). With five times ``medium``'s worlds its means are tighter; the head start that keeps
``medium``'s noise from overruling sound craft may also hide what ``hard``'s precision finds."""

import dataclasses

import bot.engine.ai.search as S


def make() -> S.SearchPlayer:
    budget = dataclasses.replace(S.HARD, prior_bonus=0.1, prior_bonus_preset=())
    return S.SearchPlayer("hard-prior0.1", budget)
