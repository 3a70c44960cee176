"""Ablation of the searched decisions before the first lead (:mod:`bot.engine.ai.preplay`,
:mod:`bot.engine.ai.bragsearch`): the same levels with those decisions taken by the rule player's
rules, as before they were searched.

``python -m bot.measure.arena --a medium --b experiments.arena.preplay:medium_rule --preset classic``
measures the searched exchange, ``--preset flip`` the searched swap (classic has no swap, flip no
exchange)."""

import dataclasses
import random

import bot.engine.ai.search as S
from bot.engine.actions import Action
from bot.engine.ai.easy import choose_other
from bot.engine.deal import Phase
from bot.engine.view import SeatView


def medium_rule() -> S.SearchPlayer:
    return S.SearchPlayer("medium-rule-preplay", dataclasses.replace(S.MEDIUM, preplay=()))


def hard_rule() -> S.SearchPlayer:
    return S.SearchPlayer("hard-rule-preplay", dataclasses.replace(S.HARD, preplay=()))


def medium_rule_declare() -> S.SearchPlayer:
    """``medium`` with only flip's declared trump by the rule (the swap still searched): the ablation of
    the declare search, ``--preset flip --option trump_mode=declare``."""
    budget = dataclasses.replace(S.MEDIUM, preplay=tuple(k for k in S.MEDIUM.preplay if k != "declare"))
    return S.SearchPlayer("medium-rule-declare", budget)


def _without(*kinds: str) -> S.Budget:
    return dataclasses.replace(S.MEDIUM, preplay=tuple(k for k in S.MEDIUM.preplay if k not in kinds))


def medium_rule_brag() -> S.SearchPlayer:
    """``medium`` with the cards laid in classic's brag by the rule (the rest searched): the ablation
    of the brag search, ``--preset classic``."""
    return S.SearchPlayer("medium-rule-brag", _without("brag"))


def medium_rule_cut() -> S.SearchPlayer:
    """``medium`` with the mirror's cut by the rule: ``--preset classic --option brag=mirror``."""
    return S.SearchPlayer("medium-rule-cut", _without("cut"))


def medium_brag_kind() -> S.SearchPlayer:
    """``medium`` searching the brag's kind under ``brag_choice`` too (the default takes it by the
    rule): ``--a experiments.arena.preplay:medium_brag_kind --b medium --preset classic --option
    'brag_choice=["pants","mirror","fishing"]'``."""
    return S.SearchPlayer(
        "medium-brag-kind", dataclasses.replace(S.MEDIUM, preplay=(*S.MEDIUM.preplay, "brag_kind"))
    )


def medium_lay() -> S.SearchPlayer:
    """``medium`` searching the others' face-up lays in the brag too (the default searches the
    bragger's only): ``--a experiments.arena.preplay:medium_lay --b medium --preset classic``."""
    return S.SearchPlayer("medium-lay", dataclasses.replace(S.MEDIUM, preplay=(*S.MEDIUM.preplay, "lay")))


def medium_rule_discard() -> S.SearchPlayer:
    """``medium`` with ``sochi``'s discard by the rule (:mod:`bot.engine.ai.discard`): the ablation of
    the discard search, ``python -m bot.measure.arena3 --a medium --b
    experiments.arena.preplay:medium_rule_discard``."""
    return S.SearchPlayer("medium-rule-discard", _without("discard"))


class _RuleForBlinds(S.SearchPlayer):
    """A search level that brags by the rule when it brags for a blind (its own brag still searched)."""

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        if view.phase is Phase.BRAG and view.seat in view.rules.blind_seats:
            return choose_other(view)
        return super().decide(view, rng)


def medium_rule_blind_brag() -> S.SearchPlayer:
    """``medium`` laying its blind's brag cards by the rule (``dummy``, ``two_dummies``): the ablation
    of the blind's searched brag, ``--a medium --b experiments.arena.preplay:medium_rule_blind_brag
    --preset two_dummies``."""
    return _RuleForBlinds("medium-rule-blind-brag", S.MEDIUM)
