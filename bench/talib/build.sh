#!/bin/sh
# Builds TA-Lib C for `npm run bench:indicators` only (TA-Lib is not a dependency of the project and
# nothing of it is committed).
#
#   sh bench/talib/build.sh            # into .talib/ in the project
#   TALIB_DIR=/some/dir sh bench/talib/build.sh
#
# Source: the TA-Lib C 0.6.0-dev sources shipped inside the npm package talib@1.1.6 (src/lib/src),
# fetched with `npm pack` into a temporary directory (no install, no install scripts run).
# Only ta_common and ta_func are compiled (the indicator functions and the globals they read; the
# abstract interface is not needed). Flags are the ones of TA-Lib's own Linux makefiles
# (src/lib/make/csr/linux/g++/*/Makefile): -O2 -fno-strict-aliasing -DTA_SINGLE_THREAD, plus on x86-64
# -march=x86-64 -m64 -D__64BIT__. Result: $TALIB_DIR/lib/libta_lib.a and $TALIB_DIR/include/*.h.
set -eu

VERSION=1.1.6
here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
dest=${TALIB_DIR:-$project/.talib}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
CC=${CC:-cc}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/talib-build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "fetching talib@$VERSION with npm pack into $tmp"
(cd "$tmp" && npm pack "talib@$VERSION" --silent >/dev/null)
tar -xzf "$tmp/talib-$VERSION.tgz" -C "$tmp"
lib="$tmp/package/src/lib"
[ -f "$lib/src/ta_func/ta_SMA.c" ] || { echo "TA-Lib C sources not found under $lib/src" >&2; exit 1; }
version=$(sed -n 's/^#define \(MAJOR\|MINOR\|BUILD\) "\(.*\)"/\2/p' "$lib/src/ta_common/ta_version.c" | paste -sd. -)
extra=$(sed -n 's/^#define EXTRA "\(.*\)"/\1/p' "$lib/src/ta_common/ta_version.c")
[ -z "$extra" ] || version="$version-$extra"

CFLAGS="-O2 -fno-strict-aliasing -DTA_SINGLE_THREAD -fPIC"
if [ "$(uname -m)" = x86_64 ]; then CFLAGS="$CFLAGS -march=x86-64 -m64 -D__64BIT__"; fi
echo "compiling TA-Lib C $version (ta_common, ta_func) with $CC $CFLAGS"

mkdir -p "$tmp/obj" "$dest/lib" "$dest/include"
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
ls "$lib"/src/ta_common/*.c "$lib"/src/ta_func/*.c |
  CC="$CC" CFLAGS="$CFLAGS" LIB="$lib" OBJ="$tmp/obj" xargs -P "$jobs" -I{} sh -c \
    '$CC $CFLAGS -w -I"$LIB/include" -I"$LIB/src/ta_common" -c "$1" -o "$OBJ/$(basename "$1" .c).o"' _ {}
rm -f "$dest/lib/libta_lib.a"
ar rcs "$dest/lib/libta_lib.a" "$tmp"/obj/*.o
cp "$lib"/include/*.h "$dest/include/"
printf '%s\n%s\n' "TA-Lib C $version from npm talib@$VERSION" "$CC $CFLAGS" > "$dest/BUILD_INFO"

echo "built $dest/lib/libta_lib.a ($(ls "$tmp"/obj/*.o | wc -l) objects)"
echo "run the comparison with:"
echo "  TALIB_DIR=$dest npm run bench:indicators"
