"""A character-level language model built from causal self-attention blocks (a tiny GPT).

It learns to continue Python source code, read at run time from the Python standard library's own ``.py`` files
(no download; the Zen of Python is the fallback when the sources are not installed), and prints a sample after
training. Run it with ``trainer fit examples/char_transformer/config.yaml``.
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
import math
from typing import List, Optional

import numpy as np

import ember as em
from ember.core import nn, optim
from ember.core.data import DataLoader, TensorDataset
from ember.core.nn import functional as F

VOCAB_SIZE = 128  # 7-bit ASCII; any other character is read as "?"


def encode(text: str) -> np.ndarray:
    """Characters to ASCII codes (0..127)."""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    return np.where(codes < VOCAB_SIZE, codes, ord("?")).astype(np.int64)


def decode(codes) -> str:
    """ASCII codes back to text."""
    return "".join(chr(int(c)) for c in codes)


def zen_of_python() -> str:
    """The Zen of Python, from the standard library's ``this`` module (which prints it when imported)."""
    with contextlib.redirect_stdout(io.StringIO()):
        import this
    return "".join(this.d.get(c, c) for c in this.s)


def stdlib_text(modules: List[str]) -> str:
    """The source code of the given standard-library modules, concatenated; the Zen of Python if none is found."""
    parts = []
    for name in modules:
        spec = importlib.util.find_spec(name)
        origin = getattr(spec, "origin", None) if spec is not None else None
        if origin and origin.endswith(".py"):
            with open(origin, encoding="utf-8", errors="replace") as f:
                parts.append(f.read())
    return "\n".join(parts) if parts else zen_of_python() * 50


class PythonSourceText(em.LightningDataModule):
    """Windows of ``block_size + 1`` characters of Python source; the model predicts each next character.

    Args:
        modules: standard-library modules whose source is the training text.
        block_size: characters of context per sample.
        windows_per_epoch: training windows per epoch, at random offsets drawn once with ``split_seed``.
        batch_size: windows per batch.
        val_fraction: the last fraction of the text, held out for validation.
        split_seed: seed of the window offsets.
    """

    def __init__(self, modules: Optional[List[str]] = None, block_size: int = 64, windows_per_epoch: int = 4096,
                 batch_size: int = 32, val_fraction: float = 0.1, split_seed: int = 0) -> None:
        super().__init__()
        self.modules = list(modules) if modules is not None else ["textwrap", "string", "shlex", "fnmatch"]
        self.block_size = block_size
        self.windows_per_epoch = windows_per_epoch
        self.batch_size = batch_size
        self.val_fraction = val_fraction
        self.split_seed = split_seed

    def _windows(self, codes: np.ndarray, count: int, rng) -> TensorDataset:
        starts = rng.integers(0, len(codes) - self.block_size - 1, size=count)
        idx = starts[:, None] + np.arange(self.block_size + 1)
        chunks = codes[idx]
        return TensorDataset(em.tensor(chunks[:, :-1]), em.tensor(chunks[:, 1:]))

    def setup(self, stage: str) -> None:
        codes = encode(stdlib_text(self.modules))
        split = int(len(codes) * (1 - self.val_fraction))
        rng = np.random.default_rng(self.split_seed)
        self.train_set = self._windows(codes[:split], self.windows_per_epoch, rng)
        self.val_set = self._windows(codes[split:], max(64, self.windows_per_epoch // 16), rng)

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=128)


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention in which each position sees only itself and earlier positions."""

    def __init__(self, d_model: int, n_heads: int, dropout: float) -> None:
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} must be divisible by n_heads={n_heads}")
        self.n_heads = n_heads
        self.dropout = dropout
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        heads = lambda z: z.view(b, t, self.n_heads, c // self.n_heads).transpose(1, 2)  # noqa: E731
        y = F.scaled_dot_product_attention(heads(q), heads(k), heads(v), is_causal=True,
                                           dropout_p=self.dropout if self.training else 0.0)
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


class Block(nn.Module):
    """A pre-norm transformer block: ``x + attention(ln(x))``, then ``x + mlp(ln(x))``."""

    def __init__(self, d_model: int, n_heads: int, dropout: float) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_heads, dropout)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model),
                                 nn.Dropout(dropout))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class CharTransformer(em.LightningModule):
    """A GPT-style character model: token and position embeddings, ``n_layers`` causal blocks, a linear head.

    Args:
        block_size: the longest context the model reads (its number of position embeddings).
        d_model: width of the embeddings and the blocks.
        n_heads: attention heads per block.
        n_layers: number of blocks.
        dropout: dropout probability inside the blocks.
        lr: AdamW's peak learning rate (cosine decay over the run).
        sample_prompt: the text the sample printed after training starts from.
        sample_length: characters to generate for the sample.
        temperature: sampling temperature (lower is more conservative).
    """

    def __init__(self, block_size: int = 64, d_model: int = 64, n_heads: int = 4, n_layers: int = 2,
                 dropout: float = 0.0, lr: float = 3e-3, sample_prompt: str = "def ", sample_length: int = 200,
                 temperature: float = 0.8) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.tok_emb = nn.Embedding(VOCAB_SIZE, d_model)
        self.pos_emb = nn.Embedding(block_size, d_model)
        self.blocks = nn.Sequential(*[Block(d_model, n_heads, dropout) for _ in range(n_layers)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, VOCAB_SIZE)

    def forward(self, idx):
        """Next-character logits ``(batch, time, 128)`` for the codes ``idx`` ``(batch, time)``."""
        t = idx.shape[1]
        if t > self.hparams.block_size:
            raise ValueError(f"a sequence of {t} characters is longer than block_size={self.hparams.block_size}")
        x = self.tok_emb(idx) + self.pos_emb(em.arange(t))
        return self.head(self.ln_f(self.blocks(x)))

    def _loss(self, batch):
        x, y = batch
        logits = self(x)
        return F.cross_entropy(logits.reshape(-1, VOCAB_SIZE), y.reshape(-1))

    def training_step(self, batch, batch_idx):
        loss = self._loss(batch)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        self.log("val_loss", self._loss(batch), prog_bar=True)

    def configure_optimizers(self):
        opt = optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=0.01)
        total = max(1, int(self.trainer.estimated_stepping_batches))
        schedule = optim.lr_scheduler.LambdaLR(opt, lambda step: 0.5 * (1 + math.cos(math.pi * min(step, total)
                                                                                      / total)))
        return {"optimizer": opt, "lr_scheduler": {"scheduler": schedule, "interval": "step"}}

    @em.no_grad()
    def generate(self, prompt: str, length: int, temperature: float = 1.0) -> str:
        """Continue ``prompt`` by ``length`` characters, sampling each from the model's distribution."""
        was_training = self.training
        self.eval()
        codes = list(encode(prompt)) or [ord("\n")]
        for _ in range(length):
            context = em.tensor([codes[-self.hparams.block_size:]])
            probs = F.softmax(self(context)[0, -1] / temperature, dim=-1)
            u = float(em.rand(1))
            codes.append(min(VOCAB_SIZE - 1, int((probs.cumsum(0) < u).sum())))  # inverse-CDF sampling
        self.train(was_training)
        return decode(codes)

    def on_fit_end(self) -> None:
        if self.trainer.is_global_zero and self.hparams.sample_length > 0:
            print("sample:")
            print(self.generate(self.hparams.sample_prompt, self.hparams.sample_length, self.hparams.temperature))
