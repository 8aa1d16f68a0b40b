"""Ratings and achievements as players read them: the game-over message's line of rating
changes, ``/top``'s table and ``/stats``'s rating lines.

The figures come from the read models (:mod:`infra.ratings`); this module only words them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from domain.state import PlayerId
from tgbot.presenter.icons import Icon, Line
from tgbot.presenter.texts import Texts, computer_html, esc


@dataclass(frozen=True, slots=True)
class RatingChange:
    """A person's season rating in the game's group, before and after the game."""

    player: PlayerId
    before: int
    after: int


@dataclass(frozen=True, slots=True)
class Ranked:
    """One line of a table: who, the rating shown, rated games this season."""

    name: str
    rating: int
    games: int
    level: str | None = None  # a computer player's: rated apart at each level


def signed(delta: int) -> str:
    """A change as players read it: ``+12``, ``−7`` (a minus sign), ``±0``.

    >>> signed(12), signed(-7), signed(0)
    ('+12', '−7', '±0')
    """
    if delta > 0:
        return f"+{delta}"
    if delta < 0:
        return f"−{-delta}"
    return "±0"


def rating_line(
    changes: Sequence[RatingChange], name: Callable[[PlayerId], str], texts: Texts
) -> Line | None:
    """The game-over message's line: each person's new season rating and its change, in
    seat order (``name`` gives a player's name as HTML). None when the game was not
    rated."""
    if not changes:
        return None
    each = ", ".join(
        texts.t(
            "ratings.change", name=name(c.player), rating=c.after, change=signed(c.after - c.before)
        )
        for c in changes
    )
    return Line(Icon.RATING, texts.t("ratings.game_over", changes=each))


def season_name(season: str, texts: Texts) -> str:
    """``2026Q4`` as the players' language says it.

    >>> season_name("2026Q4", Texts("en"))
    'Q4 2026'
    """
    year, _, quarter = season.partition("Q")
    return texts.t("ratings.season", year=year, quarter=quarter)


def top_text(
    texts: Texts,
    season: str | None,
    tables: Mapping[str, tuple[Sequence[Ranked], Sequence[Ranked]]],
    ranked_after: int,
) -> str:
    """``/top``: per edition, the group's best people (then the computer players apart),
    in the season (None: all time)."""
    if season is None:
        title = texts.t("top.title_all")
    else:
        title = texts.t("top.title_season", season=season_name(season, texts))
    lines = [title]
    shown = False
    for edition, (people, computers) in tables.items():
        if not people and not computers:
            continue
        shown = True
        lines.append("")
        lines.append(texts.t("top.edition", edition=texts.t(f"edition.{edition}")))
        for rank, entry in enumerate(people, start=1):
            lines.append(_ranked(texts, rank, entry))
        if computers:
            lines.append(_computers(texts, computers))
    if not shown:
        lines.append(texts.t("top.empty", n=ranked_after))
    else:
        lines.append("")
        lines.append(texts.t("top.footer", n=ranked_after))
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class GlobalRanks:
    """An edition's global table: the people named (with their rank among everyone
    ranked), how many of the top ranks are not named, and the computer players."""

    named: Sequence[tuple[int, Ranked]]
    unnamed: int
    computers: Sequence[Ranked]


def global_top_text(
    texts: Texts, season: str | None, tables: Mapping[str, GlobalRanks], ranked_after: int
) -> str:
    """``/top global``: per edition, every group's best people who chose to be named
    (``/privacy``), each at their rank among everyone ranked, the others counted only;
    then the computer players apart. ``season`` None: all time."""
    if season is None:
        title = texts.t("top.title_global_all")
    else:
        title = texts.t("top.title_global_season", season=season_name(season, texts))
    lines = [title]
    shown = False
    for edition, ranks in tables.items():
        if not ranks.named and not ranks.unnamed and not ranks.computers:
            continue
        shown = True
        lines.append("")
        lines.append(texts.t("top.edition", edition=texts.t(f"edition.{edition}")))
        lines.extend(_ranked(texts, rank, entry) for rank, entry in ranks.named)
        if ranks.unnamed:
            lines.append(texts.t("top.unnamed", n=ranks.unnamed))
        if ranks.computers:
            lines.append(_computers(texts, ranks.computers))
    if not shown:
        lines.append(texts.t("top.empty", n=ranked_after))
    else:
        lines.append("")
        lines.append(texts.t("top.global_footer", n=ranked_after))
    return "\n".join(lines)


def _computers(texts: Texts, computers: Sequence[Ranked]) -> str:
    each = ", ".join(
        texts.t(
            "top.computer",
            name=computer_html(c.name, c.level, texts) if c.level else esc(c.name),
            rating=c.rating,
            games=texts.t("count.rated_games", n=c.games),
        )
        for c in computers
    )
    return Line(Icon.COMPUTER, texts.t("top.computers", computers=each)).html()


def privacy_text(texts: Texts, listed: bool, changed: bool) -> str:
    """``/privacy``'s answer: whether the player is named in the global tables (just now
    changed, or as it stands)."""
    if changed:
        return texts.t("privacy.now_listed" if listed else "privacy.now_unlisted")
    return texts.t("privacy.listed" if listed else "privacy.unlisted")


def _ranked(texts: Texts, rank: int, entry: Ranked) -> str:
    games = texts.t("count.rated_games", n=entry.games)
    return texts.t("top.line", rank=rank, name=esc(entry.name), rating=entry.rating, games=games)


def stats_lines(
    texts: Texts, season: str, mine: Mapping[str, tuple[int, int, int]], ranked_after: int
) -> list[str]:
    """``/stats``'s rating lines in a group: per edition played this season, the rating
    shown, its change in the last game, and the rated games played (the table names
    nobody before ``ranked_after`` of them)."""
    lines: list[str] = []
    for edition, (rating, change, games) in mine.items():
        line = texts.t(
            "stats.rating",
            edition=texts.t(f"edition.{edition}"),
            season=season_name(season, texts),
            rating=rating,
            change=signed(change),
            games=texts.t("count.rated_games", n=games),
        )
        if games < ranked_after:
            line += " " + texts.t("stats.unranked", n=ranked_after - games)
        lines.append(Line(Icon.RATING, line).html())
    return lines


def variant_lines(texts: Texts, games: int, wins: int, gold: int) -> list[str]:
    """``/stats``'s line of the player's games played with a variant (docs/rules.md §8),
    counted apart from the plain games': none before such a game."""
    if not games:
        return []
    line = texts.t(
        "stats.variants",
        games=texts.t("count.games_played", n=games),
        wins=texts.t("count.wins", n=wins),
        gold=texts.t("count.gold", n=gold),
    )
    return [Line(Icon.VARIANTS, line).html()]


def group_variant_lines(texts: Texts, games: int, winners: int) -> list[str]:
    """``/stats``'s line of a group's games finished with a variant, apart; none before
    such a game."""
    if not games:
        return []
    line = texts.t(
        "stats.variants_group",
        games=texts.t("count.games_finished", n=games),
        winners=texts.t("count.winners", n=winners),
    )
    return [Line(Icon.VARIANTS, line).html()]


# -- achievements -----------------------------------------------------------------------


def award_line(
    awards: Sequence[tuple[PlayerId, str]], name: Callable[[PlayerId], str], texts: Texts
) -> Line | None:
    """The game-over message's line of the achievements the game earned, by person:
    ``🏅 Ann: First treasure, First win; Bob: First game``. None when it earned none."""
    by_player: dict[PlayerId, list[str]] = {}
    for player, achievement in awards:
        by_player.setdefault(player, []).append(texts.t(f"achievement.{achievement}"))
    if not by_player:
        return None
    each = "; ".join(
        texts.t("achievements.earned_by", name=name(p), achievements=", ".join(titles))
        for p, titles in by_player.items()
    )
    return Line(Icon.ACHIEVEMENT, each)


def award_note(achievements: Sequence[str], group: str, texts: Texts) -> str:
    """A game's new achievements, told to their player in one private message (HTML)."""

    def words(achievement: str) -> dict[str, str]:
        return {
            "title": texts.t(f"achievement.{achievement}"),
            "about": texts.t(f"achievement_about.{achievement}"),
        }

    if len(achievements) == 1:
        said = texts.t("achievements.private", group=group, **words(achievements[0]))
        return Line(Icon.ACHIEVEMENT, said).html()
    lines = [texts.t("achievements.private_many", group=group)]
    for name in achievements:
        lines.append(
            Line(Icon.ACHIEVEMENT, texts.t("achievements.private_item", **words(name))).html()
        )
    return "\n".join(lines)


def achievements_text(
    texts: Texts,
    names: Sequence[str],
    mine: Collection[str],
    shares: Mapping[str, float],
    show_all: bool,
) -> str:
    """``/achievements``: the player's, each with the share of players who hold it; then
    how many are left (with ``show_all``: each of them)."""
    held = [n for n in names if n in mine]
    left = [n for n in names if n not in mine]
    lines = []
    if held:
        lines.append(texts.t("achievements.title", count=len(held), total=len(names)))
        lines.extend(_achievement(texts, n, shares) for n in held)
    else:
        lines.append(texts.t("achievements.none"))
    if left and show_all:
        lines.append("")
        lines.append(texts.t("achievements.to_earn"))
        lines.extend(_achievement(texts, n, shares) for n in left)
    elif left:
        lines.append("")
        lines.append(texts.t("achievements.left", n=len(left)))
    return "\n".join(lines)


def _achievement(texts: Texts, achievement: str, shares: Mapping[str, float]) -> str:
    title = "<b>" + esc(texts.t(f"achievement.{achievement}")) + "</b>"
    share = round(100 * shares.get(achievement, 0.0))
    about = esc(texts.t(f"achievement_about.{achievement}"))
    return Line(
        Icon.ACHIEVEMENT, texts.t("achievements.line", title=title, about=about, share=share)
    ).html()
