"""The rules of Kozel, pure: no I/O, no Telegram, no Redis, no global ``random``.

Randomness is passed in (an ``random.Random`` or an explicit deck), so every deal replays from its
record (:mod:`bot.engine.record`).
"""

from bot.engine.actions import (
    Action,
    Brag,
    ChooseBragKind,
    Cut,
    Declare,
    Discard,
    Exchange,
    ExchangeGive,
    Play,
    Swap,
    SwapReturn,
)
from bot.engine.brag import CUT_NAMES, cut_points
from bot.engine.cards import ALL_CARDS, Card, Rank, Suit, card, cards, deck_for
from bot.engine.deal import N_SEATS, PAIR_OF, PARTNER_OF, Deal, DealResult, Phase, Trick
from bot.engine.errors import KozelError, RecordError, RulesError
from bot.engine.match import GOAT, GOAT_WITH_DRIVERS, Match
from bot.engine.order import Tables, tables_for
from bot.engine.record import deal_result, match_result, replay_deal, result_of
from bot.engine.refusal import IllegalMoveError
from bot.engine.rules import BragKind, JackOrder, Rules, TrumpMode
from bot.engine.view import SeatView, view_for

__all__ = [
    "ALL_CARDS",
    "CUT_NAMES",
    "GOAT",
    "GOAT_WITH_DRIVERS",
    "N_SEATS",
    "PAIR_OF",
    "PARTNER_OF",
    "Action",
    "Brag",
    "BragKind",
    "Card",
    "ChooseBragKind",
    "Cut",
    "Deal",
    "DealResult",
    "Declare",
    "Discard",
    "Exchange",
    "ExchangeGive",
    "IllegalMoveError",
    "JackOrder",
    "KozelError",
    "Match",
    "Phase",
    "Play",
    "Rank",
    "RecordError",
    "Rules",
    "RulesError",
    "SeatView",
    "Suit",
    "Swap",
    "SwapReturn",
    "Tables",
    "Trick",
    "TrumpMode",
    "card",
    "cards",
    "cut_points",
    "deal_result",
    "deck_for",
    "match_result",
    "replay_deal",
    "result_of",
    "tables_for",
    "view_for",
]
