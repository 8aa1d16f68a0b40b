"""``saboteur-bot demo``: its language, its transcript of every chat, and a game that
``saboteur-bot replay`` finds where the demo says it is."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tgbot import cli

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def test_the_demo_writes_every_chat_in_its_language_and_its_game_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (One demo game, printed as by default, a line per round, and its transcript where
    # the demo keeps it by default: each game costs tens of CPU seconds, the fewer the
    # people pressing buttons the fewer; one computer player among them.)
    monkeypatch.setenv("SABOTEUR_COMMAND", "./scripts/run")
    out = tmp_path / "out"
    argv = ["demo", "--players", "3", "--computers", "1", "--seed", "2", "--language", "pl"]
    argv += ["--out", str(out)]
    assert cli.main(argv) == 0

    printed = capsys.readouterr().out
    found = re.search(r"^game (\S+) in (\S+); replay it with:$", printed, re.MULTILINE)
    assert found is not None, printed[-500:]
    game_id, url = found.groups()
    assert url == f"sqlite:///{out / 'demo.db'}"
    refusals = (
        r"^\d+ calls to Telegram, 0 of them refused by its rules"
        r" \(0 edits that changed nothing\); \d+ such edits not sent$"
    )
    assert re.search(refusals, printed, re.M)
    assert len(re.findall(r"^round [123]/3 over: \d+ moves, \d+ s$", printed, re.M)) == 3
    assert "── " not in printed  # no chat printed: it is in the transcript
    assert re.search(r"^game over: .+ won; gold: ", printed, re.M), printed
    written = out / "transcript.txt"
    assert f"transcript of every chat: {written}" in printed
    assert re.search(r"^  \./scripts/run replay \S+ --database-url ", printed, re.M), printed
    assert "  ./scripts/run demo --miniapp" in printed

    transcript = written.read_text("utf-8")
    assert transcript.startswith("── Ann writes: /start")
    assert "🏆 Koniec gry!" in transcript  # the group's messages, in Polish
    assert "── Ann writes in Demo mine: /newgame base" in transcript
    assert "── Demo mine (group) · #2 message\n    Sabotażysta — nowa gra, zakłada Ann" in (
        transcript
    )
    assert "    [✋ Dołącz] [🚪 Wyjdź]\n" in transcript  # the lobby's keyboard
    assert "── Bo presses [✋ Dołącz] in Demo mine · notice: " in transcript
    assert re.search(r"── to Ann · #\d+ picture → \S+ann-\d{3}\.png\n", transcript)
    assert "\n    [🂠 Spasuj]\n" in transcript  # a turn prompt's keyboard
    assert "[🔁 Zagraj jeszcze raz]" in transcript  # the game-over message's buttons
    pictures = re.findall(r" → (\S+\.png)$", transcript, re.MULTILINE)
    assert pictures and all(Path(p).is_file() for p in pictures)
    assert "?]" not in transcript  # every pressed button is named
    assert " refused: " not in transcript  # nothing Telegram would refuse

    gif = tmp_path / "replay.gif"
    replay = ["replay", game_id, "--database-url", url, "--lang", "pl", "--out", str(gif)]
    assert cli.main(replay) == 0
    assert gif.read_bytes()[:6] == b"GIF89a"


def test_the_demo_seats_computer_players_who_play_to_the_end_beside_the_people(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, written = tmp_path / "out", tmp_path / "transcript.txt"
    argv = ["demo", "--players", "4", "--computers", "2", "--seed", "3", "--language", "de"]
    assert cli.main([*argv, "--out", str(out), "--transcript", str(written), "--quiet"]) == 0

    printed = capsys.readouterr().out
    found = re.search(r"^(\d+) button presses; (\d+) computer moves; ", printed, re.MULTILINE)
    assert found is not None, printed[-500:]
    assert int(found.group(1)) > 0 and int(found.group(2)) > 0
    assert "🏆 Spielende!" in printed
    lobby = re.findall(r"Mitspielende \(4/10\): Ann, Bo, 🤖 \w+ · normal, 🤖 \w+ · normal", printed)
    assert lobby, printed[:1500]
    transcript = written.read_text("utf-8")
    assert transcript.count("── Ann presses [🤖 Computerspieler hinzufügen] in Demo mine") == 2
    # Only the people have private chats; the computers' turns are told in the group.
    assert re.search(r"^── to (Cy|Di) ", transcript, re.MULTILINE) is None
    # The board waits for a computer on turn; it does not tell it that it is its turn.
    assert re.search(r"^    Warten auf 🤖 \w+\.$", printed, re.MULTILINE), printed[:3000]
    assert re.search(r"🤖 \w+, du bist dran", printed) is None
    assert "[🤖 Platz dem Computer übergeben]" in transcript  # the board's button


def test_the_demo_keeps_one_seat_for_a_person(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["demo", "--players", "3", "--computers", "3"])
    assert "--computers must be 0 to 2" in capsys.readouterr().err


def test_the_demo_names_the_editions_limits_before_it_plays(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        cli.main(["demo", "--players", "2", "--edition", "base"])
    assert "--players must be 3 to 10 for --edition base" in capsys.readouterr().err
