# Sourced by script/ruby33 and script/rails72: a private apt configuration (its own sources list, lists,
# cache and empty status under $SRC/apt/) through which they fetch Debian's packages without touching the
# system's apt, and source_package, which unpacks a source package under $SRC. The sourcing script sets SRC
# and a say() function, then calls private_apt with its sources list lines.

# A pool that mirrors Debian's upstream tarballs byte for byte, for the files deb.debian.org does not serve
# here (ruby-sqlite3's, ruby-nio4r's, ruby-websocket-driver's); every file from it is checked against the
# SHA-256 in Debian's own .dsc.
FALLBACK_POOL=http://archive.ubuntu.com/ubuntu/pool

# Writes $SRC/apt/sources.list from the arguments (one line each; apt checks every list it fetches against
# Debian's archive keyring, so every .deb and .dsc it gets is verified) and sets APT_OPTS, the options that
# point apt-get at this configuration alone.
private_apt() {
  mkdir -p "$SRC"/apt/lists/partial "$SRC"/apt/cache/archives/partial
  printf '%s\n' "$@" >"$SRC/apt/sources.list"
  : >"$SRC/apt/status"
  APT_OPTS=(-o "Dir::Etc::SourceList=$SRC/apt/sources.list" -o "Dir::Etc::SourceParts=-"
            -o "Dir::State=$SRC/apt" -o "Dir::State::Lists=$SRC/apt/lists"
            -o "Dir::State::status=$SRC/apt/status" -o "Dir::Cache=$SRC/apt/cache"
            -o "Debug::NoLocking=1" -o "APT::Sandbox::User=$(id -un)")
}

# Unpacks source package $1 of release $2 (e.g. ruby3.3 trixie) under $SRC/$1/ with Debian's patches
# applied, downloading it on the first call; prints the unpacked directory. When Debian's archive lacks a
# file the .dsc names, it comes from FALLBACK_POOL, checked against the .dsc; when the Debian changes
# themselves cannot be had, the checked upstream tarball is unpacked alone (said on stderr).
source_package() {
  local pkg=$1 release=$2 dir="$SRC/$1" dsc sum size file orig=""
  if [[ ! -f "$dir/UNPACKED" ]]; then
    rm -rf "$dir"
    mkdir -p "$dir"
    apt-get "${APT_OPTS[@]}" update -qq >&2
    (cd "$dir" && apt-get "${APT_OPTS[@]}" source --download-only "$pkg/$release" >&2) || true
    dsc=$(ls "$dir"/*.dsc 2>/dev/null | head -n 1)
    [[ -n "$dsc" ]] || { say "no .dsc of $pkg/$release"; exit 1; }
    while read -r sum size file; do
      if [[ ! -f "$dir/$file" ]]; then
        say "$file: not served by deb.debian.org here; trying $FALLBACK_POOL"
        curl -fsS -o "$dir/$file" "$FALLBACK_POOL/universe/${pkg:0:1}/$pkg/$file" ||
          curl -fsS -o "$dir/$file" "$FALLBACK_POOL/main/${pkg:0:1}/$pkg/$file" || rm -f "$dir/$file"
      fi
      if [[ -f "$dir/$file" ]]; then
        echo "$sum  $dir/$file" | sha256sum --check --status || { say "$file: SHA-256 differs from $dsc"; exit 1; }
        [[ "$file" == *.orig.tar.* ]] && orig="$dir/$file"
      fi
    done < <(sed -n '/^Checksums-Sha256:/,/^[^ ]/{/^ /p}' "$dsc")
    if (cd "$dir" && dpkg-source -x "$dsc" unpacked >&2 2>/dev/null); then
      :
    elif [[ -n "$orig" ]]; then
      say "$pkg: Debian's changes are not to be had; building the (checked) upstream tarball $(basename "$orig")"
      mkdir -p "$dir/unpacked"
      tar -xf "$orig" -C "$dir/unpacked" --strip-components=1
    else
      say "$pkg: could not fetch its sources"
      exit 1
    fi
    touch "$dir/UNPACKED"
  fi
  echo "$dir/unpacked"
}
