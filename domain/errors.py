"""Why a command was refused. Each error has a stable ``code`` the bot translates.

>>> IllegalPlacement("does_not_fit").reason
'does_not_fit'
>>> NotYourTurn().code
'not_your_turn'
"""

from __future__ import annotations

from typing import ClassVar


class DomainError(ValueError):
    """A command the rules refuse; the game is unchanged."""

    code: ClassVar[str] = "domain_error"

    def __init__(self, message: str = "") -> None:
        super().__init__(message or self.code)


class GameAlreadyCreated(DomainError):
    code = "game_already_created"


class NoGame(DomainError):
    code = "no_game"


class NotInLobby(DomainError):
    code = "not_in_lobby"


class NotStarted(DomainError):
    code = "not_started"


class GameOver(DomainError):
    code = "game_over"


class AlreadyJoined(DomainError):
    code = "already_joined"


class NotAPlayer(DomainError):
    code = "not_a_player"


class NotTheCreator(DomainError):
    code = "not_the_creator"


class GameFull(DomainError):
    code = "game_full"


class NotEnoughPlayers(DomainError):
    code = "not_enough_players"


class InvalidSettings(DomainError):
    code = "invalid_settings"


class NotYourTurn(DomainError):
    code = "not_your_turn"


class NoDecisionPending(DomainError):
    code = "no_decision_pending"


class WrongDecision(DomainError):
    """The player owes a decision, but of another kind (e.g. a gold pick, not a turn)."""

    code = "wrong_decision"


class CardNotInHand(DomainError):
    code = "card_not_in_hand"


class WrongCardType(DomainError):
    """A path card played as an action or the other way round."""

    code = "wrong_card_type"


class IllegalPlacement(DomainError):
    """Carries the board's reason code (see :func:`domain.board.placement_error`)."""

    code = "illegal_placement"

    def __init__(self, reason: str) -> None:
        super().__init__(f"illegal placement: {reason}")
        self.reason = reason


class ToolsBroken(DomainError):
    code = "tools_broken"


class PlayerTrapped(DomainError):
    code = "player_trapped"


class InvalidTarget(DomainError):
    code = "invalid_target"


class InvalidPass(DomainError):
    code = "invalid_pass"


class NotAway(DomainError):
    """Only a player who is away (three timeouts in a row, docs/rules.md §7.3) can come back."""

    code = "not_away"


class NotInEdition(DomainError):
    """A saboteur2 option used in a base game."""

    code = "not_in_edition"


class NoHumanPlayer(DomainError):
    """A game needs at least one human player."""

    code = "no_human_player"


class PracticeGame(DomainError):
    """A practice game is its creator's alone: nobody else joins it."""

    code = "practice_game"


class NotAComputerPlayer(DomainError):
    """The seat named is not a computer player's (or there is none to remove)."""

    code = "not_a_computer_player"


class ComputerSeat(DomainError):
    """The seat is a computer player's: it cannot be handed over or act as a person."""

    code = "computer_seat"


class AlreadyHandedOver(DomainError):
    """The computer already plays that seat."""

    code = "already_handed_over"


class LeftTheGame(DomainError):
    """The player left the running game: the computer plays their seat to the end."""

    code = "left_the_game"
