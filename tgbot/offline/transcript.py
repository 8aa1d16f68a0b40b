"""What every chat received from the bot, as readable text, from the fake Bot API's log.

The offline demo writes it (``saboteur-bot demo --transcript FILE``): each message and
caption as the chat reads it, its keyboard, every edit and deletion, each button a user
pressed with the answer they got (an alert, a notice, a link, or nothing), what users
typed, the file each picture was saved to, and any call Telegram would have refused.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from tgbot.offline.fakeapi import Call, FakeBotAPI, UserAction

TAG: Final = re.compile(r"<[^>]+>")
PICTURE_METHODS: Final = frozenset(
    {"sendPhoto", "sendAnimation", "sendDocument", "editMessageMedia"}
)
SHOWN_METHODS: Final = frozenset(
    {
        "sendMessage",
        "editMessageText",
        "editMessageCaption",
        "editMessageReplyMarkup",
        "deleteMessage",
        *PICTURE_METHODS,
    }
)


def plain(text: str) -> str:
    """HTML as the chat reads it: tags gone, entities back to characters.

    >>> plain('<a href="tg://user?id=1">Ann</a> &amp; Bo')
    'Ann & Bo'
    """
    return html.unescape(TAG.sub("", text))


def keyboard_lines(markup: Any) -> list[str]:
    """An inline keyboard as one line per row: ``[✋ Join] [🚪 Leave]``; a link button
    shows where it leads.

    >>> keyboard_lines({"inline_keyboard": [[{"text": "Go", "url": "https://t.me/x"}]]})
    ['[Go → https://t.me/x]']
    """
    rows = markup.get("inline_keyboard", []) if isinstance(markup, dict) else []
    return [
        " ".join(f"[{b['text']} → {b['url']}]" if b.get("url") else f"[{b['text']}]" for b in row)
        for row in rows
    ]


def picture_of(api: FakeBotAPI, call: Call) -> tuple[bytes, str] | None:
    """The picture a call sent (its bytes and file suffix): uploaded, or sent again by the
    ``file_id`` Telegram gave it before."""
    if call.method not in PICTURE_METHODS:
        return None
    media = call.get("media")
    sent = next(
        (call.get(k) for k in ("photo", "animation", "document") if call.get(k) is not None),
        media.get("media") if isinstance(media, dict) else None,
    )
    data = next(iter(call.files.values()), None)
    if data is None and isinstance(sent, str) and sent.startswith("file-"):
        data = api.file_bytes(sent)
    if not data:
        return None
    return data, ".gif" if data[:3] == b"GIF" else ".png"


def save_pictures(api: FakeBotAPI, out: Path, names: Mapping[int, str]) -> dict[int, Path]:
    """Write every picture a chat received to ``out``: the group's as ``board-NNN``, a
    player's as ``<name>-NNN``; returns each call's file, by the call's index."""
    out.mkdir(parents=True, exist_ok=True)
    saved: dict[int, Path] = {}
    counts: dict[str, int] = {}
    for index, call in enumerate(api.calls):
        found = picture_of(api, call)
        if found is None or index not in api.results:
            continue
        data, suffix = found
        chat = _chat_id(call)
        stem = "board" if chat < 0 else names.get(chat, str(chat)).lower()
        counts[stem] = counts.get(stem, 0) + 1
        path = out / f"{stem}-{counts[stem]:03d}{suffix}"
        path.write_bytes(data)
        saved[index] = path
    return saved


def transcript(
    api: FakeBotAPI,
    names: Mapping[int, str],
    pictures: Mapping[int, Path] | None = None,
    *,
    only: int | None = None,
    full: bool = True,
) -> Iterator[str]:
    """The chats' story, one block per message, edit, deletion, press or typed text.
    ``names``: the chats' names (users and groups); ``pictures``: where each call's
    picture was saved; ``only``: one chat; ``full=False``: messages and captions only."""
    actions = sorted(api.actions, key=lambda a: a.at)
    answers = {c.get("callback_query_id"): i for i, c in enumerate(api.calls) if _answer(c)}
    refused = {r.index: r for r in api.refusals}
    with_buttons: set[tuple[int, Any]] = set()  # messages that show buttons now
    next_action = 0
    for index, call in enumerate(api.calls):
        while full and next_action < len(actions) and actions[next_action].at <= index:
            action = actions[next_action]
            next_action += 1
            if only is None or action.chat_id == only:
                yield _action(api, action, names, answers)
        if only is not None and _chat_id(call) != only:
            continue
        if full and index in refused:
            where = _where(_chat_id(call), names)
            yield f"── {where} · {call.method} refused: {refused[index].description}"
        if call.method not in SHOWN_METHODS or index not in api.results:
            continue
        if not full and call.method in ("editMessageReplyMarkup", "deleteMessage"):
            continue
        yield _message(api, index, call, names, pictures or {}, full, with_buttons)


def _chat_id(call: Call) -> int:
    try:
        return int(call.get("chat_id") or 0)
    except (TypeError, ValueError):
        return 0


def _answer(call: Call) -> bool:
    return call.method == "answerCallbackQuery"


def _where(chat: int, names: Mapping[int, str]) -> str:
    name = names.get(chat, str(chat))
    return f"{name} (group)" if chat < 0 else f"to {name}"


def _topic(api: FakeBotAPI, chat: int, result: Any) -> str:
    """Where in a forum a message is: " › <its topic>", or " › General"; "" elsewhere."""
    if not api.chats.get(chat, {}).get("is_forum"):
        return ""
    if not isinstance(result, dict) or not result.get("is_topic_message"):
        return " › General"
    thread = int(result.get("message_thread_id") or 0)
    topic = api.topics.get(chat, {}).get(thread)
    return f" › {topic['name']}" if topic else f" › topic #{thread}"


def _message(
    api: FakeBotAPI,
    index: int,
    call: Call,
    names: Mapping[int, str],
    pictures: Mapping[int, Path],
    full: bool,
    with_buttons: set[tuple[int, Any]],
) -> str:
    result = api.results[index]
    message_id = result.get("message_id") if isinstance(result, dict) else call.get("message_id")
    key = (_chat_id(call), message_id)
    verb = {
        "sendMessage": "message",
        "sendPhoto": "picture",
        "sendAnimation": "animation",
        "sendDocument": "file",
        "editMessageText": "edits its text",
        "editMessageCaption": "edits its caption",
        "editMessageMedia": "edits its picture",
        "editMessageReplyMarkup": "edits its buttons",
        "deleteMessage": "deletes it",
    }[call.method]
    where = _where(_chat_id(call), names) + _topic(api, _chat_id(call), result)
    head = f"── {where} · #{message_id} {verb}"
    if index in pictures:
        head += f" → {pictures[index]}"
    media = call.get("media")
    body = call.get("text") or call.get("caption")
    if body is None and isinstance(media, dict):
        body = media.get("caption")
    lines = [head, *(f"    {line}" for line in plain(body or "").strip().splitlines())]
    buttons = keyboard_lines(call.get("reply_markup"))
    if full and buttons:
        lines.extend(f"    {row}" for row in buttons)
    elif full and key in with_buttons:  # an edit without buttons takes them away
        lines.append("    (its buttons are gone)")
    if buttons and call.method != "deleteMessage":
        with_buttons.add(key)
    else:
        with_buttons.discard(key)
    return "\n".join(lines)


def _action(
    api: FakeBotAPI, action: UserAction, names: Mapping[int, str], answers: Mapping[Any, int]
) -> str:
    who = names.get(action.user_id, str(action.user_id))
    where = "" if action.chat_id > 0 else f" in {names.get(action.chat_id, action.chat_id)}"
    if action.text is not None:
        return f"── {who} writes{where}: {action.text}"
    line = f"── {who} presses [{action.button}]{where}"
    answer = api.calls[answers[action.query_id]] if action.query_id in answers else None
    if answer is None:
        return line + " · not answered"
    if answer.get("url"):
        return line + f" · sent to {answer.get('url')}"
    if answer.get("text"):
        kind = "alert" if answer.get("show_alert") in (True, "true", "True") else "notice"
        return line + f" · {kind}: {answer.get('text')}"
    return line
