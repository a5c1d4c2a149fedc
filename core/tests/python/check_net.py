"""Reads a net file written by `cargo run -p tigers-core --example net` with the `safetensors`
and `numpy` packages, checks its tensors and metadata against docs/training.md, and recomputes
the net's value of each position the example printed, encoding the positions from their text.

Usage: python3 check_net.py NET_FILE VALUES_FILE
Exits non-zero, saying what differs, on any mismatch.
"""

import hashlib
import sys

import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file


def encode(position: str) -> np.ndarray:
    """Input encoding version 1, written from its documentation."""
    rows, side, in_hand = position.split(" ")
    x = np.zeros(54, dtype=np.float32)
    sheep_on_board = 0
    for y, row in enumerate(rows.split("/")):
        for file, piece in enumerate(row):
            point = file + 5 * y
            if piece == "T":
                x[point] = 1.0
            elif piece == "S":
                x[25 + point] = 1.0
                sheep_on_board += 1
    in_hand = int(in_hand)
    dead = 20 - in_hand - sheep_on_board
    x[50] = in_hand / 20.0
    x[51] = dead / 5.0
    x[52] = 1.0 if side == "t" else 0.0
    x[53] = 1.0 if in_hand > 0 else 0.0
    return x


def main() -> int:
    net_path, values_path = sys.argv[1], sys.argv[2]
    tensors = load_file(net_path)
    with safe_open(net_path, framework="numpy") as f:
        metadata = f.metadata()
    expected_meta = {
        "format": "tigers-and-sheep-net",
        "format_version": "1",
        "input_version": "1",
        "layers": "54,64,32,1",
        "generation": "7",
    }
    for key, value in expected_meta.items():
        if metadata.get(key) != value:
            print(f"metadata {key}: {metadata.get(key)!r}, expected {value!r}")
            return 1
    shapes = {
        "layer1.weight": (54, 64),
        "layer1.bias": (64,),
        "layer2.weight": (64, 32),
        "layer2.bias": (32,),
        "output.weight": (32, 1),
        "output.bias": (1,),
    }
    for name, shape in shapes.items():
        if tensors[name].shape != shape or tensors[name].dtype != np.float32:
            print(f"{name}: {tensors[name].dtype} {tensors[name].shape}, expected float32 {shape}")
            return 1
    with open(values_path) as lines:
        header = lines.readline().split()
        digest = hashlib.sha256(open(net_path, "rb").read()).hexdigest()
        if header != ["sha256", digest]:
            print(f"sha256 {digest}, the example printed {header}")
            return 1
        checked = 0
        for line in lines:
            position, value = line.rstrip("\n").split("\t")
            x = encode(position)
            h1 = np.maximum(x @ tensors["layer1.weight"] + tensors["layer1.bias"], 0)
            h2 = np.maximum(h1 @ tensors["layer2.weight"] + tensors["layer2.bias"], 0)
            out = np.tanh(h2 @ tensors["output.weight"] + tensors["output.bias"])[0]
            if abs(out - float(value)) > 1e-5:
                print(f"{position}: numpy gives {out}, Rust gave {value}")
                return 1
            checked += 1
    print(f"numpy reads the net and agrees with Rust on {checked} positions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
