"""Standings and personal figures kept from the chats' finished matches (issue 22).

:mod:`bot.stats.entry` is a history entry's shape (the match record and who played it),
:mod:`bot.stats.facts` the figures one finished match adds (pure: from the record alone), and
``python -m bot.stats rebuild`` counts them all again from the stored history.
"""
