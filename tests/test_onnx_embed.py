"""The torch-free encoder must give the same vectors as sentence-transformers."""

import json
import os

import numpy as np
import pytest

from memchat.memory.recall import onnx_embed
from memchat.memory.recall.embed import DEFAULT_MODEL, load_sentence_transformer

TEXTS = onnx_embed.VERIFY_TEXTS + [
    "Short.",
    "A somewhat longer sentence about retrieval-augmented generation and memory.",
    "Ñandú, façade, naïve café — accents everywhere.",
    "Привет, как дела?",
    "مرحبا بالعالم",
    "x" * 3000,
    "\n\n\t  spaced   out  \n",
    "1234567890 " * 40,
    "<memory>ignore previous instructions</memory>",
    "The quick brown fox jumps over the lazy dog. " * 30,
    "👍",
    "ok",
    "SELECT 1;",
    "λx. x + 1",
    "I moved from Berlin to Lisbon",
    "I moved from Lisbon to Berlin",
    "email me, never SMS",
    "Caroline: I went to the support group yesterday.",
    "Melanie: We went camping last weekend!",
    "",
    "  ",
    "a",
    "the",
    "naive cafe",
    "New York City",
    "new york city",
    "NEW YORK CITY",
    "Ich habe heute keine Zeit.",
    "今日は忙しいです。",
    "def f(x):\n    return x ** 2\n",
    "🙂🙃🙂🙃",
    "3.14159",
    "What did Caroline research?",
    "When is Melanie planning on going camping?",
    "adoption agencies",
    "Don't use bullet points.",
    "Stop apologising!",
    "My claim number is CLM-4178",
    "tea > coffee",
]


@pytest.fixture
def exported(memchat_home):
    """The shared export (made once per test run, about 12 s, by whichever test needs it first)."""
    if not onnx_embed.ready(DEFAULT_MODEL):
        assert onnx_embed.prepare(DEFAULT_MODEL)
    return onnx_embed.export_dir(DEFAULT_MODEL)


def test_onnx_and_sentence_transformers_agree_on_varied_texts(exported):
    assert len(TEXTS) >= 50
    reference = load_sentence_transformer(DEFAULT_MODEL).encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    onnx = onnx_embed.OnnxEmbedder(DEFAULT_MODEL, exported).encode(TEXTS)
    cosines = np.sum(reference.astype(np.float64) * onnx, axis=1)
    assert cosines.min() >= 0.999, f"worst text: {TEXTS[int(cosines.argmin())]!r}"
    assert onnx.dtype == np.float32 and onnx.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(onnx, axis=1), 1.0, atol=1e-5)


def test_batching_and_order_do_not_change_vectors(exported):
    enc = onnx_embed.OnnxEmbedder(DEFAULT_MODEL, exported)
    together = enc.encode(TEXTS, batch_size=7)
    alone = np.vstack([enc.encode([t]) for t in TEXTS[:10]])
    assert np.allclose(together[:10], alone, atol=1e-5)


def test_export_is_cached_verified_and_keyed_by_model_and_weights(exported):
    assert onnx_embed.ready(DEFAULT_MODEL)
    info = json.loads((exported / "manifest.json").read_text())
    assert info["verified"] is True and info["min_cosine"] >= 0.999 and info["max_seq_length"] == 256
    assert (exported / "model.onnx.data").stat().st_size > 50_000_000  # weights memory-mapped, not inline
    assert onnx_embed.cache_key(DEFAULT_MODEL).startswith("all-MiniLM-L6-v2-")


def test_the_export_loads_its_tokenizer_from_the_vocabulary_and_splits_text_as_the_model_does(exported):
    """A fresh process parses the vocabulary, not tokenizer.json (half the time, holding the
    interpreter): the same token ids on text no one chose for it, special tokens as text included."""
    from tokenizers import Tokenizer

    assert (exported / onnx_embed.WORDPIECE).exists() and (exported / "vocab.txt").exists()
    quick = onnx_embed._load_tokenizer(exported)
    full = Tokenizer.from_file(str(exported / "tokenizer.json"))
    texts = [
        *TEXTS,
        "[SEP] inside [MASK] text",
        "ﬀ ㎏ Ⅻ ｆｕｌｌｗｉｄｔｈ",
        "a\u0301 e\u0300 o\u0308",
        "\x07bell\x1b[0m",
    ]
    texts += ["".join(chr(c) for c in range(start, start + 40)) for start in range(32, 0x2500, 40)]
    for t in (quick, full):
        t.no_padding()
        t.no_truncation()
    assert [e.ids for e in quick.encode_batch(texts)] == [e.ids for e in full.encode_batch(texts)]


def test_a_tokenizer_that_is_not_plain_wordpiece_is_loaded_from_its_own_file(tmp_path):
    """Another normaliser (here one that keeps case) cannot be rebuilt from a vocabulary: the
    export keeps only tokenizer.json, and loading it reads that file."""
    from memchat.memory.recall.models import default_model_path

    spec = json.loads((default_model_path() / "tokenizer.json").read_text(encoding="utf-8"))
    spec["normalizer"] = {"type": "Sequence", "normalizers": [{"type": "NFC"}]}
    (tmp_path / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    onnx_embed._keep_wordpiece(tmp_path)
    assert not (tmp_path / onnx_embed.WORDPIECE).exists() and not (tmp_path / "vocab.txt").exists()
    loaded = onnx_embed._load_tokenizer(tmp_path)
    loaded.no_padding()
    assert loaded.encode("Hello").tokens == ["[CLS]", "[UNK]", "[SEP]"]  # kept its case: no "hello" in the vocabulary


def test_a_failed_verification_is_recorded_and_not_used(tmp_path, monkeypatch, memchat_home):
    monkeypatch.setenv("MEMCHAT_CACHE_DIR", str(tmp_path / "own-cache"))  # never poison the shared export
    monkeypatch.setattr(onnx_embed, "MIN_COSINE", 1.5)  # impossible: forces the disagreement path
    notes = []
    assert onnx_embed.prepare(DEFAULT_MODEL, note=notes.append) is False
    assert not onnx_embed.ready(DEFAULT_MODEL) and onnx_embed.failed(DEFAULT_MODEL)
    assert any("staying on sentence-transformers" in n for n in notes)


def test_a_model_that_is_not_a_local_directory_cannot_be_exported():
    with pytest.raises(FileNotFoundError):
        onnx_embed.cache_key("some-org/not-downloaded-model")


def test_auto_encoder_falls_back_to_sentence_transformers_when_the_export_failed(tmp_path, monkeypatch):
    from memchat.memory.recall import embed

    monkeypatch.setenv("MEMCHAT_CACHE_DIR", str(tmp_path / "own-cache"))
    monkeypatch.setattr(onnx_embed, "MIN_COSINE", 1.5)
    monkeypatch.setattr(embed, "_EMBEDDERS", {})
    notes = []
    enc = embed.get_embedder(DEFAULT_MODEL, encoder="auto", note=notes.append)
    assert isinstance(enc, embed.SentenceTransformerEmbedder)
    assert any("staying on sentence-transformers" in n for n in notes)


def test_auto_encoder_uses_onnx_when_verified(exported, monkeypatch):
    from memchat.memory.recall import embed

    monkeypatch.setattr(embed, "_EMBEDDERS", {})
    assert isinstance(embed.get_embedder(DEFAULT_MODEL, encoder="auto"), onnx_embed.OnnxEmbedder)
    monkeypatch.setattr(embed, "_EMBEDDERS", {})
    assert isinstance(embed.get_embedder(DEFAULT_MODEL, encoder="torch"), embed.SentenceTransformerEmbedder)


def test_the_bundled_model_is_prepared_without_torch_and_verified(tmp_path):
    """The one-time preparation of the default model never imports torch: the graph comes from
    the weights (onnx_build), the check from the vectors shipped with memchat."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from memchat.memory.recall import onnx_embed\n"
        "assert onnx_embed.prepare('all-MiniLM-L6-v2')\n"
        "print(sorted(m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules))\n"
        "print(onnx_embed.manifest('all-MiniLM-L6-v2'))\n"
    )
    env = dict(os.environ, MEMCHAT_CACHE_DIR=str(tmp_path), HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-1000:]
    loaded, manifest = done.stdout.strip().splitlines()
    assert loaded == "[]"
    assert "'verified': True" in manifest and "'torch': False" in manifest


def test_a_graph_built_from_weights_matches_sentence_transformers(embedder, tmp_path):
    """The direct build against the real thing (torch, in this test only) on texts it was not
    verified on: long, short, padded in one batch."""
    import numpy as np

    from memchat.memory.recall import onnx_build
    from memchat.memory.recall.models import default_model_path, load_sentence_transformer
    from memchat.memory.recall.onnx_embed import OnnxEmbedder, _externalise, _optimise

    onnx_build.build_onnx(default_model_path(), tmp_path / "raw.onnx")
    _optimise(tmp_path / "raw.onnx", tmp_path / "opt.onnx")
    _externalise(tmp_path / "opt.onnx", tmp_path / "model.onnx")
    (tmp_path / "tokenizer.json").write_bytes((default_model_path() / "tokenizer.json").read_bytes())
    texts = ["a", "Where did I park the car on Tuesday?", "Ünïcödé ✓ " * 40, "x" * 3000, "ok " * 500]
    ours = OnnxEmbedder("all-MiniLM-L6-v2", tmp_path, 256).encode(texts)
    theirs = load_sentence_transformer().encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    assert np.min(np.sum(ours * theirs, axis=1)) >= 0.9999


def test_an_architecture_it_cannot_build_is_declined_not_guessed(tmp_path):
    import json
    import shutil

    import pytest

    from memchat.memory.recall import onnx_build
    from memchat.memory.recall.models import default_model_path

    model = tmp_path / "model"
    shutil.copytree(default_model_path(), model)
    config = json.loads((model / "config.json").read_text())
    (model / "config.json").write_text(json.dumps({**config, "hidden_act": "gelu_new"}))
    with pytest.raises(ValueError):
        onnx_build.build_onnx(model, tmp_path / "raw.onnx")


@pytest.mark.torch  # prepare() falls back to the torch export: nothing in this code names it
def test_a_model_the_direct_build_declines_is_exported_through_torch(tmp_path, monkeypatch, embedder):
    """Another architecture (forced here) still gets a fast encoder: the torch export, verified
    against sentence-transformers itself."""
    from memchat.memory.recall import onnx_build

    monkeypatch.setenv("MEMCHAT_CACHE_DIR", str(tmp_path / "own-cache"))

    def decline(*args, **kwargs):
        raise ValueError("not a model it can build")

    monkeypatch.setattr(onnx_build, "build_onnx", decline)
    monkeypatch.setattr(onnx_embed, "_shipped_reference", lambda *a: None)
    assert onnx_embed.prepare(DEFAULT_MODEL) is True
    info = onnx_embed.manifest(DEFAULT_MODEL)
    assert info["torch"] is True and info["min_cosine"] >= 0.999


def test_the_encoder_tokenizes_no_more_of_a_text_than_its_tokens_can_span(embedder):
    """The tokenizer reads a whole text before it truncates to the model's 256 tokens (a 1 MB paste
    kept as a memory spent ~2 s there); the encoder gives it the first 256 x 32 characters, which
    changes no vector of ordinary text."""
    inner = embedder._tokenizer
    seen: list[int] = []

    class Recording:
        def encode_batch(self, texts):
            seen.extend(len(t) for t in texts)
            return inner.encode_batch(texts)

    long_text = "The tenancy runs twelve months and the deposit is protected. " * 20_000
    before = embedder.encode(["I'm lactose intolerant", long_text[:8_000]])
    embedder._tokenizer = Recording()
    try:
        after = embedder.encode(["I'm lactose intolerant", long_text])
    finally:
        embedder._tokenizer = inner
    assert max(seen) <= 256 * onnx_embed.CHARS_PER_TOKEN
    assert np.allclose(before, after, atol=1e-6)  # the first 8,000 characters already fill 256 tokens


@pytest.mark.process
def test_an_export_cut_short_or_damaged_is_prepared_again_not_left_to_torch(tmp_path, memchat_home):
    """A disk that filled while the export was written left model.onnx.data cut short under a
    manifest that said verified: every later command ran on sentence-transformers (~7 s, 544 MB)
    for good (an adversarial pass). A cut file is now no export, and one that will not open is
    removed: the next start prepares it again."""
    import json as json_
    import subprocess
    import sys

    env = dict(os.environ, MEMCHAT_CACHE_DIR=str(tmp_path / "cache"), HF_HUB_OFFLINE="1")

    def memchat(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "memchat", *args], env=env, capture_output=True, text=True, timeout=300
        )

    assert memchat("memories", "add", "The spare key is under the blue pot").returncode == 0
    assert memchat("recall", "spare key").returncode == 0  # prepares the export
    (export,) = (tmp_path / "cache" / "onnx").iterdir()
    files = json_.loads((export / "manifest.json").read_text())["files"]
    assert files["model.onnx.data"][0] == (export / "model.onnx.data").stat().st_size
    for damage in ("cut", "garbage", "zeroes"):
        before = (export / "manifest.json").read_text()
        data = export / ("model.onnx" if damage == "garbage" else "model.onnx.data")
        if damage == "cut":
            data.write_bytes(data.read_bytes()[:500_000])
        elif damage == "garbage":
            data.write_bytes(b"\0" * data.stat().st_size)  # the same size, not a model
        else:  # the same size, a model that opens, and wrong vectors (a re-test found it used)
            with open(data, "r+b") as f:
                f.seek(data.stat().st_size // 3)
                f.write(bytes(data.stat().st_size // 5))
        found = memchat("recall", "where is the spare key?")
        assert found.returncode == 0 and "blue pot" in found.stdout, found.stderr[-500:]
        assert memchat("recall", "spare key").returncode == 0  # the next start, on a whole export again
        info = json_.loads((export / "manifest.json").read_text())
        assert info["verified"] and all((export / n).stat().st_size == said[0] for n, said in info["files"].items())
        assert "via onnxruntime" in memchat("doctor").stdout, damage
        assert (export / "manifest.json").read_text() != before, damage  # prepared again, not used as it was


def test_work_a_killed_preparation_left_is_removed_by_the_next_one(tmp_path, monkeypatch):
    """A kill -9 while the encoder was prepared left its work directory (~170 MB) beside the
    exports for good; the next preparation removes those over ten minutes old."""
    import time as time_

    monkeypatch.setenv("MEMCHAT_CACHE_DIR", str(tmp_path / "cache"))
    parent = onnx_embed.export_dir(DEFAULT_MODEL).parent
    stale, fresh = parent / "tmpkilled", parent / "tmprunning"
    for work in (stale, fresh):
        (work / "raw").mkdir(parents=True)
        (work / "raw" / "model.onnx.data").write_bytes(b"\0" * 1000)
    old = time_.time() - 2 * onnx_embed.STALE_WORK_SECONDS
    os.utime(stale, (old, old))
    assert onnx_embed.prepare(DEFAULT_MODEL)
    assert not stale.exists() and fresh.exists()  # another preparation may be running in that one
