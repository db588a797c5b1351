#!/usr/bin/env bash
# install.sh — install ralph's commands for the current user, or remove them again.
#
#   ./install.sh             install (or update) into $RALPH_HOME (default ~/.ralph) and put
#                            wrappers for every command into $RALPH_BIN_DIR (default ~/.local/bin)
#   ./install.sh uninstall   remove every wrapper this script installed and $RALPH_HOME
#
# Run `npm install` in this checkout first: the built dist/ and the runtime dependencies are
# copied from here, so installing needs no network.
set -euo pipefail

SRC_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RALPH_HOME="${RALPH_HOME:-$HOME/.ralph}"
RALPH_HOME="${RALPH_HOME%/}" # its staging folder sits beside it, not in it
BIN_DIR="${RALPH_BIN_DIR:-$HOME/.local/bin}"
MANIFEST="$RALPH_HOME/.installed-wrappers"
COMMANDS=(ralph ralph-monitor ralph-setup ralph-enable ralph-enable-ci ralph-import ralph-migrate ralph-stats ralph-queue ralph-fleet)
MARKER="# installed by ralph install.sh"

usage() {
  sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

die() {
  echo "Error: $*" >&2
  exit 1
}

check_requirements() {
  command -v node >/dev/null 2>&1 || die "node is required (Node.js 20.19 or newer): https://nodejs.org"
  # The same floor as package.json's "engines" (require(esm) and the bundled modules need 20.19).
  node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' \
    || die "Node.js 20.19 or newer is required (found $(node --version))"
  command -v git >/dev/null 2>&1 || die "git is required"
  [ -f "$SRC_DIR/dist/bundle-ralph/ralph.js" ] || die "dist/ is missing: run 'npm install' in $SRC_DIR first"
  command -v claude >/dev/null 2>&1 || echo "Warning: the claude CLI is not on PATH (npm install -g @anthropic-ai/claude-code)" >&2
  command -v tmux >/dev/null 2>&1 || echo "Warning: tmux is not installed; ralph --monitor needs it" >&2
}

# The folders of package.json's "dependencies" (and optional ones), and of theirs, found where
# Node would look for them: one per line, a folder inside another one listed left out (copying the
# outer one brings it). Not `npm ls --omit=dev`, which took half a second and leaves ~/.npm
# behind unless given a cache of its own.
runtime_dependency_dirs() {
  RALPH_SRC_DIR="$SRC_DIR" node -e '
    const { existsSync, readFileSync } = require("node:fs");
    const { dirname, join, sep } = require("node:path");
    const root = process.env.RALPH_SRC_DIR;
    const found = new Set();
    const resolveFrom = (dir, name) => {
      for (let at = dir; ; at = dirname(at)) {
        const candidate = join(at, "node_modules", name);
        if (existsSync(join(candidate, "package.json"))) return candidate;
        if (at === root || at === dirname(at)) return undefined;
      }
    };
    const visit = (dir) => {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      const optional = Object.keys(pkg.optionalDependencies ?? {});
      for (const name of new Set([...Object.keys(pkg.dependencies ?? {}), ...optional])) {
        const at = resolveFrom(dir, name);
        if (at === undefined) {
          if (optional.includes(name)) continue;
          throw new Error(`${name} (needed by ${pkg.name}) is not installed: run npm install in ${root}`);
        }
        if (!found.has(at)) { found.add(at); visit(at); }
      }
    };
    try {
      visit(root);
    } catch (error) {
      console.error(error.message);
      process.exit(1);
    }
    const dirs = [...found];
    for (const dir of dirs) if (!dirs.some((outer) => dir.startsWith(outer + sep))) console.log(dir);
  '
}

copy_runtime() {
  local stage="$RALPH_HOME.tmp.$$" deps dep rel
  deps="$(runtime_dependency_dirs)" || die "could not list the runtime dependencies of $SRC_DIR"
  rm -rf "$stage"
  mkdir -p "$stage/node_modules"
  cp -R "$SRC_DIR/bin" "$SRC_DIR/dist" "$SRC_DIR/package.json" "$SRC_DIR/Dockerfile" "$SRC_DIR/.dockerignore" "$stage/"
  for dir in templates .ralph-template; do
    [ -d "$SRC_DIR/$dir" ] && cp -R "$SRC_DIR/$dir" "$stage/"
  done
  # Runtime dependencies only, copied from this checkout.
  while IFS= read -r dep; do
    [ -n "$dep" ] || continue
    rel="${dep#"$SRC_DIR"/}"
    mkdir -p "$stage/$(dirname "$rel")"
    cp -R "$dep" "$stage/$rel"
  done <<< "$deps"
  # Keep the wrapper manifest of an earlier install so uninstall still finds everything.
  [ -f "$MANIFEST" ] && cp "$MANIFEST" "$stage/.installed-wrappers"
  [ -f "$RALPH_HOME/.created-dirs" ] && cp "$RALPH_HOME/.created-dirs" "$stage/.created-dirs"
  rm -rf "$RALPH_HOME"
  mv "$stage" "$RALPH_HOME"
}

write_wrappers() {
  # Remember the folders we create, so uninstall can remove them again (only when empty).
  local created=() dir="$BIN_DIR"
  while [ ! -d "$dir" ]; do
    created+=("$dir")
    dir="$(dirname "$dir")"
  done
  mkdir -p "$BIN_DIR"
  [ -f "$RALPH_HOME/.created-dirs" ] || printf '%s\n' "${created[@]+"${created[@]}"}" > "$RALPH_HOME/.created-dirs"
  : > "$MANIFEST"
  local cmd target
  for cmd in "${COMMANDS[@]}"; do
    target="$BIN_DIR/$cmd"
    if [ -e "$target" ] && ! grep -q "$MARKER" "$target" 2>/dev/null; then
      echo "Warning: $target exists and was not installed by ralph; left alone" >&2
      continue
    fi
    printf '#!/usr/bin/env bash\n%s\nexec node "%s/bin/%s" "$@"\n' "$MARKER" "$RALPH_HOME" "$cmd" > "$target"
    chmod +x "$target"
    echo "$target" >> "$MANIFEST"
  done
}

install() {
  check_requirements
  copy_runtime
  write_wrappers
  echo "✅ ralph installed: $RALPH_HOME (commands in $BIN_DIR)"
  case ":$PATH:" in
    *":$BIN_DIR:"*) ;;
    *) echo "Note: $BIN_DIR is not on your PATH; add: export PATH=\"$BIN_DIR:\$PATH\"" ;;
  esac
}

uninstall() {
  local removed=0 cmd target
  for cmd in "${COMMANDS[@]}"; do
    target="$BIN_DIR/$cmd"
    if [ -f "$target" ] && grep -q "$MARKER" "$target" 2>/dev/null; then
      rm -f "$target"
      removed=$((removed + 1))
    fi
  done
  if [ -f "$MANIFEST" ]; then
    while IFS= read -r target; do
      if [ -f "$target" ] && grep -q "$MARKER" "$target" 2>/dev/null; then
        rm -f "$target"
        removed=$((removed + 1))
      fi
    done < "$MANIFEST"
  fi
  local created=()
  if [ -f "$RALPH_HOME/.created-dirs" ]; then
    mapfile -t created < "$RALPH_HOME/.created-dirs"
  fi
  rm -rf "$RALPH_HOME"
  for dir in "${created[@]+"${created[@]}"}"; do
    [ -n "$dir" ] && rmdir "$dir" 2>/dev/null || true
  done
  echo "✅ ralph uninstalled ($removed commands removed, $RALPH_HOME deleted)"
}

case "${1:-install}" in
  install) install ;;
  uninstall) uninstall ;;
  -h | --help | help) usage ;;
  *)
    echo "Unknown command: $1" >&2
    usage >&2
    exit 1
    ;;
esac
