#!/usr/bin/env bats
# install.sh into a temporary HOME: commands work from a new shell, uninstall leaves no trace.

setup() {
  REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  export HOME="$BATS_TEST_TMPDIR/home"
  mkdir -p "$HOME"
  unset RALPH_HOME RALPH_BIN_DIR
  # No TLS here: each Node start would only parse the machine's CA bundle (tests/helpers/child-env.ts).
  unset NODE_EXTRA_CA_CERTS
}

@test "install makes ralph --version work from a new shell" {
  run bash "$REPO/install.sh"
  [ "$status" -eq 0 ]
  version="$(node -p "require('$REPO/package.json').version")"
  run env -i HOME="$HOME" PATH="$HOME/.local/bin:$(dirname "$(command -v node)"):/usr/bin:/bin" bash -c 'ralph --version'
  [ "$status" -eq 0 ]
  [ "$output" = "ralph $version" ]
}

@test "install copies the runtime dependencies and no dev one, and stops, naming it, when one is missing" {
  bash "$REPO/install.sh"
  [ -f "$HOME/.ralph/node_modules/jq-wasm/package.json" ]
  [ -f "$HOME/.ralph/node_modules/zod/package.json" ]
  [ -f "$HOME/.ralph/node_modules/sax/package.json" ]
  [ ! -e "$HOME/.ralph/node_modules/vitest" ]
  # A checkout whose npm install left jq-wasm out: the installed ralph stays as it was.
  src="$BATS_TEST_TMPDIR/src"
  mkdir -p "$src/node_modules"
  cp -R "$REPO/bin" "$REPO/dist" "$REPO/package.json" "$REPO/install.sh" "$REPO/Dockerfile" "$REPO/.dockerignore" "$src/"
  cp -R "$REPO/node_modules/zod" "$src/node_modules/"
  run bash "$src/install.sh"
  [ "$status" -eq 1 ]
  [[ "$output" == *"jq-wasm (needed by ralph-claude-code) is not installed: run npm install in $src"* ]]
  [ -f "$HOME/.ralph/node_modules/jq-wasm/package.json" ]
  [ -z "$(find "$HOME" -maxdepth 1 -name '.ralph.tmp.*')" ]
}

@test "install copies a nested runtime dependency once, and goes on without a missing optional one" {
  src="$BATS_TEST_TMPDIR/src"
  mkdir -p "$src/node_modules/a/node_modules/b"
  cp -R "$REPO/bin" "$REPO/dist" "$REPO/install.sh" "$REPO/Dockerfile" "$REPO/.dockerignore" "$src/"
  node -e 'const p = require(process.argv[1]); p.dependencies = { a: "1", gone: "1" }; p.optionalDependencies = { gone: "1" }; console.log(JSON.stringify(p))' "$REPO/package.json" > "$src/package.json"
  echo '{ "name": "a", "dependencies": { "b": "1" } }' > "$src/node_modules/a/package.json"
  echo '{ "name": "b" }' > "$src/node_modules/a/node_modules/b/package.json"
  echo 'module.exports = 1;' > "$src/node_modules/a/node_modules/b/index.js"
  run bash "$src/install.sh"
  [ "$status" -eq 0 ]
  [ -f "$HOME/.ralph/node_modules/a/node_modules/b/index.js" ]
  [ ! -e "$HOME/.ralph/node_modules/a/node_modules/b/b" ]
  [ ! -e "$HOME/.ralph/node_modules/gone" ]
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

@test "the installed ralph --sandbox-build builds from the Dockerfile it installed" {
  bash "$REPO/install.sh"
  [ -f "$HOME/.ralph/Dockerfile" ]
  [ -f "$HOME/.ralph/.dockerignore" ]
  mkdir -p "$BATS_TEST_TMPDIR/fakebin"
  printf '#!/bin/sh\nprintf "%%s\\n" "$*" > "%s/docker-args"\n' "$BATS_TEST_TMPDIR" > "$BATS_TEST_TMPDIR/fakebin/docker"
  chmod +x "$BATS_TEST_TMPDIR/fakebin/docker"
  run env -i HOME="$HOME" PATH="$BATS_TEST_TMPDIR/fakebin:$HOME/.local/bin:$(dirname "$(command -v node)"):/usr/bin:/bin" bash -c 'cd "$HOME" && ralph --sandbox-build'
  [ "$status" -eq 0 ]
  [[ "$(cat "$BATS_TEST_TMPDIR/docker-args")" == "build --tag ralph-sandbox:latest --file $HOME/.ralph/Dockerfile "* ]]
}

@test "install refuses a Node.js older than package.json's engines (20.19)" {
  # A node that reports 20.18.0: the real one with process.versions replaced before any script.
  mkdir -p "$BATS_TEST_TMPDIR/oldnode"
  echo 'Object.defineProperty(process, "versions", { value: { ...process.versions, node: "20.18.0" } });' > "$BATS_TEST_TMPDIR/oldnode/v20.18.cjs"
  printf '#!/bin/sh\n[ "$1" = "--version" ] && { echo v20.18.0; exit 0; }\nexec "%s" -r "%s" "$@"\n' "$(command -v node)" "$BATS_TEST_TMPDIR/oldnode/v20.18.cjs" > "$BATS_TEST_TMPDIR/oldnode/node"
  chmod +x "$BATS_TEST_TMPDIR/oldnode/node"
  run env PATH="$BATS_TEST_TMPDIR/oldnode:$PATH" bash "$REPO/install.sh"
  [ "$status" -eq 1 ]
  [[ "$output" == *"Node.js 20.19 or newer is required (found v20.18.0)"* ]]
  [ ! -e "$HOME/.ralph" ]
}
