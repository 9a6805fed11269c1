#!/usr/bin/env bash
# npm run image: the OCI image localhost/tariff:<version> (and :latest) from this checkout, built
# with podman FROM scratch (deploy/image/Containerfile), without any registry but npm's: the
# packed tarball, its dependencies exactly as its npm-shrinkwrap.json pins them, the bundled Node.js 24,
# the libraries `ldd` names for it and for the SQLite addon, CA certificates, an unprivileged user.
# Every file's time is SOURCE_DATE_EPOCH (default: the last commit's), so the same commit gives
# the same layers and the same image digest. Prints the image, its digest and its size.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "tariff image: $*" >&2; exit 1; }
command -v podman >/dev/null || fail "podman is not installed (Debian: apt-get install podman runc; docs/deployment.md)"

name=$(node -p "require('./package.json').name")
version=$(node -p "require('./package.json').version")
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) fail "no bundled Node.js for $(uname -m)" ;;
esac
runtime=node-linux-$arch

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
context="$work/context"
root="$context/root"
app="$root/opt/tariff/lib/node_modules/$name"
mkdir -p "$app" "$root/opt/tariff/bin" "$root/etc/ssl/certs" "$root/tmp" "$context/data"

# The package as npm packs it (dist/ built from src/), with exactly the locked dependencies.
npm pack --silent --pack-destination "$work" > /dev/null
# The tarball carries npm-shrinkwrap.json (the lockfile, as npm packs it): npm ci installs exactly it.
tar -xzf "$work/$name-$version.tgz" -C "$app" --strip-components=1
(cd "$app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error > "$work/npm.log" 2>&1) || {
  cat "$work/npm.log" >&2
  fail "npm ci of the packed tarball failed"
}
rm "$app/npm-shrinkwrap.json"
# What is never loaded at run time (test/image/image.test.ts lists the image by kind and fails on
# any): prebuilt addons for other systems (macOS, Windows, musl), the C headers, sources and build
# files addons are compiled from (node-addon-api is only that), the packages bundled into dist/,
# the dependencies' TypeScript sources, type declarations, source maps, tests and Markdown, the
# product's own Markdown and deploy/ files (docs/openapi.json stays: the service serves it).
find "$app" -path '*/prebuilds/*' -name '*.node' ! -name "linux-$arch.node" -delete
rm -rf "$app/node_modules/node-linux-$arch/include" "$app/node_modules/node-linux-$arch/share" "$app/node_modules/better-sqlite3/deps" \
  "$app/node_modules/better-sqlite3/src" "$app/node_modules/node-addon-api" "$app/deploy"
for package in $(node -e "import('./scripts/bundled-packages.js').then((m) => console.log(m.BUNDLED.join(' ')))"); do
  rm -rf "${app:?}/node_modules/$package"
done
find "$app/node_modules" -depth -type d \( -name test -o -name tests -o -name __tests__ \) -exec rm -rf {} +
find "$app/node_modules" -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.map' -o -name '*.h' -o -name '*.hpp' \
  -o -name '*.c' -o -name '*.cc' -o -name '*.cpp' -o -name '*.gyp' -o -name '*.gypi' -o -iname '*.md' -o -iname '*.markdown' \) -delete
find "$app" -type f \( -name '*.map' -o -iname '*.md' \) -delete
node_bin="$app/node_modules/$runtime/bin/node"
[ -x "$node_bin" ] || fail "$runtime did not install: no Node.js 24 to put in the image"
# Its symbols and debug information serve a debugger, never a run: 126 MB stripped to 108 (4 MB less compressed).
command -v strip >/dev/null || fail "strip is not installed (Debian: apt-get install binutils)"
strip --strip-all "$node_bin"
ln -s "../lib/node_modules/$name/node_modules/$runtime/bin/node" "$root/opt/tariff/bin/node"
ln -s "../lib/node_modules/$name/bin/tariff.js" "$root/opt/tariff/bin/tariff"

# The shared libraries the runtime and the native addon load (and the loader itself).
for binary in "$node_bin" $(find "$app" -name '*.node' -type f); do
  ldd "$binary" 2>/dev/null | awk '/=> \// { print $3 } /^[ \t]*\/[^ ]*ld-linux/ { print $1 }' || true
done | sort -u | while read -r library; do
  mkdir -p "$root$(dirname "$library")"
  cp -L "$library" "$root$library"
done
cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
printf 'root:x:0:0:root:/root:/sbin/nologin\ntariff:x:10001:10001:tariff:/data:/sbin/nologin\n' > "$root/etc/passwd"
printf 'root:x:0:\ntariff:x:10001:\n' > "$root/etc/group"
chmod 1777 "$root/tmp"
cp deploy/image/Containerfile "$context/"
find "$context" -exec touch -h -d "@$epoch" {} +

podman build --quiet --format oci --timestamp "$epoch" --layers=false \
  --label "org.opencontainers.image.title=$name" \
  --label "org.opencontainers.image.version=$version" \
  --label "org.opencontainers.image.revision=$revision" \
  --label "org.opencontainers.image.created=$created" \
  --label "org.opencontainers.image.source=https://github.com/tobacco-tariff/tobacco-tariff-dataset" \
  --label "org.opencontainers.image.licenses=UNLICENSED" \
  -t "localhost/tariff:$version" -t localhost/tariff:latest "$context" > "$work/image-id"

digest=$(podman image inspect --format '{{.Digest}}' "localhost/tariff:$version")
size=$(podman image inspect --format '{{.Size}}' "localhost/tariff:$version")
compressed=$(podman image save --format docker-archive "localhost/tariff:$version" | gzip -n | wc -c)
echo "localhost/tariff:$version $digest ($((size / 1048576)) MB, $((compressed / 1048576)) MB compressed)"
