"""The live table's authentication: Telegram's initData check, signed links and session tokens."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.table.links import LinkError, TableLink, Tokens
from bot.webapp.initdata import InitDataError, check_init_data, sign_init_data

TOKEN = "123456:TEST-token"
NOW = 1_800_000_000.0
USER = json.dumps({"id": 42, "first_name": "Аня", "language_code": "ru"}, ensure_ascii=False)


def signed(**extra: str) -> str:
    return sign_init_data(TOKEN, {"auth_date": str(int(NOW) - 10), "user": USER, **extra})


def test_init_data_signed_with_the_bot_token_names_its_user() -> None:
    user = check_init_data(signed(start_param="abc"), TOKEN, now=NOW, max_age=3600)
    assert (user.user_id, user.first_name, user.language_code, user.start_param) == (42, "Аня", "ru", "abc")


def test_init_data_checked_on_the_values_as_received() -> None:
    # photo_url with escaped slashes: the hash covers the JSON exactly as sent, never re-serialised.
    user = '{"id":7,"first_name":"B","photo_url":"https:\\/\\/t.me\\/i\\/userpic\\/320\\/x.jpg"}'
    raw = sign_init_data(TOKEN, {"auth_date": str(int(NOW)), "user": user})
    assert check_init_data(raw, TOKEN, now=NOW, max_age=60).user_id == 7


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("", "length"),
        ("x" * 5000, "length"),
        ("a=1&a=2", "repeated field"),
        ("user=%7B%7D&auth_date=1&hash=00", "signature"),
    ],
)
def test_init_data_refused_when_malformed_or_forged(raw: str, reason: str) -> None:
    with pytest.raises(InitDataError) as e:
        check_init_data(raw, TOKEN, now=NOW, max_age=3600)
    assert e.value.reason == reason


def test_init_data_signed_with_another_token_is_refused() -> None:
    raw = sign_init_data("999:OTHER", {"auth_date": str(int(NOW)), "user": USER})
    with pytest.raises(InitDataError, match="signature"):
        check_init_data(raw, TOKEN, now=NOW, max_age=3600)


def test_init_data_with_a_field_changed_is_refused() -> None:
    raw = signed().replace("42", "43")
    with pytest.raises(InitDataError, match="signature"):
        check_init_data(raw, TOKEN, now=NOW, max_age=3600)


def test_init_data_older_than_max_age_is_refused() -> None:
    with pytest.raises(InitDataError, match="expired"):
        check_init_data(signed(), TOKEN, now=NOW + 7200, max_age=3600)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=300))
def test_init_data_any_string_is_refused_cleanly(raw: str) -> None:
    with pytest.raises(InitDataError):
        check_init_data(raw, TOKEN, now=NOW, max_age=3600)


def test_start_param_round_trips_and_stays_in_telegrams_alphabet() -> None:
    tokens = Tokens(TOKEN)
    for link in (TableLink(-1001234567890, None, "a1b2c3"), TableLink(5, 77, "ffffff")):
        param = tokens.start_param(link)
        assert len(param) <= 64 and all(c.isalnum() or c in "_-" for c in param)
        assert tokens.read_start_param(param) == link


def test_start_param_forged_or_for_another_bot_is_refused() -> None:
    param = Tokens(TOKEN).start_param(TableLink(-100, None, "abcdef"))
    with pytest.raises(LinkError, match="forged"):
        Tokens("other:token").read_start_param(param)
    with pytest.raises(LinkError, match="forged"):
        Tokens(TOKEN).read_start_param(param.replace("abcdef", "abcdee"))


def test_session_token_binds_user_and_table_until_it_expires() -> None:
    tokens = Tokens(TOKEN)
    link = TableLink(-100, 3, "abcdef")
    token = tokens.issue(42, link, now=NOW)
    session = tokens.check(token, now=NOW + 10)
    assert (session.user_id, session.link) == (42, link)
    with pytest.raises(LinkError, match="expired"):
        tokens.check(token, now=NOW + 3601)
    with pytest.raises(LinkError, match="forged"):
        Tokens("other:token").check(token, now=NOW)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=120))
def test_any_string_as_a_token_or_link_is_refused_cleanly(text: str) -> None:
    tokens = Tokens(TOKEN)
    with pytest.raises(LinkError):
        tokens.check(text, now=NOW)
    with pytest.raises(LinkError):
        tokens.read_start_param(text)
