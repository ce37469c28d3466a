#!/usr/bin/env bash
# Vendors xterm.js for `clive serve` from the npm registry: the ES module build, its stylesheet and licence,
# copied byte for byte into crates/clive-serve/assets/xterm/ (the binary embeds them).
#
# Update: change VERSION, run this script, check the page (cargo test -p clive-cli --test serve_browser), and
# commit the files with the new checksums in assets/xterm/README.md.
set -euo pipefail
VERSION="${1:-6.0.0}"
cd "$(dirname "$0")/../.."
dest=crates/clive-serve/assets/xterm
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "@xterm/xterm@${VERSION}" >/dev/null && tar xzf "xterm-xterm-${VERSION}.tgz")
mkdir -p "$dest"
cp "$work/package/lib/xterm.mjs" "$work/package/css/xterm.css" "$work/package/LICENSE" "$dest/"
{
  echo "# xterm.js ${VERSION} (vendored)"
  echo
  echo "From the npm package \`@xterm/xterm@${VERSION}\` (MIT, see LICENSE): \`lib/xterm.mjs\` and"
  echo "\`css/xterm.css\`, unchanged. \`clive serve\` embeds them; nothing is fetched at run time."
  echo "Update with \`scripts/xterm/vendor.sh <version>\`."
  echo
  echo '```'
  (cd "$dest" && sha256sum xterm.mjs xterm.css LICENSE)
  echo '```'
} >"$dest/README.md"
echo "vendored @xterm/xterm@${VERSION} into $dest" >&2
