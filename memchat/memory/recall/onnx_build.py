"""Build the ONNX graph of a sentence-transformers BERT model straight from its safetensors weights.

No torch, transformers or sentence-transformers: the weights are memory-mapped from
``model.safetensors`` with numpy, and the graph (opset 17) is written with the ``onnx`` helpers.
It computes what ``SentenceTransformer.encode(..., normalize_embeddings=True)`` computes for a
Transformer(BERT) + mean Pooling (+ Normalize) model:

    inputs  input_ids, attention_mask, token_type_ids   int64 [batch, seq]
    output  embedding                                   float32 [batch, hidden]
            = L2-normalised mean (over attention_mask) of BERT's last hidden state

Anything else (another architecture, activation, pooling or an extra module such as Dense)
raises ValueError, so the caller can stay on the torch export.

Weights are streamed tensor by tensor into one external data file next to the graph (``model.onnx`` ->
``model.onnx.data``), so no second in-memory copy of the model is ever built.
"""

from __future__ import annotations

import json
import math
import mmap
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
INLINE_BYTES = 1024  # smaller tensors stay inside the graph, as onnx.save_model(size_threshold=1024) does
ALIGN = 4096  # external tensors start on a page boundary (mmap-friendly)

_ST_DTYPES: dict[str, np.dtype[Any]] = {
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "BF16": np.dtype("<u2"),  # widened to float32 by hand
    "F64": np.dtype("<f8"),
    "I64": np.dtype("<i8"),
}
_ST_PREFIX = "sentence_transformers.models."


# --------------------------------------------------------------------------- checks


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from exc


def _transformer_dir(model_dir: Path) -> Path:
    """Check modules.json is Transformer, Pooling(mean) and optionally Normalize; return the Transformer's dir."""
    modules = sorted(_read_json(model_dir / "modules.json"), key=lambda m: int(m.get("idx", 0)))
    kinds = [str(m.get("type", "")).removeprefix(_ST_PREFIX) for m in modules]
    if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        raise ValueError(f"unsupported sentence-transformers modules: {kinds}")
    pooling = _read_json(model_dir / str(modules[1].get("path", "")) / "config.json")
    mode = pooling.get("pooling_mode")
    if mode is not None and mode != "mean":
        raise ValueError(f"unsupported pooling mode: {mode!r}")
    flags = {k: v for k, v in pooling.items() if k.startswith("pooling_mode_")}
    on = sorted(k for k, v in flags.items() if v)
    if mode is None and on != ["pooling_mode_mean_tokens"]:
        raise ValueError(f"unsupported pooling: {on or 'none'} (only mean pooling)")
    if pooling.get("include_prompt") is False:
        raise ValueError("unsupported pooling: include_prompt=false")
    return model_dir / str(modules[0].get("path", ""))


def _hyper(config: dict[str, Any]) -> dict[str, Any]:
    """Hyper-parameters of a plain BERT encoder; ValueError for anything this builder does not reproduce."""
    if config.get("model_type") != "bert":
        raise ValueError(f"unsupported model_type: {config.get('model_type')!r} (only 'bert')")
    if config.get("hidden_act") != "gelu":
        raise ValueError(f"unsupported hidden_act: {config.get('hidden_act')!r} (only exact 'gelu')")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError(f"unsupported position_embedding_type: {config.get('position_embedding_type')!r}")
    if config.get("is_decoder") or config.get("add_cross_attention"):
        raise ValueError("decoder / cross-attention BERT is not supported")
    try:
        hp: dict[str, Any] = {
            key: int(config[key])
            for key in (
                "hidden_size",
                "num_attention_heads",
                "num_hidden_layers",
                "intermediate_size",
                "max_position_embeddings",
                "type_vocab_size",
            )
        }
        hp["layer_norm_eps"] = float(config["layer_norm_eps"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"incomplete BERT config: {exc}") from exc
    if hp["hidden_size"] % hp["num_attention_heads"]:
        raise ValueError("hidden_size is not a multiple of num_attention_heads")
    return hp


# --------------------------------------------------------------------------- safetensors


class SafeTensors:
    """Read-only, memory-mapped view of a ``.safetensors`` file (no copy until a tensor is used)."""

    def __init__(self, path: Path) -> None:
        with open(path, "rb") as f:
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        (length,) = struct.unpack("<Q", self._map[:8])
        if length > len(self._map) - 8:
            raise ValueError(f"{path}: corrupt safetensors header")
        header = json.loads(self._map[8 : 8 + length])
        header.pop("__metadata__", None)
        self._base = 8 + length
        self.header: dict[str, dict[str, Any]] = header

    def __contains__(self, name: str) -> bool:
        return name in self.header

    def get(self, name: str) -> np.ndarray:
        """The tensor as float32 (a zero-copy view when it is stored as little-endian F32)."""
        try:
            info = self.header[name]
        except KeyError:
            raise ValueError(f"weight {name!r} missing from safetensors") from None
        dtype = _ST_DTYPES.get(info["dtype"])
        if dtype is None:
            raise ValueError(f"{name}: unsupported dtype {info['dtype']}")
        start, end = info["data_offsets"]
        shape = tuple(info["shape"])
        count = math.prod(shape)
        if end - start != count * dtype.itemsize:
            raise ValueError(f"{name}: data_offsets do not match shape {shape}")
        arr = np.frombuffer(self._map, dtype=dtype, count=count, offset=self._base + start).reshape(shape)
        if info["dtype"] == "BF16":
            return (arr.astype(np.uint32) << 16).view(np.float32)
        return arr if dtype == np.dtype("<f4") else arr.astype(np.float32)

    def close(self) -> None:
        """Unmap the file, unless arrays still view it (e.g. held by a traceback): then it goes with them."""
        try:
            self._map.close()
        except BufferError:
            pass


# --------------------------------------------------------------------------- graph


class _Graph:
    """Nodes plus initializers; big initializers are streamed straight into the external data file."""

    def __init__(self, data: Any, location: str) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._data = data
        self._location = location
        self._n = 0

    def name(self, hint: str) -> str:
        self._n += 1
        return f"{hint}_{self._n}"

    def op(self, op_type: str, inputs: list[str], hint: str | None = None, **attrs: Any) -> str:
        out = self.name(hint or op_type)
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=f"{op_type}_{self._n}", **attrs))
        return out

    def const(self, name: str, array: np.ndarray) -> str:
        array = np.ascontiguousarray(array)
        if array.dtype.byteorder == ">":
            array = array.astype(array.dtype.newbyteorder("<"))
        if array.nbytes < INLINE_BYTES:
            self.inits.append(numpy_helper.from_array(array, name))
            return name
        pad = -self._data.tell() % ALIGN
        if pad:
            self._data.write(b"\0" * pad)
        offset = self._data.tell()
        self._data.write(array.data)
        tensor = TensorProto()
        tensor.name = name
        tensor.data_type = helper.np_dtype_to_tensor_dtype(array.dtype)
        tensor.dims.extend(array.shape)
        tensor.data_location = TensorProto.EXTERNAL
        for key, value in (("location", self._location), ("offset", str(offset)), ("length", str(array.nbytes))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, value
        self.inits.append(tensor)
        return name


def _i64(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def _f32(value: float) -> np.ndarray:
    return np.array(value, dtype=np.float32)


def _linear(g: _Graph, st: SafeTensors, x: str, key: str, name: str) -> str:
    """x @ W^T + b, with W stored [out, in] in safetensors and pre-transposed to [in, out] here."""
    w = g.const(f"{name}.weight", np.ascontiguousarray(st.get(f"{key}.weight").T))
    b = g.const(f"{name}.bias", st.get(f"{key}.bias"))
    return g.op("Add", [g.op("MatMul", [x, w]), b])


def _layer_norm(g: _Graph, st: SafeTensors, x: str, key: str, name: str, eps: float) -> str:
    scale = g.const(f"{name}.weight", st.get(f"{key}.weight"))
    bias = g.const(f"{name}.bias", st.get(f"{key}.bias"))
    return g.op("LayerNormalization", [x, scale, bias], axis=-1, epsilon=eps)


def _prefix(st: SafeTensors) -> str:
    """'' or e.g. 'bert.': whatever precedes embeddings.word_embeddings.weight."""
    suffix = "embeddings.word_embeddings.weight"
    found = sorted(k[: -len(suffix)] for k in st.header if k.endswith(suffix))
    if not found:
        raise ValueError("no embeddings.word_embeddings.weight in safetensors (not a BERT checkpoint?)")
    return found[0]


def _check_shapes(st: SafeTensors, p: str, hp: dict[str, Any]) -> None:
    h, i = hp["hidden_size"], hp["intermediate_size"]
    expected = {
        f"{p}embeddings.position_embeddings.weight": [hp["max_position_embeddings"], h],
        f"{p}embeddings.token_type_embeddings.weight": [hp["type_vocab_size"], h],
    }
    for n in range(hp["num_hidden_layers"]):
        layer = f"{p}encoder.layer.{n}."
        for sub in ("query", "key", "value"):
            expected[f"{layer}attention.self.{sub}.weight"] = [h, h]
        expected[f"{layer}attention.output.dense.weight"] = [h, h]
        expected[f"{layer}intermediate.dense.weight"] = [i, h]
        expected[f"{layer}output.dense.weight"] = [h, i]
    word = st.header[f"{p}embeddings.word_embeddings.weight"]["shape"]
    if len(word) != 2 or word[1] != h:
        raise ValueError(f"word embeddings {word} do not match hidden_size {h}")
    for key, shape in expected.items():
        if key not in st:
            raise ValueError(f"weight {key!r} missing from safetensors")
        if st.header[key]["shape"] != shape:
            raise ValueError(f"{key}: shape {st.header[key]['shape']} != expected {shape}")
    if f"{p}encoder.layer.{hp['num_hidden_layers']}.output.dense.weight" in st:
        raise ValueError("safetensors holds more layers than num_hidden_layers")


def build_onnx(model_dir: Path, out_path: Path) -> None:
    """Write ``out_path`` (ONNX, opset 17) and its weights, ``<out_path name>.data``, for a sentence-transformers BERT.

    ``model_dir`` holds modules.json, the Pooling config and, in the Transformer module's
    directory (usually ``model_dir`` itself), config.json and model.safetensors. Raises
    ValueError when the model is not BERT + mean pooling (+ Normalize) with exact gelu.
    """
    model_dir, out_path = Path(model_dir), Path(out_path)
    tdir = _transformer_dir(model_dir)
    hp = _hyper(_read_json(tdir / "config.json"))
    weights = tdir / "model.safetensors"
    if not weights.exists():
        raise ValueError(f"no model.safetensors in {tdir}")

    st = SafeTensors(weights)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        p = _prefix(st)
        _check_shapes(st, p, hp)
        location = f"{out_path.name}.data"
        with open(out_path.parent / location, "wb") as data:
            # The phases run in graph order: node names are numbered, and weights are written, as they come.
            g = _Graph(data, location)
            x = _embeddings(g, st, p, hp["layer_norm_eps"])
            shared = _shared(g, hp)
            for n in range(hp["num_hidden_layers"]):
                x = _encoder_layer(g, st, x, f"{p}encoder.layer.{n}.", f"layer.{n}.", shared)
            _pool_and_normalise(g, x, shared.mask_f)
    finally:
        st.close()
    _save(g, out_path, hp["hidden_size"])


def _embeddings(g: _Graph, st: SafeTensors, p: str, eps: float) -> str:
    """(word + token_type) + position[0:seq], then LayerNorm (BertEmbeddings' order)."""
    word = g.op("Gather", [g.const("word_embeddings", st.get(f"{p}embeddings.word_embeddings.weight")), "input_ids"])
    token_type = g.op(
        "Gather",
        [
            g.const("token_type_embeddings", st.get(f"{p}embeddings.token_type_embeddings.weight")),
            "token_type_ids",
        ],
    )
    seq = g.op("Shape", ["input_ids"], start=1, end=2)
    positions = g.op(
        "Slice",
        [
            g.const("position_embeddings", st.get(f"{p}embeddings.position_embeddings.weight")),
            g.const("zero", _i64(0)),
            seq,
            g.const("axis0", _i64(0)),
        ],
    )
    x = g.op("Add", [g.op("Add", [word, token_type]), positions])
    return _layer_norm(g, st, x, f"{p}embeddings.LayerNorm", "embeddings.LayerNorm", eps)


@dataclass(frozen=True)
class _Shared:
    """Tensors every encoder layer uses (and the mask pooling uses), made once."""

    mask_f: str  # attention_mask as float32 [batch, seq]
    neg: str  # the additive attention mask [batch, 1, 1, seq]
    one: str
    split: str  # shapes that split the hidden size into heads and merge them back
    merge: str
    scale: str
    sqrt2: str
    half: str
    eps: float


def _shared(g: _Graph, hp: dict[str, Any]) -> _Shared:
    hidden, heads = hp["hidden_size"], hp["num_attention_heads"]
    head_dim = hidden // heads
    # Additive attention mask [batch, 1, 1, seq]: 0 where attended, float32 min where padded.
    mask_f = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    one = g.const("one", _f32(1.0))
    neg = g.op("Mul", [g.op("Sub", [one, mask_f]), g.const("mask_min", _f32(float(np.finfo(np.float32).min)))])
    neg = g.op("Unsqueeze", [neg, g.const("axes12", _i64(1, 2))])

    split = g.const("split_heads", _i64(0, 0, heads, head_dim))
    merge = g.const("merge_heads", _i64(0, 0, hidden))
    scale = g.const("sqrt_head_dim", _f32(math.sqrt(head_dim)))
    sqrt2, half = g.const("sqrt2", _f32(math.sqrt(2.0))), g.const("half", _f32(0.5))
    return _Shared(mask_f, neg, one, split, merge, scale, sqrt2, half, hp["layer_norm_eps"])


def _encoder_layer(g: _Graph, st: SafeTensors, x: str, key: str, name: str, c: _Shared) -> str:
    """One BERT layer: self-attention, then the feed-forward block, each with its residual and LayerNorm."""
    q, k, v = (
        g.op("Reshape", [_linear(g, st, x, f"{key}attention.self.{s}", f"{name}{s}"), c.split])
        for s in ("query", "key", "value")
    )
    q = g.op("Transpose", [q], perm=[0, 2, 1, 3])  # [b, h, s, d]
    k = g.op("Transpose", [k], perm=[0, 2, 3, 1])  # [b, h, d, s]
    v = g.op("Transpose", [v], perm=[0, 2, 1, 3])
    scores = g.op("Add", [g.op("Div", [g.op("MatMul", [q, k]), c.scale]), c.neg])
    ctx = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
    ctx = g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]), c.merge])
    attn = _linear(g, st, ctx, f"{key}attention.output.dense", f"{name}attention.output")
    x = _layer_norm(
        g, st, g.op("Add", [attn, x]), f"{key}attention.output.LayerNorm", f"{name}attention.LayerNorm", c.eps
    )
    # FFN with exact gelu: 0.5 * h * (1 + erf(h / sqrt(2))).
    h = _linear(g, st, x, f"{key}intermediate.dense", f"{name}intermediate")
    h = g.op("Mul", [g.op("Mul", [h, g.op("Add", [g.op("Erf", [g.op("Div", [h, c.sqrt2])]), c.one])]), c.half])
    h = _linear(g, st, h, f"{key}output.dense", f"{name}output")
    return _layer_norm(g, st, g.op("Add", [h, x]), f"{key}output.LayerNorm", f"{name}output.LayerNorm", c.eps)


def _pool_and_normalise(g: _Graph, x: str, mask_f: str) -> None:
    """Mean pooling over the mask, then L2 normalisation (as torch.nn.functional.normalize): the output."""
    axis1 = g.const("axis1", _i64(1))
    mask3 = g.op("Unsqueeze", [mask_f, g.const("axis_last", _i64(-1))])
    summed = g.op("ReduceSum", [g.op("Mul", [x, mask3]), axis1], keepdims=0)
    count = g.op("Max", [g.op("ReduceSum", [mask3, axis1], keepdims=0), g.const("min_count", _f32(1e-9))])
    pooled = g.op("Div", [summed, count])
    norm = g.op("Max", [g.op("ReduceL2", [pooled], axes=[1], keepdims=1), g.const("min_norm", _f32(1e-12))])
    g.nodes.append(helper.make_node("Div", [pooled, norm], ["embedding"], name="normalize"))


def _save(g: _Graph, out_path: Path, hidden: int) -> None:
    inputs = [
        helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
        for n in ("input_ids", "attention_mask", "token_type_ids")
    ]
    output = helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", hidden])
    graph = helper.make_graph(g.nodes, "sentence_embedding", inputs, [output], initializer=g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="memchat.onnx_build")
    model.ir_version = 8  # opset 17 needs IR >= 8; keeps older onnxruntime builds happy
    onnx.save_model(model, str(out_path))
