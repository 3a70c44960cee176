"""A hand sent anew (a decision came due) whose decision is made before the message goes: it is not
sent. It used to go anyway, as the newest message of the chat, with "👉 Your turn" and the cards
marked ✅ for a decision already made, and a tap on such a card was refused ("must follow suit"):
most of the soak's alerts on a hand the simulated person had not tapped yet were of that kind.
"""

from __future__ import annotations

from bot.sandbox import Driver, SimUser
from bot.storage import Table
from bot.table import game
from bot.table.payloads import Act
from bot.tg.services import Services
from tests.bot.helpers import buttons, inject, start_game
from tests.bot.test_render_races import RETRY, push_held, quiet, sent_to


def offered_but_illegal(svc: Services, user: SimUser, table: Table, seat: int) -> list[str]:
    """The decisions the user's messages offer that the stored table would refuse."""
    deal = game.deal_of(table)
    assert deal is not None and table.match is not None
    legal = set(deal.legal_actions(seat)) if deal.to_act == seat else set()
    found = []
    for message in user.dm.bot_messages:
        for label, button, data in buttons(svc, message):
            what = svc.codec.read(data)[1]
            stale = button.deal_seq != table.match.deal_seq
            if isinstance(what, Act) and (stale or what.action not in legal):
                found.append(f"{message.message_id}: {label}")
    return found


async def test_a_hand_sent_anew_is_not_sent_once_its_decision_is_made(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    # The bots' moves brought Аня's decision due: her hand goes anew, and waits ("retry after").
    await push_held(driver, svc, [anya], anya)
    held = [c for c in driver.failed_calls() if c.chat_id == anya.id][-1]
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.match is not None
    deal = game.deal_of(table)
    assert deal is not None and deal.to_act == 0
    # She decides meanwhile, on the hand she has (a keyboard the other process sent, the live table).
    action = deal.legal_actions(0)[0]
    old = anya.dm.bot_messages[-1]
    inject(old, svc.codec.data(group.id, None, table.table_id, table.match.deal_seq, Act(action)))
    since = len(driver.calls())
    tap = await anya.tap(old, "👆")
    assert not tap.show_alert and not tap.answer_text, tap.answer_text
    await quiet(driver, svc, RETRY + 1)

    # The held hand, showing the decision she has made, never went.
    assert held.params.get("text") not in [c.params.get("text") for c in sent_to(driver, anya.id, since)]
    # Nothing in her chat offers a decision the bot would refuse now.
    stored = await svc.storage.load_table(group.id, None)
    assert stored is not None
    assert offered_but_illegal(svc, anya, stored, 0) == []
