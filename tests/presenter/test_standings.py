"""/top, /stats's rating lines, /achievements and the game-over lines, in every language:
each message found in the catalogs, counted in the form its number asks for."""

from __future__ import annotations

import re

import pytest

from domain.achievements import NAMES
from tgbot.presenter.standings import (
    GlobalRanks,
    Ranked,
    RatingChange,
    achievements_text,
    award_line,
    award_note,
    global_top_text,
    group_variant_lines,
    privacy_text,
    rating_line,
    stats_lines,
    top_text,
    variant_lines,
)
from tgbot.presenter.texts import LANGUAGES, Texts

# A message missing from a catalog is shown as its key.
KEY = re.compile(r"\b(top|ratings|stats|achievements?|achievement_about|count)\.[a-z_]+")


def no_key_left(text: str) -> bool:
    return KEY.search(text) is None


@pytest.mark.parametrize("lang", LANGUAGES)
def test_top_words_the_season_the_editions_and_the_games_in_every_language(lang: str) -> None:
    texts = Texts(lang)
    people = [Ranked("Ann", 1250, 7), Ranked("Bo", 1003, 5)]
    computers = [Ranked("🤖 Greta", 1100, 12)]
    shown = top_text(texts, "2026Q4", {"base": (people, computers)}, 5)
    assert no_key_left(shown)
    assert "1. Ann — 1250 (" + texts.t("count.rated_games", n=7) + ")" in shown
    assert "2026" in shown.split("\n")[0] and "4" in shown.split("\n")[0]
    empty = top_text(texts, None, {}, 5)
    assert empty.split("\n")[1] == texts.t("top.empty", n=5)
    assert no_key_left(empty)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_global_top_names_who_chose_it_at_their_rank_and_counts_the_others(
    lang: str,
) -> None:
    texts = Texts(lang)
    ranks = GlobalRanks([(2, Ranked("Bo", 1180, 9))], 2, [Ranked("🤖 Greta", 1100, 12)])
    shown = global_top_text(texts, "2026Q4", {"saboteur2": ranks}, 5)
    assert no_key_left(shown)
    lines = shown.split("\n")
    assert "2026" in lines[0] and lines[0] != texts.t("top.title_all")
    assert "2. Bo — 1180 (" + texts.t("count.rated_games", n=9) + ")" in lines
    assert texts.t("top.unnamed", n=2) in lines and "/privacy" in texts.t("top.unnamed", n=2)
    assert "🤖 Greta" in shown
    assert lines[-1] == texts.t("top.global_footer", n=5)
    assert no_key_left(global_top_text(texts, None, {}, 5))
    for listed in (True, False):
        for changed in (True, False):
            said = privacy_text(texts, listed, changed)
            assert "/privacy" in said and no_key_left(said)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_stats_and_the_game_over_lines_read_in_every_language(lang: str) -> None:
    texts = Texts(lang)
    (line,) = stats_lines(texts, "2026Q4", {"saboteur2": (1043, -7, 2)}, 5)
    assert "1043" in line and "−7" in line and no_key_left(line)
    assert texts.t("stats.unranked", n=3) in line
    over = rating_line([RatingChange(1, 1000, 1043)], lambda p: "Ann", texts)
    assert over is not None and "Ann 1043 (+43)" in over.html()
    awards = award_line([(1, "first_treasure"), (2, "first_game")], lambda p: f"P{p}", texts)
    assert awards is not None and awards.html().startswith("🏅 P1: ")
    for names in (["first_game"], ["first_game", "rich"]):
        assert no_key_left(award_note(names, "“Mine”", texts))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_achievement_has_a_title_and_an_explanation_in_every_language(lang: str) -> None:
    texts = Texts(lang)
    listed = achievements_text(texts, NAMES, set(NAMES[:2]), {NAMES[0]: 0.5}, show_all=True)
    assert no_key_left(listed)
    assert "50" in listed.split("\n")[1]
    titles = {texts.t(f"achievement.{n}") for n in NAMES}
    assert len(titles) == len(NAMES)  # no two alike


@pytest.mark.parametrize("lang", LANGUAGES)
def test_stats_shows_the_games_played_with_a_variant_apart_in_every_language(lang: str) -> None:
    texts = Texts(lang)
    assert variant_lines(texts, 0, 0, 0) == [] and group_variant_lines(texts, 0, 0) == []
    (mine,) = variant_lines(texts, 2, 1, 5)
    assert mine.startswith("🎲 ") and no_key_left(mine)
    for counted in (texts.t("count.games_played", n=2), texts.t("count.wins", n=1)):
        assert counted in mine
    (group,) = group_variant_lines(texts, 3, 4)
    assert group.startswith("🎲 ") and no_key_left(group)
    assert texts.t("count.games_finished", n=3) in group
    assert texts.t("count.winners", n=4) in group
