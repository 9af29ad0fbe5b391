#!/usr/bin/env bash
# The installation test (make test-install, part of make test): installs BIN_DIR/cinegraph into a
# temporary prefix as `make install PREFIX=...` does, then checks what a user who has never seen
# the checkout gets — `cinegraph demo` in an empty folder with no CINEGRAPH_MODELS finds the
# installed models and writes its movie; man renders every page without a warning; the bash
# completion loads — and that uninstalling leaves the prefix empty. Every check runs and reports;
# the exit status is 1 if any failed (the temporary folders are then kept for a look).
#
#   scripts/test-install.sh BIN_DIR
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: scripts/test-install.sh BIN_DIR" >&2; exit 2; }
CHECKOUT=$(cd "$(dirname "$0")/.." && pwd)
BIN_DIR=$(cd "$1" && pwd)
PREFIX=$(mktemp -d)
HOME_DIR=$(mktemp -d)   # the "user's" empty folder
failures=0
ok() { echo "test-install: ok: $*"; }
fail() { echo "test-install: FAIL: $*" >&2; failures=$((failures + 1)); }

# Outside the checkout, so that nothing is found through it (.models/, graphs/).
case "$PREFIX/" in "$CHECKOUT"/*) echo "test-install: TMPDIR is inside the checkout; set TMPDIR=/tmp" >&2; exit 2 ;; esac

bash "$CHECKOUT/scripts/install.sh" "$BIN_DIR" "$PREFIX"

# 1. The demo, short and small, from the empty folder, with only the installation to go on.
log="$HOME_DIR/demo.log"
if (cd "$HOME_DIR" && env -u CINEGRAPH_MODELS timeout 600 "$PREFIX/bin/cinegraph" demo --duration 2s --size 320x180 --quiet) >"$log" 2>&1; then
  mp4=$(find "$HOME_DIR/out" -name '*.mp4' -size +0 2>/dev/null | head -1)
  if [ -n "$mp4" ]; then ok "cinegraph demo in an empty folder wrote ${mp4#"$HOME_DIR"/}"
  else fail "cinegraph demo exited 0 but wrote no .mp4 under $HOME_DIR/out (log: $log)"; fi
else
  fail "cinegraph demo in an empty folder failed (exit $?); the installed binary must find $PREFIX/share/cinegraph/models by itself. Log ($log):"
  sed 's/^/    /' "$log" | tail -5 >&2
fi

# 2. Every man page renders, with no warning from man or groff.
pages=("$PREFIX"/share/man/man1/*.1.gz)
bad=0
for page in "${pages[@]}"; do
  out=$(MANWIDTH=80 man --warnings -l "$page" 2>"$HOME_DIR/man.err") || { fail "man -l $page failed: $(cat "$HOME_DIR/man.err")"; bad=1; continue; }
  [ -n "$out" ] || { fail "man -l $page rendered nothing"; bad=1; }
  [ ! -s "$HOME_DIR/man.err" ] || { fail "man -l $page warned: $(cat "$HOME_DIR/man.err")"; bad=1; }
done
[ -f "$PREFIX/share/man/man1/cinegraph.1.gz" ] || { fail "no cinegraph.1.gz installed"; bad=1; }
[ $bad -eq 1 ] || ok "man -l renders ${#pages[@]} pages without warnings"

# 3. The bash completion loads and registers itself for cinegraph.
comp="$PREFIX/share/bash-completion/completions/cinegraph"
if reg=$(bash -c 'source "$1" && complete -p cinegraph' _ "$comp" 2>&1); then ok "bash completion loads: $reg"
else fail "bash completion $comp did not load: $reg"; fi

# 4. Example graphs by name from the empty folder (the installed share/cinegraph/graphs), and
#    `cinegraph doctor` finding the installed models and runtime for what the demo needs.
if out=$(cd "$HOME_DIR" && "$PREFIX/bin/cinegraph" validate viewfinder 2>&1); then ok "cinegraph validate viewfinder: ${out%% (*}"
else fail "cinegraph validate viewfinder from an empty folder: $out"; fi
if out=$(cd "$HOME_DIR" && env -u CINEGRAPH_MODELS "$PREFIX/bin/cinegraph" doctor 2>&1); then
  grep -qE "models \([0-9]+\): $PREFIX/share/cinegraph/models" <<<"$out" && ok "cinegraph doctor: the demo's needs are all here, models from the installation" \
    || fail "cinegraph doctor did not name the installed models: $out"
else fail "cinegraph doctor exited non-zero: $out"; fi

# 5. Uninstalling removes everything it installed, and nothing else.
bash "$CHECKOUT/scripts/install.sh" --uninstall "$PREFIX" >/dev/null
left=$(find "$PREFIX" -mindepth 1 | head -5)
if [ -z "$left" ]; then ok "uninstall left $PREFIX empty"; else fail "uninstall left files behind, e.g.: $left"; fi

if [ $failures -gt 0 ]; then
  echo "test-install: $failures check(s) failed; kept $PREFIX and $HOME_DIR" >&2
  exit 1
fi
rm -rf "$PREFIX" "$HOME_DIR"
echo "test-install: all checks passed"
