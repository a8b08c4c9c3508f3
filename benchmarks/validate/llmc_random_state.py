"""Write the two files llm.c's test programs read (gpt2_124M.bin, gpt2_124M_debug_state.bin) with no download:
a randomly initialised GPT-2 built by llm.c's own train_gpt2.py (its GPT class, write_model and write_state),
run on seeded random tokens in float32 on the CPU. Usage, in an llm.c checkout:

    python3 PATH/llmc_random_state.py [--layers 4 --heads 4 --width 256 --batch 4 --seq 64 --seed 1337]

The test programs compare their logits, loss and gradients with this state (their own tolerances) and print
ten training steps' losses; their fixed expected losses belong to the pretrained GPT-2, so with random weights
their "overall okay" line reads 0 by construction, and a validate spec reads the per-item checks instead.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch


def main() -> None:
    parser = argparse.ArgumentParser()
    for name, default in (("layers", 4), ("heads", 4), ("width", 256), ("batch", 4), ("seq", 64), ("seed", 1337)):
        parser.add_argument(f"--{name}", type=int, default=default)
    args = parser.parse_args()
    sys.path.insert(0, str(Path.cwd()))
    import train_gpt2 as llmc  # llm.c's own script: its model and its file writers

    torch.manual_seed(args.seed)
    model = llmc.GPT(llmc.GPTConfig(block_size=1024, vocab_size=50257, n_layer=args.layers, n_head=args.heads,
                                    n_embd=args.width))
    model.train()
    generator = torch.Generator().manual_seed(args.seed)
    tokens = torch.randint(0, 50257, (args.batch, args.seq + 1), generator=generator)
    x, y = tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()
    logits, loss = model(x, y)
    loss.backward()
    llmc.write_model(model, "gpt2_124M.bin", dtype="float32")
    llmc.write_state(model, x, y, logits, loss, "gpt2_124M_debug_state.bin")
    print(f"random GPT-2 ({args.layers} layers, width {args.width}); loss {loss.item():.6f}")


if __name__ == "__main__":
    main()
