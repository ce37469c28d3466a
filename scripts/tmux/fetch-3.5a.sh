#!/usr/bin/env bash
# Unpacks tmux 3.5a from Debian 12's backports beside the system tmux (nothing is replaced) and prints the
# path of its binary. Usage: scripts/tmux/fetch-3.5a.sh [DEST] (default: target/tmux-3.5a). Idempotent.
#
# The package comes through apt with a private sources list and lists directory, so the machine's apt
# configuration is untouched. tmux 3.5a links libjemalloc2: installed with apt-get when we are root, else
# unpacked beside tmux and found through a small wrapper script.
set -euo pipefail
cd "$(dirname "$0")/../.."
dest="$(realpath -m "${1:-target/tmux-3.5a}")"
version="3.5a-2~bpo12+1"
bin="$dest/bin/tmux"
if [[ -x "$bin" ]] && "$bin" -V 2>/dev/null | grep -q '^tmux 3.5a$'; then
  echo "$bin"
  exit 0
fi
if [[ ! -r /usr/share/keyrings/debian-archive-keyring.gpg ]]; then
  echo "fetch-3.5a: needs Debian's archive keyring (a Debian 12 machine); install tmux 3.5a another way and set CLIVE_TMUX" >&2
  exit 1
fi
work="$dest/apt"
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$dest/bin"
cat > "$work/sources.list" <<'SOURCES'
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-backports main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
SOURCES
apt_opts=(-o "Dir::Etc::sourcelist=$work/sources.list" -o "Dir::Etc::sourceparts=-" -o "Dir::State::lists=$work/lists"
  -o "Dir::Cache=$work/cache" -o "APT::Sandbox::User=$(id -un)" -o "Debug::NoLocking=1")
apt-get "${apt_opts[@]}" -qq update >&2
(cd "$work" && apt-get "${apt_opts[@]}" -qq download "tmux=$version" >&2)
dpkg-deb -x "$work"/tmux_*.deb "$dest/root"
real="$dest/root/usr/bin/tmux"
if ldconfig -p 2>/dev/null | grep -q 'libjemalloc\.so\.2'; then
  ln -sf "$real" "$bin"
elif [[ "$(id -u)" == 0 ]]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libjemalloc2 >&2
  ln -sf "$real" "$bin"
else
  (cd "$work" && apt-get "${apt_opts[@]}" -qq download libjemalloc2 >&2)
  dpkg-deb -x "$work"/libjemalloc2_*.deb "$dest/root"
  rm -f "$bin"
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "%s" "$@"\n' \
    "$dest/root/usr/lib/x86_64-linux-gnu" "$real" > "$bin"
  chmod +x "$bin"
fi
"$bin" -V | grep -q '^tmux 3.5a$'
echo "$bin"
