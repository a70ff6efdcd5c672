#!/usr/bin/env bash
# Builds the image decoders that run inside the server's WebAssembly sandbox
# (internal/medimg/codec) from pinned upstream sources:
#
#   scripts/codecs.sh            (make codecs; every make target that compiles Go runs it)
#
#   OpenJPEG 2.5.0           JPEG 2000 (1.2.840.10008.1.2.4.90 and .91)
#   DCMTK 3.6.7, its IJG     JPEG lossless (.57, .70) in the 16-bit build and
#     libjpeg 6b forks       12-bit JPEG extended (.51) in the 12-bit build
#   DCMTK 3.6.7, its CharLS  JPEG-LS (.80, .81)
#
# Each source tarball comes from Debian's archive and must match its pinned
# sha256. The C and C++ are compiled to wasm32-wasi with Debian's clang 14 and
# wasi-libc, linked with the shims in scripts/codecs/ (they export malloc,
# free, decode and result, see shim.h) into internal/medimg/codec/wasm/*.wasm.
# Neither the sources nor the .wasm enter the repository (.gitignore); the Go
# package embeds what this script wrote. A stamp holding the hash of this
# script and of scripts/codecs/ makes a second run a no-op: the modules are
# rebuilt only when a pin, a flag or a shim changes.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=$root/scripts/codecs
out=$root/internal/medimg/codec/wasm
work=${CODECS_WORK:-$root/.tools/codecs}

OPENJPEG_URL=http://deb.debian.org/debian/pool/main/o/openjpeg2/openjpeg2_2.5.0.orig.tar.xz
OPENJPEG_SHA256=007e19d772c8b6b22e35379630b06ff3549e49ba719d96453607a36ad7b4de73
DCMTK_URL=http://deb.debian.org/debian/pool/main/d/dcmtk/dcmtk_3.6.7.orig.tar.gz
DCMTK_SHA256=17705dcdb2047d1266bb4e92dbf4aa6d4967819e8e3e94f39b7df697661b4860

modules=(openjpeg ijg charls)
stamp=$out/.stamp
want=$(cat "${BASH_SOURCE[0]}" $(find "$src" -type f | LC_ALL=C sort) | sha256sum | cut -d' ' -f1)
up_to_date() {
	[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] || return 1
	for m in "${modules[@]}"; do [ -s "$out/$m.wasm" ] || return 1; done
}
up_to_date && exit 0

# Several make steps may start this script at once: one builds, the others
# wait and find the modules built.
mkdir -p "$work" "$out"
exec 8>"$work/lock"
flock 8
up_to_date && exit 0

"$root/scripts/apt-ensure.sh" clang-14:clang-14 wasm-ld-14:lld-14 curl:curl xz:xz-utils \
	/usr/lib/wasm32-wasi/libc.a:wasi-libc \
	'/usr/lib/llvm-14/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a:libclang-rt-14-dev-wasm32' \
	/usr/lib/wasm32-wasi/libc++.a:libc++-14-dev-wasm32 /usr/lib/wasm32-wasi/libc++abi.a:libc++abi-14-dev-wasm32

# fetch URL SHA256: the tarball in $work, downloaded once and checked every time.
fetch() {
	local url=$1 sum=$2 file=$work/${1##*/}
	if ! echo "$sum  $file" | sha256sum -c --status 2>/dev/null; then
		echo "codecs: downloading $url" >&2
		curl -fsSL --retry 3 -o "$file.part" "$url"
		echo "$sum  $file.part" | sha256sum -c --status || { echo "codecs: $url does not match its pinned sha256" >&2; rm -f "$file.part"; exit 1; }
		mv "$file.part" "$file"
	fi
	echo "$file"
}

build=$(mktemp -d "$work/build.XXXXXX")
trap 'rm -rf "$build"' EXIT
tar -xJf "$(fetch $OPENJPEG_URL $OPENJPEG_SHA256)" -C "$build"
tar -xzf "$(fetch $DCMTK_URL $DCMTK_SHA256)" -C "$build"
oj=$build/openjpeg-2.5.0/src/lib/openjp2
dt=$build/dcmtk-DCMTK-3.6.7

# Reactor modules (no main; _initialize sets up libc), 64 KiB of stack, no
# threads, no exceptions: a C++ throw becomes a trap, which ends the
# instance, and the host reports no preview.
cflags=(--target=wasm32-wasi -O2 -DNDEBUG -fno-strict-aliasing -Wno-everything -I"$src")
ldflags=(-mexec-model=reactor -Wl,--export=malloc -Wl,--export=free -Wl,-z,stack-size=65536 -Wl,--strip-all)

# OpenJPEG: the two configuration headers CMake would write.
cat >"$oj/opj_config.h" <<'H'
#define OPJ_HAVE_STDINT_H 1
#define OPJ_VERSION_MAJOR 2
#define OPJ_VERSION_MINOR 5
#define OPJ_VERSION_BUILD 0
H
cat >"$oj/opj_config_private.h" <<'H'
#define OPJ_HAVE_INTTYPES_H 1
#define OPJ_PACKAGE_VERSION "2.5.0"
H
ojsrc=()
for f in "$oj"/*.c; do
	case ${f##*/} in bench_dwt.c | test_sparse_array.c | t1_generate_luts.c | t1_ht_generate_luts.c | opj_clock.c | *_manager.c) continue ;; esac
	ojsrc+=("$f")
done
clang-14 "${cflags[@]}" -DOPJ_STATIC -I"$oj" "${ldflags[@]}" -o "$build/openjpeg.wasm" "$src/openjpeg.c" "${ojsrc[@]}"

# IJG: the 12-bit and 16-bit builds in one module (DCMTK renames each
# build's symbols), with the shim compiled once for each.
for bits in 12 16; do
	mkdir -p "$build/ijg$bits"
	for f in "$dt/dcmjpeg/libijg$bits"/*.c "$src/ijg.c"; do
		# The arithmetic coder's table is the same in both builds: linked once.
		[ "$bits" = 16 ] && [ "${f##*/}" = jaricom.c ] && continue
		echo "$f"
	done | xargs -P "$(nproc)" -I{} sh -c 'f={}; exec clang-14 "$@" -c -o "$0/$(basename "$f" .c).o" "$f"' \
		"$build/ijg$bits" "${cflags[@]}" -DIJG_BITS=$bits -I"$src/compat" -I"$dt/dcmjpeg/libijg$bits"
done
clang-14 "${cflags[@]}" "${ldflags[@]}" -o "$build/ijg.wasm" "$src/ijg_main.c" "$build"/ijg12/*.o "$build"/ijg16/*.o

# CharLS: C++ without exceptions or RTTI; the encoder is left out.
clang++-14 "${cflags[@]}" -std=c++11 -fno-exceptions -fno-rtti -include "$src/charls_prelude.h" \
	-I"$src/compat" -I"$dt/dcmjpls/libcharls" "${ldflags[@]}" -o "$build/charls.wasm" \
	"$src/charls.cc" "$dt/dcmjpls/libcharls/header.cc" "$dt/dcmjpls/libcharls/jpegls.cc"

for m in "${modules[@]}"; do
	[ -s "$build/$m.wasm" ] && mv "$build/$m.wasm" "$out/$m.wasm"
done
echo "$want" >"$stamp"
