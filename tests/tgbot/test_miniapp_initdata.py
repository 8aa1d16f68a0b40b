"""initData is checked exactly as Telegram documents it ("Validating data received via
the Mini App"): the vectors here are built step by step from that text, not with the code
under test."""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import quote, urlencode

import pytest

from tgbot.miniapp.initdata import MAX_AGE, InvalidInitData, validate

TOKEN = "5768337691:AAH5YkoiEuPk8-FZa32hStHTqXiLPtAEhx8"
AUTH_DATE = 1_733_584_787
USER = (
    '{"id":279058397,"first_name":"Vladislav + - ? \\/","last_name":"Kibenko",'
    '"username":"vdkfrost","language_code":"ru","is_premium":true,"allows_write_to_pm":true}'
)


def documented_hash(check_string: str, token: str = TOKEN) -> str:
    """secret_key = HMAC_SHA256(<bot_token>, "WebAppData"); hex(HMAC_SHA256(data_check_string,
    secret_key)) — in the docs' notation HMAC_SHA256(message, key)."""
    secret_key = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    return hmac.new(secret_key, check_string.encode(), hashlib.sha256).hexdigest()


def telegram_init_data(auth_date: int = AUTH_DATE, token: str = TOKEN) -> str:
    """initData as Telegram sends it: URL-encoded fields in its own order, the hash over
    the data-check-string of every field but ``hash``, sorted, values decoded."""
    check_string = (
        f"auth_date={auth_date}\n"
        "chat_instance=-9019384823891234\n"
        "chat_type=supergroup\n"
        "signature=6fbdaab833d39f54518bd5c3eb3f511d035e68cb\n"
        "start_param=gAbc123\n"
        f"user={USER}"
    )
    fields = {
        "user": USER,
        "chat_instance": "-9019384823891234",
        "chat_type": "supergroup",
        "start_param": "gAbc123",
        "auth_date": str(auth_date),
        "signature": "6fbdaab833d39f54518bd5c3eb3f511d035e68cb",
        "hash": documented_hash(check_string, token),
    }
    return urlencode(fields, quote_via=quote)


def test_telegrams_init_data_is_accepted_with_who_opened_it_and_the_game() -> None:
    checked = validate(telegram_init_data(), TOKEN, now=AUTH_DATE + 60)
    assert checked.user.id == 279058397
    assert checked.user.name == "Vladislav + - ? / Kibenko"
    assert checked.user.language_code == "ru"
    assert checked.start_param == "gAbc123"
    assert checked.chat_type == "supergroup"


def test_init_data_signed_for_another_bot_is_refused_as_forged() -> None:
    raw = telegram_init_data(token="1111:another-bots-token")
    with pytest.raises(InvalidInitData) as refused:
        validate(raw, TOKEN, now=AUTH_DATE)
    assert refused.value.reason == "forged"


@pytest.mark.parametrize(
    "change",
    [
        ("%22id%22%3A279058397", "%22id%22%3A279058398"),  # another user
        ("start_param=gAbc123", "start_param=gOther99"),  # another game
        (f"auth_date={AUTH_DATE}", f"auth_date={AUTH_DATE + 86_400}"),  # made younger
    ],
)
def test_any_field_changed_after_signing_is_refused_as_forged(change: tuple[str, str]) -> None:
    raw = telegram_init_data()
    assert change[0] in raw
    with pytest.raises(InvalidInitData) as refused:
        validate(raw.replace(*change), TOKEN, now=AUTH_DATE)
    assert refused.value.reason == "forged"


def test_a_field_added_after_signing_is_refused_as_forged() -> None:
    with pytest.raises(InvalidInitData) as refused:
        validate(telegram_init_data() + "&query_id=AAF", TOKEN, now=AUTH_DATE)
    assert refused.value.reason == "forged"


def test_init_data_older_than_a_day_is_refused_as_expired() -> None:
    raw = telegram_init_data()
    assert validate(raw, TOKEN, now=AUTH_DATE + MAX_AGE).user.id == 279058397
    with pytest.raises(InvalidInitData) as refused:
        validate(raw, TOKEN, now=AUTH_DATE + MAX_AGE + 1)
    assert refused.value.reason == "expired"


def test_init_data_dated_in_the_future_is_refused_as_expired() -> None:
    with pytest.raises(InvalidInitData) as refused:
        validate(telegram_init_data(), TOKEN, now=AUTH_DATE - 3600)
    assert refused.value.reason == "expired"


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("", "missing"),
        ("user=%7B%7D&auth_date=1", "malformed"),  # no hash
        ("hash=ab&hash=cd&auth_date=1", "malformed"),  # a field twice
        ("not a query string", "malformed"),
        ("x" * 10_000, "malformed"),
    ],
)
def test_what_is_not_init_data_at_all_is_refused(raw: str, reason: str) -> None:
    with pytest.raises(InvalidInitData) as refused:
        validate(raw, TOKEN, now=AUTH_DATE)
    assert refused.value.reason == reason


def test_signed_init_data_without_a_user_is_refused() -> None:
    check_string = f"auth_date={AUTH_DATE}\nchat_type=sender"
    raw = urlencode(
        {"auth_date": AUTH_DATE, "chat_type": "sender", "hash": documented_hash(check_string)}
    )
    with pytest.raises(InvalidInitData) as refused:
        validate(raw, TOKEN, now=AUTH_DATE)
    assert refused.value.reason == "malformed"
