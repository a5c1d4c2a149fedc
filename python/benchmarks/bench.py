"""Figures for docs/benchmarks.md ("The Python package"): random playouts driven from Python
through the batch calls, beside the pure-Python `baghchal` package and the Rust engine's own
playouts; observations for a batch of 100,000 positions; probes of the movement table by the
array. Prints one line a figure; compare the ratios printed within one run.

    python python/benchmarks/bench.py [--games N] [--baghchal-games N]
"""

from __future__ import annotations

import argparse
import os
import random
import time

import numpy as np

import tigers_and_sheep as ts

MAX_PLIES = 300


def batch_playouts(games: int, seed: int, size: int) -> tuple[float, int]:
    """Seconds and plies for `games` random games stepped from Python, one call a ply for a
    batch of `size` games at a time."""
    rng = np.random.default_rng(seed)
    plies = 0
    start = time.perf_counter()
    for first in range(0, games, size):
        n = min(size, games - first)
        batch = ts.GameBatch(n, max_plies=MAX_PLIES)
        while True:
            counts = batch.legal_counts()
            if not counts.any():
                break
            batch.play_nth((rng.random(n) * counts).astype(np.int64))
        plies += int(batch.plies().sum())
    return time.perf_counter() - start, plies


def rust_playouts(games: int, seed: int) -> tuple[float, int]:
    start = time.perf_counter()
    counts = ts.random_playouts(games, seed=seed, max_plies=MAX_PLIES)
    return time.perf_counter() - start, counts["plies"]


def baghchal_playouts(games: int, seed: int) -> tuple[float, int]:
    """The `baghchal` package's own random games: its legal moves, a uniform choice, its move
    without its checks of the move, which is legal (a game is cut off at the same ply bound)."""
    here = os.getcwd()
    try:
        from baghchal.env import Board  # changes the working directory on import
    finally:
        os.chdir(here)
    rng = random.Random(seed)
    plies = 0
    start = time.perf_counter()
    for _ in range(games):
        board = Board()
        while not board.is_game_over() and board.no_of_moves_made < MAX_PLIES:
            board.safe_move(rng.choice(sorted(board.possible_moves())))
            plies += 1
    return time.perf_counter() - start, plies


def observations(count: int, seed: int) -> None:
    batch = ts.GameBatch(count, max_plies=MAX_PLIES)
    rng = np.random.default_rng(seed)
    stops = rng.integers(0, 120, count)
    for ply in range(120):
        counts = batch.legal_counts() * (stops > ply)
        batch.play_nth((rng.random(count) * counts).astype(np.int64))
    codes = batch.codes()
    for name, call in [
        ("encode v2", lambda: ts.encode(codes, 2)),
        ("planes", lambda: ts.planes(codes)),
        ("legal_masks", lambda: ts.legal_masks(codes)),
    ]:
        best = min(timed(call) for _ in range(5))
        print(f"{name}: {count:,} positions in {best * 1000:.1f} ms (best of 5)")


def timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def probes(count: int, seed: int) -> None:
    tables = ts.Tables(movement=True, placement=False)
    batch = ts.GameBatch(count, max_plies=MAX_PLIES)
    rng = np.random.default_rng(seed)
    # Random games into the movement phase: 20 placements and the tigers' replies, and more.
    for ply in range(40 + 20):
        batch.play_nth((rng.random(count) * batch.legal_counts()).astype(np.int64))
    codes = batch.codes()
    in_movement = (codes >> np.uint64(57)) & np.uint64(31) == 0
    codes = codes[in_movement & (ts.terminal(codes) == 0)]
    best = min(timed(lambda: tables.probe_codes(codes)) for _ in range(5))
    print(
        f"movement probes: {len(codes):,} positions in {best * 1000:.1f} ms, "
        f"{len(codes) / best / 1e6:.2f} million a second (best of 5)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=4_000, help="games a GameBatch plays at once")
    parser.add_argument("--baghchal-games", type=int, default=100)
    parser.add_argument("--observations", type=int, default=100_000)
    parser.add_argument("--probes", type=int, default=1_000_000)
    args = parser.parse_args()
    rates = {}
    whole = f"GameBatch of {args.games:,} at once"
    for name, run, games in [
        ("baghchal (pure Python)", baghchal_playouts, args.baghchal_games),
        ("GameBatch from Python", lambda n, s: batch_playouts(n, s, args.batch), args.games),
        (whole, lambda n, s: batch_playouts(n, s, n), args.games),
        ("Rust alone (random_playouts)", rust_playouts, args.games),
    ]:
        seconds, plies = run(games, 1)
        rates[name] = games / seconds
        print(
            f"{name}: {games:,} games, {plies:,} plies in {seconds:.2f} s: "
            f"{games / seconds:,.0f} games/s, {plies / seconds:,.0f} plies/s"
        )
    python = rates["GameBatch from Python"]
    print(f"GameBatch / baghchal: {python / rates['baghchal (pure Python)']:.0f}x")
    rust = rates["Rust alone (random_playouts)"]
    print(f"GameBatch ({args.batch:,} games a batch) / Rust alone: {python / rust:.2f}")
    print(f"{whole} / Rust alone: {rates[whole] / rust:.2f}")
    observations(args.observations, 2)
    if ts.Tables().has_movement:
        probes(args.probes, 3)
    else:
        print("movement probes: no movement table here (tui tablebase build)")


if __name__ == "__main__":
    main()
