#!/usr/bin/env bash
# Manual smoke test of fake-agent in a private tmux server (never the user's server).
# Usage: smoke.sh [path/to/fake-agent]   (default: $CARGO_TARGET_DIR or target, debug build)
# Prints one capture per scenario and checks the submission log; exits non-zero on a failure.
set -euo pipefail
BIN=${1:-${CARGO_TARGET_DIR:-target}/debug/examples/fake-agent}
DIR=$(mktemp -d /tmp/fake-agent-smoke.XXXXXX)
SOCK=$DIR/sock
unset TMUX TMUX_PANE
t() { tmux -S "$SOCK" -f /dev/null "$@"; }
cleanup() { t kill-server 2>/dev/null || true; rm -rf "$DIR"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Waits (deadline 5 s) until the pane's plain capture contains $1.
wait_screen() {
    local deadline=$((SECONDS + 5))
    until t capture-pane -p -t fa | grep -qF -- "$1"; do
        ((SECONDS < deadline)) || { t capture-pane -p -t fa; fail "screen never showed: $1"; }
        sleep 0.05
    done
}
# Waits (deadline 5 s) until the log has $1 lines.
wait_log() {
    local deadline=$((SECONDS + 5))
    until [[ -f $DIR/log && $(wc -l <"$DIR/log") -ge $1 ]]; do
        ((SECONDS < deadline)) || fail "log never reached $1 lines"
        sleep 0.05
    done
}
# Starts fake-agent with the given switches in a fresh session "fa" and waits for its ready file.
start() {
    t kill-session -t fa 2>/dev/null || true
    rm -f "$DIR/log" "$DIR/ready"
    t new-session -d -s fa -x "${W:-80}" -y "${H:-24}" \
        "$BIN --log $DIR/log --ready-file $DIR/ready $(printf '%q ' "$@") 2>$DIR/err"
    local deadline=$((SECONDS + 10))
    until [[ -f $DIR/ready ]]; do
        ((SECONDS < deadline)) || { cat "$DIR/err"; fail "no ready file for: $*"; }
        sleep 0.05
    done
}
show() { echo "=== $1"; t capture-pane -p -e -t fa | sed -e 's/\x1b/\\e/g' -e 's/\xc2\xa0/<NBSP>/g'; }
# The last logged text (command substitution drops trailing newlines: compare raw JSON for those).
last_text() { tail -n 1 "$DIR/log" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["text"], end="")'; }

# A session that outlives the test sessions, so killing one never stops the server.
t new-session -d -s keep cat

for style in claude2 claude1 codex gemini grok; do
    W=80 H=24 start --style "$style" --placeholder
    show "$style idle placeholder"
    t send-keys -t fa -l 'lane-a: hi "$(x)"'
    wait_screen 'lane-a: hi "$(x)"'
    show "$style draft"
    t send-keys -t fa Enter
    wait_log 1
    [[ $(last_text) == 'lane-a: hi "$(x)"' ]] || fail "$style logged $(last_text)"
done

# Busy + queue: the second message is queued, then submitted with queued=true.
start --style claude2 --busy-after-submit 1500
t send-keys -t fa -l 'first'; wait_screen $'❯\u00a0first'; t send-keys -t fa Enter
wait_screen 'Cogitating'
t send-keys -t fa -l 'lane-c: second'; wait_screen 'lane-c: second'; t send-keys -t fa Enter
wait_screen 'Press up to edit queued messages'
show "claude2 busy with queue"
wait_log 2
grep -q '"queued":true,"t_ms":[0-9]*,"text":"lane-c: second"' "$DIR/log" || fail "queued not logged"

# Collapsed paste: token on screen, full text in the log.
start --style claude2 --collapse-paste-over 800
printf 'lane-c: see below\n%s' "$(seq 1 12)" >"$DIR/paste"
t load-buffer -b p "$DIR/paste"; t paste-buffer -p -r -d -b p -t fa
wait_screen '[Pasted text #1 +12 lines]'
show "claude2 collapsed paste"
t send-keys -t fa Enter; wait_log 1
[[ $(last_text) == "$(cat "$DIR/paste")" ]] || fail "collapsed paste logged wrong"

# 10,000 characters typed: the box shows the tail, the log has all of it.
W=120 H=40 start --style codex
long=$(printf 'y%.0s' $(seq 1 9997))END
t send-keys -t fa -l "$long"; wait_screen 'yyyEND'
t send-keys -t fa Enter; wait_log 1
[[ $(last_text) == "$long" ]] || fail "long line logged wrong"

# Swallowed first Enter, paste-newline window.
start --style gemini --swallow-first-enter --paste-newline-window 300
t send-keys -t fa -l 'abc'; wait_screen '> abc'; t send-keys -t fa Enter
t send-keys -t fa -l 'd'; wait_screen '> abcd'
[[ ! -s $DIR/log ]] || fail "first Enter was not swallowed"
printf 'pasted' >"$DIR/paste"; t load-buffer -b p "$DIR/paste"; t paste-buffer -p -d -b p -t fa
t send-keys -t fa Enter
wait_screen '│   '
show "gemini enter inside paste window"
sleep 0.4 # let the 300 ms paste window pass: this Enter must submit
t send-keys -t fa Enter; wait_log 1
grep -qF '"text":"abcdpasted\n"' "$DIR/log" || fail "paste window: logged $(cat "$DIR/log")"

# Dialog: typing is dropped, Esc closes it.
start --style codex --dialog
show "codex dialog"
t send-keys -t fa -l 'ignored'; t send-keys -t fa Escape
wait_screen 'You canceled'
t capture-pane -p -t fa | grep -q ignored && fail "dialog let text through"

# Resize redraws at the new size.
W=80 H=24 start --style claude2 --draft 'lane-b: draft'
t resize-window -t fa -x 60 -y 20
deadline=$((SECONDS + 5))
until [[ $(t capture-pane -p -t fa | grep -c "^$(printf '─%.0s' $(seq 1 60))$") -eq 2 ]]; do
    ((SECONDS < deadline)) || fail "no redraw after resize"; sleep 0.05
done
echo "ALL OK"
