"""The trainer's benchmark in PyTorch, for comparison: the same net, loss, optimiser and batch.

Run by hand, not by CI (it needs `torch` and `numpy`):

    cargo run --release -p tigers-core --example train-bench -- --dump /tmp/samples.f32
    python3 core/examples/train_bench_torch.py /tmp/samples.f32 [--threads 1] [--steps 2000]

The samples are the ones `train-bench` played, as rows of 54 inputs and the target (little-endian
`f32`). The net is 54-64-32-1 with ReLU and a tanh output, the loss the mean squared error, the
optimiser Adam at 1e-3, batches of 256 drawn uniformly with replacement. Unlike the Rust trainer
this draws no symmetric images and keeps no replay window, so it does less work per example.
Prints `samples/s N` over the timed steps.
"""

import argparse
import time

import numpy as np
import torch


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("samples")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rows = np.fromfile(args.samples, dtype="<f4").reshape(-1, 55)
    inputs = torch.from_numpy(rows[:, :54].copy())
    targets = torch.from_numpy(rows[:, 54:].copy())
    net = torch.nn.Sequential(
        torch.nn.Linear(54, 64),
        torch.nn.ReLU(),
        torch.nn.Linear(64, 32),
        torch.nn.ReLU(),
        torch.nn.Linear(32, 1),
        torch.nn.Tanh(),
    )
    adam = torch.optim.Adam(net.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)

    def step() -> float:
        pick = torch.randint(len(inputs), (args.batch,))
        loss = torch.nn.functional.mse_loss(net(inputs[pick]), targets[pick])
        adam.zero_grad(set_to_none=True)
        loss.backward()
        adam.step()
        return loss.item()

    # A few steps first, as the Rust benchmark does.
    for _ in range(10):
        step()
    started = time.perf_counter()
    for _ in range(args.steps):
        last = step()
    seconds = time.perf_counter() - started
    print(
        f"{args.steps} steps of {args.batch} on {args.threads} threads in {seconds:.3f} s;"
        f" loss {last:.4f} at the end"
    )
    print(f"samples/s {args.steps * args.batch / seconds:.0f}")


if __name__ == "__main__":
    main()
