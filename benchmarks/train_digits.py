"""Train the two digits classifiers of ``bench_bab.py`` once (sklearn ``MLPClassifier``, relu,
seed 0) and store their float32 weights in ``benchmarks/data/digits_<widths>.npz``.

    python benchmarks/train_digits.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def main():
    from sklearn.datasets import load_digits
    from sklearn.neural_network import MLPClassifier
    X, y = load_digits(return_X_y=True)
    out = Path(__file__).parent / "data"
    out.mkdir(exist_ok=True)
    for hidden in ((32,), (32, 16)):
        clf = MLPClassifier(hidden_layer_sizes=hidden, activation="relu", random_state=0, max_iter=300)
        clf.fit(X, y)
        arrays = {}
        for i, (W, b) in enumerate(zip(clf.coefs_, clf.intercepts_)):
            arrays[f"W{i}"] = W.T.astype(np.float32)
            arrays[f"b{i}"] = b.astype(np.float32)
        name = "digits_" + "-".join(map(str, (64,) + hidden + (10,))) + ".npz"
        np.savez_compressed(out / name, **arrays)
        print(name, f"train accuracy {clf.score(X, y):.3f}")


if __name__ == "__main__":
    main()
