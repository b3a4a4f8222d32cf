"""A torch-free encoder: the same sentence-transformers model run by onnxruntime + tokenizers.

Importing sentence-transformers costs ~7 s (torch, transformers, scipy); onnxruntime and
tokenizers load in ~0.2 s and a session with memory-mapped weights in ~0.1 s. The ONNX
graph (mean pooling over the attention mask and L2 normalisation inside it) is built once
from the model's weights (memchat.memory.recall.onnx_build; the torch export for architectures it
does not know), optimised once, saved with its weights as external data, and verified on a
fixed set of texts before it is ever used: against vectors sentence-transformers made for
the bundled model (shipped with memchat), or against sentence-transformers itself for any
other. It must agree to a cosine of at least 0.999 on each, or it is marked failed and
memchat stays on sentence-transformers.

The export lives in the XDG cache, keyed by model name and the weights file's identity,
with a manifest saying what was verified.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memchat.config import cache_dir
from memchat.files import private_umask
from memchat.memory.recall.models import (
    DEFAULT_MODEL,
    canonical_name,
    default_model_path,
    load_sentence_transformer,
    resolve_model,
)

if TYPE_CHECKING:
    import numpy as np

MIN_COSINE = 0.999
FORMAT = 2  # 2: a plain BERT WordPiece tokenizer is also kept as vocab.txt + wordpiece.json
# Empty, short, long (> 256 tokens), code, CJK, emoji, mixed case and punctuation.
VERIFY_TEXTS = [
    "",
    "hi",
    "I moved from Berlin to Lisbon last spring.",
    "My claim number is CLM-4178; email me, never SMS.",
    "def add(a, b):\n    return a + b  # sum two numbers",
    "東京で新しい仕事を始めました。",
    "Das Wetter ist heute schön, aber morgen regnet es.",
    "🎉🎂 birthday party on Saturday!!! 🥳",
    "SELECT * FROM memories WHERE kind = 'fact' AND status = 'active';",
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    " ".join(f"word{i} about the long history of the project" for i in range(120)),
]


CHARS_PER_TOKEN = 32  # what a model's max_seq_length tokens can span, at most, in any ordinary text


def _model_dir(model_name: str) -> Path:
    path = Path(resolve_model(model_name))
    if not path.is_dir():
        raise FileNotFoundError(f"{model_name!r} is not a local model directory")
    return path


def _weights_file(model_dir: Path) -> Path:
    for name in ("model.safetensors", "pytorch_model.bin"):
        if (model_dir / name).exists():
            return model_dir / name
    raise FileNotFoundError(f"no weights in {model_dir}")


def cache_key(model_name: str) -> str:
    """Model name + weights identity (path, size, mtime): cheap to compute on every start."""
    weights = _weights_file(_model_dir(model_name))
    st = weights.stat()
    ident = f"{model_name}|{weights.resolve()}|{st.st_size}|{st.st_mtime_ns}"
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in model_name)[-60:]
    return f"{safe}-{hashlib.sha256(ident.encode()).hexdigest()[:16]}"


def export_dir(model_name: str) -> Path:
    return cache_dir() / "onnx" / cache_key(model_name)


def manifest(model_name: str) -> dict[str, Any] | None:
    try:
        return json.loads((export_dir(model_name) / "manifest.json").read_text())
    except (OSError, ValueError):
        return None


def ready(model_name: str) -> bool:
    """True when a verified export exists for this model, whole (no heavy import). A file cut short
    (a disk that filled while it was written) or gone is no export: it is prepared again."""
    m = manifest(model_name)
    return bool(m and m.get("verified") and m.get("format") == FORMAT and _whole(export_dir(model_name), m))


def _whole(directory: Path, info: dict[str, Any]) -> bool:
    """Whether every file the manifest lists has the size and the modification time it had when it
    was verified (a write that kept the size, zeroes over the weights, changes the time)."""
    try:
        for name, said in info.get("files", {}).items():
            found = (directory / name).stat()
            if [found.st_size, found.st_mtime_ns][: len(said) if isinstance(said, list) else 1] != (
                said if isinstance(said, list) else [said]
            ):
                return False
        return True
    except OSError:
        return False


STALE_WORK_SECONDS = 600  # a preparation takes seconds: a work directory this old was left by a kill


def _remove_stale_work(parent: Path) -> None:
    """Remove the work directories a killed preparation left beside the exports (~170 MB each)."""
    now = time.time()
    for work in parent.glob("tmp*"):
        with contextlib.suppress(OSError):
            if work.is_dir() and now - work.stat().st_mtime > STALE_WORK_SECONDS:
                shutil.rmtree(work, ignore_errors=True)


def discard(model_name: str) -> None:
    """Remove an export that would not open, so that the next start prepares it again."""
    shutil.rmtree(export_dir(model_name), ignore_errors=True)


def failed(model_name: str) -> bool:
    m = manifest(model_name)
    return bool(m and not m.get("verified"))


def _max_seq_length(model_dir: Path) -> int:
    try:
        return int(json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"])
    except (OSError, ValueError, KeyError):
        return 256


PREPARE_SECONDS = 2  # what a user is told to expect (measured ~1 s here; tests/bench/prepare.py)


def prepare(model_name: str, note: Callable[[str], None] | None = None) -> bool:
    """Build, optimise, verify and cache the ONNX model (files 0600 in 0700 directories, whatever
    the umask: memchat runs what is there). Returns True when it verified."""
    with private_umask():
        return _prepare(model_name, note)


def _prepare(model_name: str, note: Callable[[str], None] | None = None) -> bool:
    """Build, optimise, verify and cache the ONNX model. Returns True when it verified.

    A BERT-family model is built straight from its weights (memchat.memory.recall.onnx_build: no
    torch, ~1 s, ~200 MB); the bundled model is verified against reference vectors shipped
    with memchat. Another architecture, or another model's verification, needs torch and
    sentence-transformers (~15 s, ~900 MB). Once per model and machine.
    """
    import numpy as np

    model_dir = _model_dir(model_name)
    target = export_dir(model_name)
    started = time.monotonic()
    reference = _shipped_reference(model_name, model_dir)
    if note:
        expected = f"about {PREPARE_SECONDS} s" if reference is not None else "about 15 s"
        note(f"preparing the fast encoder for {model_name} (once per model, {expected})…")
    st_model = None
    # beside the export, so that putting it in place is one rename: a disk that fills while the
    # files are written fails here, before anything is where a later start would look
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_work(target.parent)
    with tempfile.TemporaryDirectory(dir=str(target.parent)) as tmp:
        work = Path(tmp)
        try:
            from memchat.memory.recall.onnx_build import build_onnx

            build_onnx(model_dir, work / "raw.onnx")
        except ValueError:  # not a plain BERT + mean pooling: export through torch
            st_model = load_sentence_transformer(model_name)
            _export(st_model, work / "raw.onnx")
        _optimise(work / "raw.onnx", work / "opt.onnx")
        _externalise(work / "opt.onnx", work / "model.onnx")
        shutil.copyfile(
            model_dir / "tokenizer.json", work / "tokenizer.json"
        )  # the umask's mode, not the package's 0644
        _keep_wordpiece(work)
        for name in ("raw.onnx", "raw.onnx.data", "opt.onnx"):
            (work / name).unlink(missing_ok=True)
        if reference is None:
            st_model = st_model or load_sentence_transformer(model_name)
            reference = st_model.encode(
                VERIFY_TEXTS, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            )
        candidate = OnnxEmbedder(model_name, work, _max_seq_length(model_dir)).encode(VERIFY_TEXTS)
        cosines = np.sum(np.asarray(reference, dtype=np.float64) * candidate.astype(np.float64), axis=1)
        min_cos = float(cosines.min())
        info = {
            "format": FORMAT,
            "model": model_name,
            "verified": min_cos >= MIN_COSINE,
            "min_cosine": min_cos,
            "max_seq_length": _max_seq_length(model_dir),
            "dim": int(candidate.shape[1]),
            "seconds": round(time.monotonic() - started, 1),
            "torch": st_model is not None,
            "files": {f.name: [f.stat().st_size, f.stat().st_mtime_ns] for f in sorted(work.iterdir()) if f.is_file()},
        }
        (work / "manifest.json").write_text(json.dumps(info, indent=1))
        if target.exists():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(work), str(target))
        os.makedirs(work, exist_ok=True)  # TemporaryDirectory cleans up the (now empty) name
    if note and not info["verified"]:
        note(
            f"the fast encoder disagreed with sentence-transformers (min cosine {min_cos:.4f} < {MIN_COSINE}); "
            "staying on sentence-transformers"
        )
    return bool(info["verified"])


WORDPIECE = "wordpiece.json"  # the settings that rebuild the tokenizer from vocab.txt alone
# Texts the two tokenizers must split alike before the quick one is kept, beyond VERIFY_TEXTS:
# what normalisation and the special tokens could treat differently.
_SAME_SPLIT = [
    "Crème brûlée, naïve façade — ÀÉÎÕÜ ß ﬁ",
    "[CLS] [SEP] [PAD] [MASK] [UNK] [cls]",
    "tab\there\r\nnew line\u200b zero\u00a0width \x00 control",
    "supercalifragilisticexpialidocious" * 5,
    "ÅNGSTRÖM İstanbul ΣΊΣΥΦΟΣ Привет мир 안녕하세요 مرحبا",
]


def _keep_wordpiece(work: Path) -> None:
    """Beside tokenizer.json, its vocabulary as vocab.txt and its settings, when it is a plain BERT
    WordPiece tokenizer that splits every test text the same way from those alone. Parsing
    tokenizer.json takes ~26 ms of a fresh process, holding the interpreter (the main thread's
    own work waits); vocab.txt ~11 ms (tests/bench/encoder_start.py)."""
    from tokenizers import Tokenizer
    from tokenizers.implementations import BertWordPieceTokenizer

    settings = _wordpiece_settings(json.loads((work / "tokenizer.json").read_text(encoding="utf-8")), work)
    if settings is None:
        return
    full, quick = (
        Tokenizer.from_file(str(work / "tokenizer.json")),
        BertWordPieceTokenizer(str(work / "vocab.txt"), **settings),
    )
    for t in (full, quick):
        t.no_truncation()
        t.no_padding()
    texts = VERIFY_TEXTS + _SAME_SPLIT
    if [e.ids for e in full.encode_batch(texts)] == [e.ids for e in quick.encode_batch(texts)]:
        (work / WORDPIECE).write_text(json.dumps(settings), encoding="utf-8")
    else:
        (work / "vocab.txt").unlink()


def _wordpiece_settings(spec: dict[str, Any], work: Path) -> dict[str, Any] | None:
    """BertWordPieceTokenizer's arguments for the tokenizer `spec` describes, having written its
    vocabulary to `work`/vocab.txt; None when it is anything else."""
    model, norm = spec.get("model") or {}, spec.get("normalizer") or {}
    post = spec.get("post_processor") or {}
    single = [next(iter(part.values())).get("id") for part in post.get("single", [])]
    vocab = model.get("vocab") or {}
    specials = {"[CLS]", "[SEP]", "[UNK]", "[PAD]", "[MASK]"}
    if not (
        model.get("type") == "WordPiece"
        and model.get("unk_token") == "[UNK]"
        and model.get("continuing_subword_prefix") == "##"
        and norm.get("type") == "BertNormalizer"
        and (spec.get("pre_tokenizer") or {}).get("type") == "BertPreTokenizer"
        and post.get("type") == "TemplateProcessing"
        and single == ["[CLS]", "A", "[SEP]"]
        and {t.get("content") for t in spec.get("added_tokens", [])} <= specials
        and specials <= vocab.keys()
        and sorted(vocab.values()) == list(range(len(vocab)))
        and not any("\n" in w or "\r" in w for w in vocab)  # one word a line in vocab.txt
    ):
        return None
    words = sorted(vocab, key=vocab.__getitem__)
    (work / "vocab.txt").write_text("".join(f"{w}\n" for w in words), encoding="utf-8")
    return {
        "clean_text": bool(norm.get("clean_text", True)),
        "handle_chinese_chars": bool(norm.get("handle_chinese_chars", True)),
        "strip_accents": norm.get("strip_accents"),
        "lowercase": bool(norm.get("lowercase", True)),
        "wordpieces_prefix": "##",
    }


def _load_tokenizer(directory: Path) -> Any:
    """The export's tokenizer: from vocab.txt when the export kept it (see _keep_wordpiece)."""
    try:
        settings = json.loads((directory / WORDPIECE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        from tokenizers import Tokenizer

        return Tokenizer.from_file(str(directory / "tokenizer.json"))
    from tokenizers.implementations import BertWordPieceTokenizer

    return BertWordPieceTokenizer(str(directory / "vocab.txt"), **settings)


def _shipped_reference(model_name: str, model_dir: Path) -> Any:
    """The bundled model's embeddings of VERIFY_TEXTS, made by sentence-transformers and shipped
    with memchat (memory/minilm_reference.json), when this is that model: verification without torch."""
    import numpy as np

    if canonical_name(model_name) != DEFAULT_MODEL or model_dir.resolve() != default_model_path().resolve():
        return None
    try:
        data = json.loads((Path(__file__).parent / "minilm_reference.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if data.get("texts") != VERIFY_TEXTS:
        return None
    return np.asarray(data["vectors"], dtype=np.float64)


def _export(st_model: Any, path: Path) -> None:
    import torch

    auto_model = st_model[0].auto_model

    class Pooled(torch.nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            hidden = self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)[0]
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    # Zeros in the dummy mask so that masking is traced, not constant-folded away.
    ids = torch.tensor([[101, 7592, 2088, 102, 0, 0], [101, 7592, 2088, 2003, 2307, 102]])
    mask = (ids != 0).long()
    axes = {"b": 0, "s": 1}

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Pooled(auto_model).eval(),
            (ids, mask, torch.zeros_like(ids)),
            str(path),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["embedding"],
            dynamic_axes={
                "input_ids": {axes["b"]: "batch", axes["s"]: "seq"},
                "attention_mask": {0: "batch", 1: "seq"},
                "token_type_ids": {0: "batch", 1: "seq"},
                "embedding": {0: "batch"},
            },
            opset_version=17,
            dynamo=False,
        )


def _optimise(src: Path, dst: Path) -> None:
    import numpy  # noqa: F401 - before onnxruntime, always: see OnnxEmbedder
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(dst)
    ort.InferenceSession(str(src), options, providers=["CPUExecutionProvider"])


def _externalise(src: Path, dst: Path) -> None:
    """Weights as one external data file, memory-mapped at load (~3x faster session start)."""
    import onnx

    model = onnx.load(str(src))
    onnx.save_model(
        model,
        str(dst),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="model.onnx.data",
        size_threshold=1024,
    )


def open_session(model_file: Path, prepack: bool = False) -> Any:
    """An onnxruntime session over an exported graph, set for a process that starts, encodes a
    little and ends (prepack=True only to measure the other setting: tests/bench/encoder_start.py)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    # The graph was optimised at export; optimising again at every load costs ~150 ms.
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 3
    # Spinning worker threads would steal the core that numpy's scan and SQLite need next.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if not prepack:
        # Repacking the weights for the matrix kernels is most of a session's start (30 of
        # 38 ms here) and paid nothing back even over 1,000 texts.
        options.add_session_config_entry("session.disable_prepacking", "1")
    return ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])


class OnnxEmbedder:
    """Embedder interface (model_name, dim, encode) over an exported model directory."""

    def __init__(self, model_name: str, directory: Path | None = None, max_seq_length: int | None = None) -> None:
        # numpy through its own package first: onnxruntime's C extension imports numpy's core
        # directly, and if another thread is importing numpy meanwhile, one of them fails
        # ("partially initialized module"; seen 1 in 20 with a recall loading the two in parallel).
        import numpy  # noqa: F401

        directory = directory or export_dir(model_name)
        info = manifest(model_name) if directory == export_dir(model_name) else None
        self.model_name = canonical_name(model_name)
        self._session = open_session(directory / "model.onnx")
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = _load_tokenizer(directory)
        length = max_seq_length or (info or {}).get("max_seq_length", 256)
        # sentence-transformers truncates at max_seq_length (256), not the file's 128.
        self._tokenizer.enable_truncation(max_length=length)
        # The tokenizer reads a whole text before it truncates: a 1 MB paste cost ~2 s for 256 tokens.
        # No token of ordinary text is near 32 characters, so this cut never changes what it keeps.
        self._max_chars = length * CHARS_PER_TOKEN
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self.dim = int((info or {}).get("dim") or self._session.get_outputs()[0].shape[-1] or 384)
        self._lock = threading.Lock()

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        # Similar lengths together: padding to the longest in a batch then costs little.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            with self._lock:
                encodings = self._tokenizer.encode_batch([texts[i][: self._max_chars] for i in idx])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            feeds = {
                "input_ids": ids,
                "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            }
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            out[idx] = self._session.run(None, feeds)[0]
        return out
