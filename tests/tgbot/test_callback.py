"""Callback data survives a round trip in 64 bytes, and nothing else is accepted."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infra.settings import load_settings
from tgbot.presenter.callback import (
    MAX_COORD,
    MAX_PLAYER,
    MAX_SMALL,
    MAX_VERSION,
    TOOLS,
    BadCallback,
    CallbackData,
    decode,
    encode,
    key_from_token,
    keys_from_secrets,
    peek,
)

KEY = key_from_token("123456:TEST")
OTHER_KEY = key_from_token("654321:OTHER")

small = st.none() | st.integers(0, MAX_SMALL)
callback_data = st.builds(
    CallbackData,
    action=st.from_regex(r"[a-z0-9_]{1,3}", fullmatch=True),
    game=st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True),
    version=st.integers(0, MAX_VERSION),
    card=small,
    cell=st.none()
    | st.tuples(st.integers(-MAX_COORD, MAX_COORD), st.integers(-MAX_COORD, MAX_COORD)),
    rotated=st.booleans(),
    player=st.none() | st.integers(-MAX_PLAYER, MAX_PLAYER),
    tool=st.none() | st.sampled_from(TOOLS),
    page=small,
    value=small,
)


@given(callback_data)
def test_every_valid_callback_round_trips_within_64_bytes(data: CallbackData) -> None:
    raw = encode(data, KEY)
    assert len(raw.encode()) <= 64
    assert decode(raw, KEY) == data


def test_the_largest_callback_still_fits() -> None:
    data = CallbackData(
        "abc",
        "g" * 12,
        MAX_VERSION,
        card=MAX_SMALL,
        cell=(-MAX_COORD, MAX_COORD),
        rotated=True,
        player=-MAX_PLAYER,
        tool="lantern",
        page=MAX_SMALL,
        value=MAX_SMALL,
    )
    assert len(encode(data, KEY)) <= 64
    assert decode(encode(data, KEY), KEY) == data


@given(st.text(max_size=80))
def test_random_text_is_refused(garbage: str) -> None:
    with pytest.raises(BadCallback):
        decode(garbage, KEY)


@given(st.binary(min_size=1, max_size=48))
def test_random_base64_is_refused(blob: bytes) -> None:
    with pytest.raises(BadCallback):
        decode(base64.urlsafe_b64encode(blob).rstrip(b"=").decode(), KEY)


@given(callback_data, st.data())
def test_any_changed_character_is_refused(data: CallbackData, draw: st.DataObject) -> None:
    raw = encode(data, KEY)
    index = draw.draw(st.integers(0, len(raw) - 1))
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    replacement = draw.draw(st.sampled_from(alphabet).filter(lambda c: c != raw[index]))
    with pytest.raises(BadCallback):
        decode(raw[:index] + replacement + raw[index + 1 :], KEY)


@given(callback_data)
def test_data_signed_with_another_key_is_refused(data: CallbackData) -> None:
    with pytest.raises(BadCallback):
        decode(encode(data, OTHER_KEY), KEY)


@given(callback_data)
def test_truncated_or_extended_data_is_refused(data: CallbackData) -> None:
    raw = encode(data, KEY)
    with pytest.raises(BadCallback):
        decode(raw[:-1], KEY)
    with pytest.raises(BadCallback):
        decode(raw + "A", KEY)


@pytest.mark.parametrize(
    "fields",
    [
        {"action": "toolong"},
        {"action": ""},
        {"game": "has space"},
        {"game": "x" * 13},
        {"version": -1},
        {"card": MAX_SMALL + 1},
        {"cell": (MAX_COORD + 1, 0)},
        {"player": MAX_PLAYER + 1},
        {"tool": "hammer"},
    ],
)
def test_values_outside_the_limits_cannot_be_built(fields: dict[str, object]) -> None:
    arguments: dict[str, object] = {"action": "pl", "game": "g1", "version": 1} | fields
    with pytest.raises(ValueError):
        CallbackData(**arguments)  # type: ignore[arg-type]


def keys(**settings: str) -> tuple[bytes, ...]:
    return keys_from_secrets(load_settings(_env_file=None, **settings).secrets)  # type: ignore[arg-type]


def test_a_new_bot_token_or_a_rotated_secret_key_keeps_live_buttons_working() -> None:
    data = CallbackData("pl", "g1a", 7, card=3)
    before = keys(telegram_bot_token="1:OLD", secret_key="first-secret-key-0123")
    raw = encode(data, before[0])

    new_token = keys(telegram_bot_token="1:NEW", secret_key="first-secret-key-0123")
    rotated = keys(
        telegram_bot_token="1:NEW",
        secret_key="second-secret-key-456",
        secret_key_previous="first-secret-key-0123",
    )

    assert decode(raw, new_token) == data
    assert decode(raw, rotated) == data
    # New buttons are signed with the new key only.
    assert decode(encode(data, rotated[0]), (rotated[0],)) == data


def test_once_the_previous_key_is_dropped_its_buttons_are_refused() -> None:
    old = keys(telegram_bot_token="1:T", secret_key="first-secret-key-0123")
    new = keys(telegram_bot_token="1:T", secret_key="second-secret-key-456")

    with pytest.raises(BadCallback):
        decode(encode(CallbackData("pl", "g1a", 7), old[0]), new)


def test_without_a_secret_key_the_keys_come_from_the_bot_token_as_before() -> None:
    assert keys(telegram_bot_token="123456:TEST") == (KEY,)


CHATS = st.integers(-(2**52), 2**52)


@given(callback_data, CHATS, CHATS)
def test_a_button_bound_to_a_chat_is_good_there_only_at_no_cost_in_length(
    data: CallbackData, chat: int, other: int
) -> None:
    raw = encode(data, KEY, chat)

    assert len(raw) == len(encode(data, KEY))
    assert decode(raw, KEY, [other, chat]) == data
    with pytest.raises(BadCallback):
        decode(raw, KEY)  # a press from no chat
    if other != chat:
        with pytest.raises(BadCallback):
            decode(raw, KEY, [other])


def test_peek_reads_without_checking_and_says_none_for_anything_else() -> None:
    data = CallbackData("vs", "g1", 3, value=2)
    assert peek(encode(data, OTHER_KEY, -5)) == data
    assert peek("not ours!") is None
