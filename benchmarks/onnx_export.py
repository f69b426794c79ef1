"""ONNX export: what an export costs and what ONNX Runtime gives back, for each example model.

For each model the table shows, measured in the same run:

- ``export / forward``: the time of ``em.onnx.export`` (with a dynamic batch axis, so two traced runs) divided by
  one eval-mode ember forward at the traced batch size;
- ``ember / ORT``: an ember eval-mode forward (under ``no_grad``) divided by ONNX Runtime's ``session.run`` on the
  same batch (single-threaded ORT, the best of ``--repeat`` runs each), so > 1 means ONNX Runtime is faster.

    python benchmarks/onnx_export.py [--batch 64] [--repeat 20]
"""
from __future__ import annotations

import argparse
import importlib.util
import io
import os
import time

import ember as em

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _example(name):
    spec = importlib.util.spec_from_file_location(f"{name}_bench", os.path.join(ROOT, "examples", name, "model.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _models(batch):
    digits, ae, gan = _example("digits"), _example("autoencoder"), _example("gan")
    chars, distill = _example("char_transformer"), _example("distillation")
    lstm = em.nn.LSTM(64, 128, num_layers=2, batch_first=True)
    return [
        ("digits CNN", digits.DigitsClassifier(), em.rand(batch, 1, 8, 8)),
        ("autoencoder", ae.LitAutoEncoder(), em.rand(batch, 64)),
        ("GAN generator", gan.DigitGAN(), em.randn(batch, 16)),
        ("char transformer", chars.CharTransformer(), em.randint(0, chars.VOCAB_SIZE, (batch, 64))),
        ("distillation student", distill.Distillation().student, em.rand(batch, 64)),
        ("LSTM (2 layers, 128)", lstm, em.randn(batch, 32, 64)),
    ]


def _best(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    """Print the table."""
    import onnxruntime as ort
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    em.manual_seed(0)
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    print(f"batch {args.batch}, best of {args.repeat} runs")
    print(f"{'model':<24}{'forward ms':>12}{'export / forward':>18}{'ember / ORT':>13}")
    for name, model, x in _models(args.batch):
        model.eval()

        def forward():
            with em.no_grad():
                model(x)
        t_forward = _best(forward, args.repeat)
        buffer = io.BytesIO()
        t_export = _best(lambda: em.onnx.export(model, x, io.BytesIO(), input_names=["x"],
                                                dynamic_axes={"x": [0]}), max(3, args.repeat // 5))
        em.onnx.export(model, x, buffer, input_names=["x"], dynamic_axes={"x": [0]})
        session = ort.InferenceSession(buffer.getvalue(), options, providers=["CPUExecutionProvider"])
        feed = {"x": x.numpy()}
        t_ort = _best(lambda: session.run(None, feed), args.repeat)
        print(f"{name:<24}{t_forward * 1e3:>12.2f}{t_export / t_forward:>18.1f}{t_forward / t_ort:>13.2f}")


if __name__ == "__main__":
    main()
