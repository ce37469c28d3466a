#!/usr/bin/env bash
# Records transcript-3.3a.raw: the raw stdout of a `tmux -C` control client,
# replayed by tests/transcript.rs. Run it again (with the tmux to test) after
# changing the commands below, then update the assertions.
#
# The commands sent are listed in transcript-3.3a.commands, one per line; the
# empty last command detaches the client (tmux answers %exit).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here/transcript-3.3a.raw
dir=$(mktemp -d)
sock=$dir/sock
trap 'tmux -S "$sock" kill-server 2>/dev/null || true; rm -rf "$dir"' EXIT
unset TMUX TMUX_PANE
t() { timeout 10 tmux -S "$sock" "$@"; }

t -f /dev/null new-session -d -s rec -x 80 -y 24 \
  "env -i PATH=/usr/bin:/bin TERM=screen PS1='\$ ' bash --norc --noprofile"
mkfifo "$dir/in"
tmux -S "$sock" -C attach -f ignore-size -t rec <"$dir/in" >"$out" &
client=$!
exec 3>"$dir/in"

send() { printf '%s\n' "$1" >&3; printf '%s\n' "$1" >>"$dir/commands"; }
: >"$dir/commands"

# The pane prints awkward bytes (UTF-8, backslash, tab, bell), then signals.
shell_line='printf "h\303\251llo \\\\ tab\t bell\a \342\234\223\n"; tmux -S '"$sock"' wait-for -S printed'
send "display-message -p 'session #{session_name}'"
send "send-keys -t rec -l '$shell_line'"
send "send-keys -t rec Enter"
t wait-for printed
send "bogus-command"
send "new-window -d -n second 'sleep 30'"
send "list-windows -t rec -F '%end 0 0 1 #{window_index}'"
send "refresh-client -f pause-after=10"
send "send-keys -t rec -l '$shell_line'"
send "send-keys -t rec Enter"
t wait-for printed
send "rename-window -t rec:1 renamed"
send ""
exec 3>&-
wait "$client" || true
cp "$dir/commands" "$here/transcript-3.3a.commands"
