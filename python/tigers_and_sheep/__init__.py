"""Tigers and Sheep, a Bagh-Chal hunt game on a 5x5 board, for Python.

The exact rules and notation, one fixed action space, the net's input encoding and board
planes (one position or a numpy array of them), the solved values of every position, the
computer players (``ClaudePlayer``, a net's search, the perfect player), and a self-play run's
ledger, nets, games and samples. Environments: ``tigers_and_sheep.pettingzoo.env()``, the
Gymnasium id ``tigers_and_sheep/TigersAndSheep-v0`` (registered on import when Gymnasium is
installed) and the OpenSpiel game ``python_tigers_and_sheep`` (registered by importing
``tigers_and_sheep.openspiel``). docs/python.md documents every call.
"""

from tigers_and_sheep._native import (
    ACTIONS,
    INPUTS,
    OUTCOMES,
    PLANES,
    START,
    CorruptFileError,
    Game,
    GameBatch,
    IllegalMoveError,
    Net,
    NotationError,
    Player,
    PositionError,
    Run,
    TableMissingError,
    Tables,
    __version__,
    action_permutation,
    action_to_move,
    codes_from_notations,
    encode,
    legal_masks,
    move_to_action,
    notations_from_codes,
    planes,
    play_actions,
    points,
    random_playouts,
    terminal,
    transform_codes,
    transform_move,
)

SIDES = ("sheep", "tigers")
"""The two sides, in the order they move: the sheep place first."""

SYMMETRIES = 8
"""The board's symmetries, numbered 0 (the identity) to 7."""

__all__ = [
    "ACTIONS",
    "INPUTS",
    "OUTCOMES",
    "PLANES",
    "SIDES",
    "START",
    "SYMMETRIES",
    "CorruptFileError",
    "Game",
    "GameBatch",
    "IllegalMoveError",
    "Net",
    "NotationError",
    "Player",
    "PositionError",
    "Run",
    "TableMissingError",
    "Tables",
    "__version__",
    "action_permutation",
    "action_to_move",
    "codes_from_notations",
    "encode",
    "legal_masks",
    "move_to_action",
    "notations_from_codes",
    "planes",
    "play_actions",
    "points",
    "random_playouts",
    "terminal",
    "transform_codes",
    "transform_move",
]


def _register_gymnasium() -> None:
    try:
        import gymnasium
    except ImportError:
        return
    env_id = "tigers_and_sheep/TigersAndSheep-v0"
    if env_id not in gymnasium.registry:
        gymnasium.register(
            id=env_id,
            entry_point="tigers_and_sheep.gymnasium:TigersAndSheepEnv",
        )


_register_gymnasium()
