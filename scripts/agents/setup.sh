#!/usr/bin/env bash
# Install the pinned real agent TUIs for lane-send's real-agent suite (crates/lane-send/tests/real_agents.rs).
#
# Installs Claude Code, Codex, Gemini CLI, Grok CLI and Qwen Code from npm into one git-ignored prefix
# (default <repo>/.venv/agents; LANE_SEND_AGENTS overrides). Their binaries land in <prefix>/node_modules/.bin/.
# Idempotent: a second run with the pinned versions installed does nothing. Prints the prefix on stdout.
# Exit 2 when npm is missing or the registry cannot be reached (the suite then skips with that message).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
prefix="${LANE_SEND_AGENTS:-$repo_root/.venv/agents}"
# The versions the suite was verified against (../shared/research/real-agent-tuis.md). Bump together with the
# frame tables and fixtures.
packages=(
    "@anthropic-ai/claude-code@2.1.197"
    "@openai/codex@0.171.0"
    "@google/gemini-cli@0.61.0"
    "@vibe-kit/grok-cli@0.0.34"
    "@qwen-code/qwen-code@0.15.10"
)

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    echo "agents: node and npm are needed (apt-get install nodejs npm)" >&2
    exit 2
fi

installed() {
    local spec="$1" name version
    name="${spec%@*}"
    version="${spec##*@}"
    [ -f "$prefix/node_modules/$name/package.json" ] &&
        node -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' \
            "$prefix/node_modules/$name/package.json" "$version"
}

missing=()
for spec in "${packages[@]}"; do installed "$spec" || missing+=("$spec"); done
if ((${#missing[@]})); then
    echo "agents: installing ${missing[*]} into $prefix" >&2
    mkdir -p "$prefix"
    [ -f "$prefix/package.json" ] || echo '{"private": true}' >"$prefix/package.json"
    if ! npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "${packages[@]}" >&2; then
        echo "agents: npm install failed (no registry?)" >&2
        exit 2
    fi
fi
echo "$prefix"
