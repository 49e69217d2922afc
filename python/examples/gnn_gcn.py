#!/usr/bin/env python3
"""A two-layer graph convolutional network (GCN, Kipf & Welling) forward pass with loom.spmm,
checked against SciPy/NumPy.

    python3 gnn_gcn.py [nodes] [features] [--torch | --cuda]

The graph is a generated power-law graph (Chung-Lu: a few hubs, many low-degree nodes, as in
social and citation graphs); its normalized adjacency D^-1/2 (A + I) D^-1/2 is a SciPy CSR
matrix that Loom views without a copy. Each layer is H' = act(A_hat @ (H @ W)): the dense
product by NumPy/PyTorch, the sparse aggregation by loom.spmm. With --torch the features are
PyTorch CPU tensors, with --cuda PyTorch CUDA tensors (the matrix is copied to the device once,
and loom.spmm runs on the current stream); the answer comes back as the caller's kind.
"""

import argparse
import time

import numpy as np
import scipy.sparse as sp

import loom


def power_law_graph(nodes, average_degree=8, exponent=2.5, seed=0):
    """An undirected Chung-Lu graph: node i has expected degree proportional to
    (i + 1)^(-1 / (exponent - 1)); no self loops, no duplicate edges, as a SciPy CSR."""
    rng = np.random.default_rng(seed)
    weights = np.arange(1, nodes + 1, dtype=np.float64) ** (-1.0 / (exponent - 1))
    edges = nodes * average_degree // 2
    p = weights / weights.sum()
    src = rng.choice(nodes, size=edges, p=p)
    dst = rng.choice(nodes, size=edges, p=p)
    keep = src != dst
    A = sp.coo_matrix((np.ones(keep.sum()), (src[keep], dst[keep])), shape=(nodes, nodes))
    A = (A + A.T).tocsr()
    A.data[:] = 1.0  # duplicates summed above: an edge is an edge
    return A


def normalized_adjacency(A):
    """D^-1/2 (A + I) D^-1/2 with D the degrees of A + I (int32 indices, as Loom's default)."""
    A_self = (A + sp.eye(A.shape[0], format="csr")).tocsr()
    d = 1.0 / np.sqrt(np.asarray(A_self.sum(axis=1)).ravel())
    A_hat = sp.diags(d) @ A_self @ sp.diags(d)
    A_hat = sp.csr_matrix(A_hat)
    A_hat.indptr = A_hat.indptr.astype(loom.index_types[0])
    A_hat.indices = A_hat.indices.astype(loom.index_types[0])
    return A_hat


def gcn_forward_numpy(A_hat, X, W1, W2):
    """The reference: SciPy's sparse product and NumPy."""
    H = np.maximum(A_hat @ (X @ W1), 0)
    return A_hat @ (H @ W2)


def gcn_forward_loom(A_hat, X, W1, W2, relu):
    """The same with loom.spmm doing the aggregation; X, W1, W2 NumPy arrays or tensors."""
    H = relu(loom.spmm(A_hat, X @ W1))
    return loom.spmm(A_hat, H @ W2)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("nodes", type=int, nargs="?", default=20000)
    parser.add_argument("features", type=int, nargs="?", default=64)
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--torch", action="store_true", help="PyTorch CPU tensors")
    kind.add_argument("--cuda", action="store_true", help="PyTorch CUDA tensors")
    args = parser.parse_args()

    A = power_law_graph(args.nodes)
    A_hat = normalized_adjacency(A)
    degrees = np.diff(A.indptr)
    print(f"graph: {A.shape[0]} nodes, {A.nnz // 2} edges, degrees {degrees.min()}.."
          f"{degrees.max()} (mean {degrees.mean():.1f})")

    rng = np.random.default_rng(1)
    hidden, classes = 32, 8
    X = rng.standard_normal((args.nodes, args.features))
    W1 = rng.standard_normal((args.features, hidden)) / np.sqrt(args.features)
    W2 = rng.standard_normal((hidden, classes)) / np.sqrt(hidden)
    expected = gcn_forward_numpy(A_hat, X, W1, W2)

    if args.torch or args.cuda:
        import torch

        device = "cuda" if args.cuda else "cpu"
        tensors = [torch.from_numpy(a).to(device) for a in (X, W1, W2)]
        # On the GPU the matrix is copied to the device once, for Loom to work on PyTorch's
        # current stream (ordered with the products around it, no synchronization).
        exec_ = loom.exec("cuda", stream=torch.cuda.current_stream()) if args.cuda else None
        matrix = loom.Csr(A_hat, exec=exec_)
        start = time.perf_counter()
        out = gcn_forward_loom(matrix, *tensors, relu=torch.relu)
        if args.cuda:
            torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        assert isinstance(out, torch.Tensor) and out.device.type == device
        out = out.cpu().numpy()
    else:
        matrix = loom.Csr(A_hat)  # views SciPy's arrays
        start = time.perf_counter()
        out = gcn_forward_loom(matrix, X, W1, W2, relu=lambda H: np.maximum(H, 0))
        seconds = time.perf_counter() - start

    difference = np.max(np.abs(out - expected)) / max(1.0, np.max(np.abs(expected)))
    print(f"GCN forward (2 layers, {args.features} -> {hidden} -> {classes}) with loom.spmm: "
          f"{seconds * 1e3:.1f} ms")
    print(f"max relative difference to SciPy/NumPy {difference:.2e}; agree: {difference < 1e-10}")


if __name__ == "__main__":
    main()
