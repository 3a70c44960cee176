"""The bot's composition root: ``build_application`` wires the Telegram application together.

PLACEHOLDER — to be replaced by the real Kozel bot (a later issue). It only exists so that the
sandbox (``python -m bot``) and the emulator's end-to-end tests have a real application to run:
/start (echoes a deep-link payload), /help, and /demo in groups (a message with two inline buttons
whose taps edit that message). Keep the ``build_application`` signature when replacing it.
"""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ParseMode
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes, filters

DEMO_CHOICES = {"demo:trumps": "♣ Трефы — козыри", "demo:pass": "🤷 Пас"}


async def _start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Greet the user, echoing the deep-link payload if the bot was started through one."""
    if update.effective_message is None:
        return
    if context.args:
        text = f"Привет! Вы пришли по ссылке с кодом <code>{context.args[0]}</code>."
    else:
        text = "Привет! Я бот для игры в Козла. Добавьте меня в группу и наберите /demo."
    await update.effective_message.reply_text(text, parse_mode=ParseMode.HTML)


async def _help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """List the placeholder's commands."""
    if update.effective_message is None:
        return
    await update.effective_message.reply_text(
        "Команды (заглушка до настоящего бота):\n/start — начать\n/help — справка\n/demo — кнопки (в группе)"
    )


async def _demo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Post a message with two inline buttons in a group."""
    if update.effective_message is None:
        return
    keyboard = InlineKeyboardMarkup(
        [[InlineKeyboardButton(label, callback_data=data)] for data, label in DEMO_CHOICES.items()]
    )
    await update.effective_message.reply_text(
        "<b>Демо</b>: что объявляете?", parse_mode=ParseMode.HTML, reply_markup=keyboard
    )


async def _demo_private(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Explain that /demo is for groups."""
    if update.effective_message is not None:
        await update.effective_message.reply_text("Команда /demo работает в группе.")


async def _demo_tap(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Answer a demo button tap and edit the message to show who chose what."""
    query = update.callback_query
    if query is None or query.data not in DEMO_CHOICES:
        return
    await query.answer(f"Вы выбрали: {DEMO_CHOICES[query.data]}")
    who = query.from_user.first_name
    await query.edit_message_text(
        f"<b>Демо</b>: {who} выбирает «{DEMO_CHOICES[query.data]}».", parse_mode=ParseMode.HTML
    )


def build_application(
    token: str, *, base_url: str | None = None, base_file_url: str | None = None
) -> Application:  # type: ignore[type-arg]
    """Build the (placeholder) bot application, optionally against a non-Telegram Bot API server."""
    builder = Application.builder().token(token)
    if base_url is not None:
        builder = builder.base_url(base_url)
    if base_file_url is not None:
        builder = builder.base_file_url(base_file_url)
    application = builder.build()
    application.add_handler(CommandHandler("start", _start))
    application.add_handler(CommandHandler("help", _help))
    application.add_handler(CommandHandler("demo", _demo, filters=filters.ChatType.GROUPS))
    application.add_handler(CommandHandler("demo", _demo_private, filters=filters.ChatType.PRIVATE))
    application.add_handler(CallbackQueryHandler(_demo_tap, pattern=r"^demo:"))
    return application
