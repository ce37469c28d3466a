#!/usr/bin/env bash
# Start the local model server in the background and wait until GET /health returns 200.
#
# Prints the server's base URL (http://127.0.0.1:PORT) on stdout, so that
#     export LOCAL_LLM_URL="$(scripts/local-llm/start.sh)"
# points the llm crate's integration tests at it. Writes PID, URL and log files to the state directory
# (default: <repo>/.venv/local-llm-state). If a server started here is still running, prints its URL and exits 0;
# if it was started for another LOCAL_LLM_MODEL than the one asked for now, exits 1 saying so.
#
# Environment: LOCAL_LLM_VENV, LOCAL_LLM_STATE, LOCAL_LLM_PORT (0 = any free port), LOCAL_LLM_THREADS (default 1;
# 2 is faster on an idle machine but about 10x slower while anything else runs), LOCAL_LLM_START_TIMEOUT (seconds, default 60),
# LOCAL_LLM_MODEL (qwen = Qwen2.5-Coder-0.5B, the default; qwen1.5b, after LOCAL_LLM_QWEN15=1 setup.sh; smollm2).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
venv="${LOCAL_LLM_VENV:-$repo_root/.venv/local-llm}"
state="${LOCAL_LLM_STATE:-$repo_root/.venv/local-llm-state}"
timeout_s="${LOCAL_LLM_START_TIMEOUT:-60}"

if [ ! -x "$venv/bin/python" ]; then
    echo "local-llm: no venv at $venv; run scripts/local-llm/setup.sh first" >&2
    exit 2
fi
mkdir -p "$state"

wanted="${LOCAL_LLM_MODEL:-}"
if [ -f "$state/pid" ] && kill -0 "$(cat "$state/pid")" 2>/dev/null && [ -s "$state/url" ]; then
    # Reuse it unless another model was asked for than the one it was started with (none asked = the 0.5B Qwen).
    running="$(cat "$state/requested" 2>/dev/null || true)"
    if [ -n "$wanted" ] && [ "$wanted" != "${running:-qwen}" ]; then
        echo "local-llm: a server started with LOCAL_LLM_MODEL=${running:-qwen} ($(cat "$state/model" 2>/dev/null || echo unknown)) is running at $(cat "$state/url"); stop it first (scripts/local-llm/stop.sh) or give this one its own LOCAL_LLM_STATE" >&2
        exit 1
    fi
    cat "$state/url"
    exit 0
fi
rm -f "$state/pid" "$state/url"
printf '%s\n' "$wanted" >"$state/requested"

nohup "$venv/bin/python" "$here/serve.py" "$state/url" >"$state/log" 2>&1 </dev/null &
echo $! >"$state/pid"

# Poll (with a deadline) for the URL file and then for /health = 200; the server answers 503 while loading.
if ! "$venv/bin/python" - "$state/url" "$(cat "$state/pid")" "$timeout_s" <<'PY'
import os, pathlib, sys, time, urllib.request, urllib.error
url_file, pid, timeout = pathlib.Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
deadline = time.monotonic() + timeout
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        sys.exit("local-llm: the server process exited during start-up")
    if url_file.exists():
        try:
            with urllib.request.urlopen(url_file.read_text().strip() + "/health", timeout=2) as response:
                if response.status == 200:
                    sys.exit(0)
        except (urllib.error.URLError, OSError):
            pass
    time.sleep(0.05)
sys.exit(f"local-llm: /health did not return 200 within {timeout:g} s")
PY
then
    echo "local-llm: start failed; last lines of $state/log:" >&2
    tail -n 20 "$state/log" >&2 || true
    "$here/stop.sh" >/dev/null 2>&1 || true
    exit 1
fi
cat "$state/url"
