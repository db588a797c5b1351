#!/usr/bin/env bats
# install.sh into a temporary HOME: commands work from a new shell, uninstall leaves no trace.

setup() {
  REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  export HOME="$BATS_TEST_TMPDIR/home"
  mkdir -p "$HOME"
  unset RALPH_HOME RALPH_BIN_DIR
}

@test "install makes ralph --version work from a new shell" {
  run bash "$REPO/install.sh"
  [ "$status" -eq 0 ]
  version="$(node -p "require('$REPO/package.json').version")"
  run env -i HOME="$HOME" PATH="$HOME/.local/bin:$(dirname "$(command -v node)"):/usr/bin:/bin" bash -c 'ralph --version'
  [ "$status" -eq 0 ]
  [ "$output" = "ralph $version" ]
}

@test "every command gets a wrapper" {
  bash "$REPO/install.sh"
  for cmd in ralph ralph-monitor ralph-setup ralph-enable ralph-enable-ci ralph-import ralph-migrate ralph-stats ralph-queue ralph-fleet; do
    [ -x "$HOME/.local/bin/$cmd" ]
  done
}

@test "install is idempotent" {
  bash "$REPO/install.sh"
  run bash "$REPO/install.sh"
  [ "$status" -eq 0 ]
  [ "$(ls "$HOME/.local/bin" | wc -l)" -eq 10 ]
}

@test "uninstall leaves no trace" {
  before="$(cd "$HOME" && find . | sort)"
  bash "$REPO/install.sh"
  run bash "$REPO/install.sh" uninstall
  [ "$status" -eq 0 ]
  [ ! -e "$HOME/.ralph" ]
  for cmd in ralph ralph-monitor ralph-setup ralph-enable ralph-enable-ci ralph-import ralph-migrate ralph-stats ralph-queue ralph-fleet; do
    [ ! -e "$HOME/.local/bin/$cmd" ]
  done
  after="$(cd "$HOME" && find . | sort)"
  [ "$before" = "$after" ]
}

@test "uninstall keeps a command the user wrote themselves" {
  mkdir -p "$HOME/.local/bin"
  printf '#!/bin/sh\necho mine\n' > "$HOME/.local/bin/ralph-stats"
  chmod +x "$HOME/.local/bin/ralph-stats"
  bash "$REPO/install.sh"
  [ "$(cat "$HOME/.local/bin/ralph-stats")" = "$(printf '#!/bin/sh\necho mine')" ]
  bash "$REPO/install.sh" uninstall
  [ -f "$HOME/.local/bin/ralph-stats" ]
}

@test "unknown command exits 1" {
  run bash "$REPO/install.sh" bogus
  [ "$status" -eq 1 ]
  [[ "$output" == *"Unknown command: bogus"* ]]
}
