"""What the three environments share: the tables they probe, the exact value they report in
their info, and the text they render."""

from __future__ import annotations

from typing import Optional

import tigers_and_sheep as ts

_FLIP = {"win": "loss", "draw": "draw", "loss": "win"}


def load_tables(tables) -> Optional[ts.Tables]:
    """``tables`` as a ``Tables``: None or False for none, True for the usual places (the
    movement table required), or a ``Tables`` already open."""
    if tables is None or tables is False:
        return None
    if tables is True:
        return ts.Tables(movement=True)
    if isinstance(tables, ts.Tables):
        return tables
    raise TypeError(
        f"tables is a Tables, True (the usual places) or None, not {type(tables).__name__}"
    )


def exact_for(tables: Optional[ts.Tables], game: ts.Game, side: str) -> Optional[dict]:
    """The exact value of ``game``'s position from ``side``'s point of view, as a dict of
    ``wdl`` ("win", "draw" or "loss") and ``distance`` (plies to the end, or None), or None
    where no loaded table holds the position."""
    if tables is None:
        return None
    try:
        wdl, distance = tables.probe(game)
    except ts.TableMissingError:
        return None
    if side != game.turn:
        wdl = _FLIP[wdl]
    return {"wdl": wdl, "distance": distance}


def describe(game: ts.Game) -> str:
    """The board with a line on how the game stands."""
    if game.is_over():
        state = f"over: {game.outcome}"
    else:
        state = f"{game.turn} to move"
    return (
        f"{game}\n{state}; {game.sheep_in_hand} in hand, {game.dead_sheep} dead; "
        f"ply {game.ply}\n"
    )


def render(render_mode: Optional[str], game: ts.Game) -> Optional[str]:
    """What an environment's ``render()`` gives: the text for "ansi", printed for "human",
    nothing without a render mode."""
    if render_mode is None:
        return None
    text = describe(game)
    if render_mode == "human":
        print(text)
        return None
    return text
