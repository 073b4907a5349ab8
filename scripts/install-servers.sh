#!/usr/bin/env bash
# Install the servers the tests and local runs need into a project-local bin dir:
#   - nats-server v2.12.15  (go install from the Go module proxy)
#   - ferretdb    v1.24.2   (built from a vendored scratch module with the patches in
#                            scripts/ferretdb/, reports v1.24.2-mats.N; see install_ferretdb)
#
# Usage: scripts/install-servers.sh [BIN_DIR]     (default: <repo root>/.mats/bin)
#
# Needs `go` and `git` (to apply the patches) on PATH and access to the Go module proxy
# (no GitHub, no Docker).
# Idempotent: a server whose binary in BIN_DIR already reports the pinned version is skipped.
# The Go module and build caches are left in place so that rebuilds are fast.
set -euo pipefail

NATS_VERSION="v2.12.15"
FERRETDB_VERSION="v1.24.2"
# The version the patched build reports. Bump the suffix whenever scripts/ferretdb/*.patch
# change, so that installed() replaces binaries built from the previous patch set.
FERRETDB_BUILD="$FERRETDB_VERSION-mats.4"

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
BIN="${1:-$REPO_ROOT/.mats/bin}"

log() { printf '==> %s\n' "$*"; }
exec 3>&1 # progress lines go here, past the output that quiet() holds back
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

if ! command -v go >/dev/null 2>&1; then
  die "Go 1.24+ is needed to build nats-server and FerretDB: install golang (https://go.dev/doc/install)"
fi
if ! command -v git >/dev/null 2>&1; then
  die "git is needed to apply scripts/ferretdb/*.patch to FerretDB: install git"
fi

mkdir -p "$BIN"
BIN="$(cd "$BIN" && pwd)" # absolute: the builds below run in other directories

# Sanitize the Go environment: a user-level GOFLAGS (env or `go env -w`) may carry
# -mod=... which breaks `go install pkg@version` and the vendored build; keep the rest
# (e.g. -buildvcs=false). Flags given on the command line below override GOFLAGS anyway.
read -r -a user_goflags <<<"$(go env GOFLAGS)"
clean_goflags=()
for flag in ${user_goflags[@]+"${user_goflags[@]}"}; do
  case "$flag" in
    -mod=*) ;;
    *) clean_goflags+=("$flag") ;;
  esac
done
# A blank (not empty) value: an empty GOFLAGS would fall back to the `go env -w` one.
GOFLAGS="${clean_goflags[*]:- }"
export GOFLAGS
export GOWORK=off # a go.work somewhere above the scratch dirs must not interfere
export GO111MODULE=on

# installed NAME EXPECTED_LINE: true if $BIN/NAME exists and `--version` prints EXPECTED_LINE.
# The output is read whole first: `grep -q` in a pipe stops reading at its match, and
# under pipefail the writer's SIGPIPE would then fail the check at random.
installed() {
  local out
  [[ -x "$BIN/$1" ]] && out="$("$BIN/$1" --version 2>/dev/null)" && grep -qxF -- "$2" <<<"$out"
}

TMP="$(mktemp -d "${TMPDIR:-/tmp}/install-servers.XXXXXX")"
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

install_nats() {
  local gobin="$TMP/nats-bin"
  mkdir -p "$gobin"
  log "go install github.com/nats-io/nats-server/v2@$NATS_VERSION (downloads and compiles it: about a minute the first time)"
  GOBIN="$gobin" ticking nats-server go install "github.com/nats-io/nats-server/v2@$NATS_VERSION"
  mv -f "$gobin/nats-server" "$BIN/nats-server" # rename: safe even if the old one is running
  installed nats-server "nats-server: $NATS_VERSION" ||
    die "$BIN/nats-server does not report $NATS_VERSION"
  log "installed $BIN/nats-server"
}

# Plain `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2` fails behind the
# proxy (403 on the module's version list during the deprecation check), so build it
# from a scratch module that depends on it via a tools.go import, vendored so that the
# missing generated build/version/version.txt can be supplied (without it ferretdb
# panics at start) and scripts/ferretdb/*.patch applied (in name order; each says what
# and why). Their hunks for *_test.go files are for upstream: tests are not vendored.
install_ferretdb() {
  local mod="$TMP/ferretbuild" pkg="github.com/FerretDB/FerretDB/cmd/ferretdb"
  mkdir -p "$mod"
  cd "$mod"
  printf '//go:build tools\n\npackage main\n\nimport _ "%s"\n' "$pkg" >tools.go
  log "go mod init ferretbuild"
  quiet go mod init ferretbuild
  log "go get $pkg@$FERRETDB_VERSION (downloads FerretDB and its dependencies: up to a minute the first time)"
  quiet go get "$pkg@$FERRETDB_VERSION"
  log "go mod tidy && go mod vendor (copies the dependencies into the build directory: 10 to 30 s)"
  quiet go mod tidy
  quiet go mod vendor
  local src="vendor/github.com/FerretDB/FerretDB" patch
  [[ -d "$src/build/version" ]] || die "go mod vendor did not vendor $src/build/version"
  for patch in "$SCRIPT_DIR"/ferretdb/*.patch; do
    [[ -f "$patch" ]] || continue
    log "apply ${patch#"$REPO_ROOT/"}"
    # GIT_CEILING_DIRECTORIES: a repository above TMPDIR must not make `git apply` apply
    # paths relative to that repository's root (and skip them).
    (cd "$src" && GIT_CEILING_DIRECTORIES="$mod" git apply --exclude='*_test.go' "$patch") ||
      die "$patch does not apply to FerretDB $FERRETDB_VERSION"
  done
  printf '%s\n' "$FERRETDB_BUILD" >"$src/build/version/version.txt"
  log "go build -mod=vendor $pkg (compiles FerretDB: 1 to 2 minutes on 2 cores the first time, seconds with a warm Go build cache)"
  ticking ferretdb go build -mod=vendor -trimpath -o "$mod/ferretdb" "$pkg"
  mv -f "$mod/ferretdb" "$BIN/ferretdb"
  installed ferretdb "version: $FERRETDB_BUILD" ||
    die "$BIN/ferretdb does not report $FERRETDB_BUILD"
  log "installed $BIN/ferretdb"
}

# ticking NAME CMD...: run CMD, saying every 15 s that it still runs, so that a long silent
# step (Go prints nothing while it compiles) is not taken for a hang.
ticking() {
  local name="$1" started=$SECONDS pid
  shift
  "$@" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if (((SECONDS - started) % 15 == 0)); then printf '==> [%s] still working: %s (%d s)\n' "$name" "$1 $2" "$((SECONDS - started))" >&3; fi
  done
  wait "$pid"
}

# quiet CMD...: run CMD, showing its (chatty) output only if it fails.
quiet() {
  local out="$TMP/quiet.$BASHPID.log"
  if ! ticking ferretdb "$@" >"$out" 2>&1; then
    cat "$out"
    die "command failed: $*"
  fi
}

# Prefix every output line of a job with its name so parallel output stays readable.
prefix() {
  local line
  while IFS= read -r line; do printf '[%s] %s\n' "$1" "$line"; done
}

names=()
if installed nats-server "nats-server: $NATS_VERSION"; then
  log "nats-server $NATS_VERSION already installed"
else
  (install_nats 2>&1 | prefix nats-server) &
  pids+=("$!")
  names+=(nats-server)
fi
if installed ferretdb "version: $FERRETDB_BUILD"; then
  log "ferretdb $FERRETDB_BUILD already installed"
else
  (install_ferretdb 2>&1 | prefix ferretdb) &
  pids+=("$!")
  names+=(ferretdb)
fi

failed=()
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then failed+=("${names[$i]}"); fi
done
pids=()
((${#failed[@]} == 0)) || die "failed to install: ${failed[*]} (see the output above)"

log "nats-server: $BIN/nats-server"
log "ferretdb:    $BIN/ferretdb"
