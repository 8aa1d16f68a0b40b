"""``saboteur-bot demo --miniapp``: the first seat is played on the Mini App it serves."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import aiohttp
import pytest

from tgbot.offline import demo

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


async def test_the_demo_serves_the_board_and_waits_for_the_first_seats_moves(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = demo.parser().parse_args(
        ["--miniapp", "--port", "0", "--players", "3", "--out", str(tmp_path), "--quiet"]
    )
    playing = asyncio.create_task(demo.play(args, db))
    printed = ""
    async with asyncio.timeout(30):
        while not (found := re.search(r"open (http://\S+/miniapp/demo\?as=1)", printed)):
            assert not playing.done(), playing
            printed += capsys.readouterr().out
            await asyncio.sleep(0.05)
    moves = 0
    async with aiohttp.ClientSession() as http, asyncio.timeout(120):
        async with http.get(found.group(1), allow_redirects=False) as r:
            assert r.status == 303
            raw = parse_qs(r.headers["Location"].split("#", 1)[1])["tgWebAppData"][0]
        headers = {"Authorization": f"tma {raw}"}
        api = found.group(1).split("demo?")[0] + "api/"
        async with http.get(api + "mine", headers=headers) as r:
            (game,) = (await r.json())["games"]
        while not playing.done():
            try:
                async with http.get(f"{api}game/{game}", headers=headers) as r:
                    state: dict[str, Any] = (await r.json())["state"]
            except aiohttp.ClientConnectorError:
                if playing.done():  # the game ended and the demo stopped meanwhile
                    break
                raise
            if state["phase"] != "playing":
                break
            if state["moves"]:
                move = {k: v for k, v in state["moves"][0].items() if k != "label"}
                body = {"version": state["version"], "key": f"demo-tap-{moves:04d}", "move": move}
                async with http.post(f"{api}game/{game}/move", json=body, headers=headers) as r:
                    moves += r.status == 200
            await asyncio.sleep(0.05)  # the computer players' turns
    assert await asyncio.wait_for(playing, 60) == 0
    assert moves > 10
    assert "pictures written" in capsys.readouterr().out
