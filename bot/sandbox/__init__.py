"""A local emulation of Telegram's Bot API: test harness and browser sandbox for the bot."""

from bot.sandbox.clock import Clock, FakeClock, SystemClock
from bot.sandbox.driver import Driver, SimChat, SimGroup, SimUser, TapResult, running_bot
from bot.sandbox.emulator import Emulator
from bot.sandbox.records import ApiCall, ApiError, EmulatorConfig, Fault, SandboxError, StoredMessage
from bot.sandbox.world import World

__all__ = [
    "ApiCall",
    "ApiError",
    "Clock",
    "Driver",
    "Emulator",
    "EmulatorConfig",
    "FakeClock",
    "Fault",
    "SandboxError",
    "SimChat",
    "SimGroup",
    "SimUser",
    "StoredMessage",
    "SystemClock",
    "TapResult",
    "World",
    "running_bot",
]
