#!/usr/bin/env bash
# Installs the asciinema tool (pinned, from PyPI) into <repo>/.venv/asciinema, git-ignored. clive-serve's
# recording test checks that `asciinema cat` reads clive's recordings. Debian's asciinema 2.2 cannot: its
# `cat` needs a terminal on /dev/tty; 2.4 falls back to plain output.
# Idempotent. Environment: ASCIINEMA_VENV (venv path), PYTHON (interpreter, default python3).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="${ASCIINEMA_VENV:-$repo_root/.venv/asciinema}"
python="${PYTHON:-python3}"
version="2.4.0"

if [ ! -x "$venv/bin/python" ]; then
    if ! "$python" -m venv "$venv"; then
        echo "asciinema: could not create a venv with $python; on Debian install python3-venv" >&2
        exit 2
    fi
fi
if ! "$venv/bin/python" -m pip show asciinema 2>/dev/null | grep -qx "Version: $version"; then
    "$venv/bin/python" -m pip install --disable-pip-version-check --quiet "asciinema==$version"
fi
"$venv/bin/asciinema" --version >&2
