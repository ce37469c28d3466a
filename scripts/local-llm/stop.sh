#!/usr/bin/env bash
# Stop the local model server started by start.sh (by its recorded PID): SIGTERM, wait up to
# LOCAL_LLM_STOP_TIMEOUT seconds (default 10) for it to exit, then SIGKILL. Succeeds if nothing is running.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
state="${LOCAL_LLM_STATE:-$repo_root/.venv/local-llm-state}"
timeout_s="${LOCAL_LLM_STOP_TIMEOUT:-10}"

if [ ! -f "$state/pid" ]; then
    exit 0
fi
pid="$(cat "$state/pid")"
if kill -TERM "$pid" 2>/dev/null; then
    deadline=$((SECONDS + timeout_s))
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            echo "local-llm: server $pid ignored SIGTERM for ${timeout_s} s; killing it" >&2
            kill -KILL "$pid" 2>/dev/null || true
            break
        fi
        sleep 0.1
    done
fi
rm -f "$state/pid" "$state/url"
echo "local-llm: stopped" >&2
