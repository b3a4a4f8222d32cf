"""Finding memories and past messages: embeddings, hybrid retrieval and the second stage.

`embed`/`models`/`onnx_*` load the local encoder (onnxruntime when verified, else
sentence-transformers); `index`, `vectors`, `vector_file` and `scan` keep and scan the vectors;
`search` ranks by BM25 and cosine fused by reciprocal rank, and `rank`/`relevance` re-score the
first candidates into a calibrated probability; `coverage` ranks a question that asks for a
set for every piece of its answer; `dates` reads the periods a query names.
"""
