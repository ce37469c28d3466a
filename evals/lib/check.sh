# Helpers for eval checks, sourced by each task's `check`:
#
#     . "$(dirname "$0")/../../lib/check.sh"
#
# A check runs in the task's working directory after the agent. It trusts only what is there: files, and for a
# question the agent's answer, which the runner saves to the file named by $EVAL_OUTPUT. It never trusts what
# the agent says it did. It exits 0 on a pass; on a failure it says why on stderr (the runner keeps the last
# line) and exits 1.

set -uo pipefail

# fail MESSAGE...: the check failed, and why.
fail() {
  printf '%s\n' "$*" >&2
  exit 1
}

# content FILE: the file's text without carriage returns and trailing blanks; used as "$(content FILE)", which
# also drops trailing blank lines.
content() {
  sed -e 's/\r$//' -e 's/[[:space:]]*$//' -- "$1"
}

# file_is FILE EXPECTED: FILE exists and its content (see `content`) is exactly EXPECTED.
file_is() {
  [ -f "$1" ] || fail "$1 is missing"
  local got
  got="$(content "$1")"
  [ "$got" = "$2" ] || fail "$1: expected '$2', got '$(printf '%s' "$got" | head -c 200)'"
}

# file_number_is FILE NUMBER: FILE holds one number equal to NUMBER (1234.5 = 1234.50; surrounding blanks ok).
file_number_is() {
  [ -f "$1" ] || fail "$1 is missing"
  local got
  got="$(content "$1" | tr -d '[:space:]')"
  [[ "$got" =~ ^-?[0-9]+(\.[0-9]+)?$ ]] || fail "$1: expected the number $2, got '$(printf '%s' "$got" | head -c 200)'"
  awk -v a="$got" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 0.000001) }' ||
    fail "$1: expected $2, got $got"
}

# same_as_fixture FILE: FILE is unchanged from the task's fixtures.
same_as_fixture() {
  [ -f "$1" ] || fail "$1 is missing"
  cmp -s -- "$1" "$EVAL_FIXTURES/$1" || fail "$1 was changed"
}

# answer: the agent's answer (empty if it gave none).
answer() {
  if [ -n "${EVAL_OUTPUT:-}" ] && [ -f "$EVAL_OUTPUT" ]; then cat -- "$EVAL_OUTPUT"; fi
}

# answer_numbers: every number in the answer, one per line (thousands separators removed).
answer_numbers() {
  answer | sed -E 's/([0-9]),([0-9]{3})/\1\2/g' | grep -oE -- '-?[0-9]+(\.[0-9]+)?' || true
}

# answer_number_is NUMBER [ALLOWED...]: the answer states NUMBER, and no number other than NUMBER and the
# ALLOWED ones (those in the question, which an answer may repeat). A list of guesses does not pass.
answer_number_is() {
  local want="$1" seen=0 n ok allowed
  shift
  while IFS= read -r n; do
    [ -n "$n" ] || continue
    if awk -v a="$n" -v b="$want" 'BEGIN { exit !(a + 0 == b + 0) }'; then
      seen=1
      continue
    fi
    ok=0
    for allowed in "$@"; do
      if [ "$n" = "$allowed" ]; then ok=1; fi
    done
    [ "$ok" = 1 ] || fail "the answer names $n as well as (or instead of) $want: '$(answer | head -c 200)'"
  done < <(answer_numbers)
  [ "$seen" = 1 ] || fail "the answer does not state $want: '$(answer | head -c 200)'"
}

# answer_matches REGEX: the answer matches the extended REGEX (case-insensitive).
answer_matches() {
  answer | grep -Eqi -- "$1" || fail "the answer does not match /$1/: '$(answer | head -c 200)'"
}

# answer_lacks REGEX: the answer does not match the extended REGEX (case-insensitive).
answer_lacks() {
  if answer | grep -Eqi -- "$1"; then fail "the answer matches /$1/: '$(answer | head -c 200)'"; fi
}

# rerun_in_copy COMMAND...: runs COMMAND in a fresh copy of the working directory (so a check can prove a
# repaired script works, not just that its output file exists); fails if it fails. The copy's path is in
# $EVAL_COPY until the check exits.
rerun_in_copy() {
  EVAL_COPY="$(mktemp -d)"
  trap 'rm -rf -- "$EVAL_COPY"' EXIT
  cp -a . "$EVAL_COPY/" || fail "cannot copy the working directory"
  (cd "$EVAL_COPY" && timeout 30 "$@" </dev/null >"$EVAL_COPY/.rerun.out" 2>&1) ||
    fail "'$*' still fails: $(tail -n 1 "$EVAL_COPY/.rerun.out")"
}
