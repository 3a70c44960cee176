"""The live table: a Telegram Mini App served by the bot's own aiohttp application.

A second front end over the same table use case as the inline keyboards (``bot.table.usecase``):
a page opened from the group's table message or the DM hand, authenticated by Telegram's signed
``initData`` (:mod:`bot.webapp.initdata`), then by a short-lived session token bound to that user and
that table (:mod:`bot.table.links`, beside the use case that hands the links out). Each viewer is sent
only what their seat may see (:mod:`bot.webapp.payload`); every saved version of a table reaches the
open pages through Redis Pub/Sub (:mod:`bot.webapp.live`), whichever instance saved it. Nothing here imports
python-telegram-bot's update handling: a tap on the page is decoded by the same codec and applied
by the same use case as a tap on a button.
"""
