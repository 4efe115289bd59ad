#!/usr/bin/env bash
# The wheel as a user gets it: builds it (scripts/build-wheel), installs it into a fresh virtual
# environment, and runs it with no Rust toolchain on PATH, LD_LIBRARY_PATH unset and the system's
# z3 unused: `lacuna check` and `python -m lacuna check` on a copy of examples/ must report the
# same figures as the source build of the same code and solver (target/release/lacuna, as cargo
# left it before maturin packed it, run from the source tree with the z3-solver library).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
bash scripts/build-wheel --quiet
reference="$target/release/lacuna"
z3_lib="$("$target/wheel/tools/bin/python" -c 'import os, z3; print(os.path.join(os.path.dirname(z3.__file__), "lib"))')"
wheel="$(ls "$target"/wheel/dist/lacuna-*.whl)"
echo "check-wheel: $(basename "$wheel"), $(du -h "$wheel" | cut -f1)" >&2

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
user="$scratch/user-venv"
python3 -m venv "$user"
"$user/bin/python" -m pip install -q --disable-pip-version-check --no-index "$wheel"

# What a user's shell has: no cargo or rustc (system directories that hold them are left out),
# no LD_LIBRARY_PATH, an empty HOME.
mkdir -p "$scratch/home"
clean_path=""
for dir in /usr/local/bin /usr/bin /bin; do
  [ -e "$dir/cargo" ] || [ -e "$dir/rustc" ] || clean_path="${clean_path:+$clean_path:}$dir"
done
clean() { env -i HOME="$scratch/home" PATH="$clean_path" LANG=C.UTF-8 "$@"; }
if clean sh -c 'command -v cargo || command -v rustc'; then
  echo "check-wheel: a Rust toolchain is on the clean PATH" >&2; exit 1
fi

binary="$("$user/bin/python" -c 'import lacuna; print(lacuna.find_lacuna_bin())')"
case "$binary" in "$user"/*) ;; *) echo "check-wheel: binary outside the venv: $binary" >&2; exit 1 ;; esac
libz3="$(clean ldd "$binary" | grep libz3)"
echo "check-wheel: $binary links $libz3" >&2
case "$libz3" in
  *"=> $user/"*) ;;
  *) echo "check-wheel: the installed binary does not use the wheel's libz3" >&2; exit 1 ;;
esac

version="$(LD_LIBRARY_PATH="$z3_lib" "$reference" --version)"
for run in "$user/bin/lacuna" "$user/bin/python -m lacuna"; do
  got="$(clean $run --version)"
  [ "$got" = "$version" ] || { echo "check-wheel: \`$run --version\` says $got, not $version" >&2; exit 1; }
done

# The same figures on examples/: each run on its own copy, with the same project interpreter
# (python3), and budgets that only count executions (time limits depend on the machine's load).
figures() { # BIN... -> the summary and every diagnostic's file, line and code
  rm -rf "$scratch/examples" && cp -r examples "$scratch/examples"
  sed -i 's/^function-time-ms = .*/function-time-ms = 600000\nsolver-timeout-ms = 20000/' \
    "$scratch/examples/pyproject.toml"
  grep -q '^solver-timeout-ms = 20000' "$scratch/examples/pyproject.toml"
  (cd "$scratch/examples" && clean "$@" check --format json .) > "$scratch/out.json" || [ $? = 1 ]
  python3 - "$scratch/out.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
print(json.dumps(doc["summary"], sort_keys=True))
for f in doc["files"]:
    for d in f["diagnostics"]:
        print(f["path"], d["line"], d["code"])
PY
}
figures env LD_LIBRARY_PATH="$z3_lib" "$reference" > "$scratch/source.txt"
figures "$user/bin/lacuna" > "$scratch/wheel.txt"
figures "$user/bin/python" -m lacuna > "$scratch/module.txt"
diff -u "$scratch/source.txt" "$scratch/wheel.txt"
diff -u "$scratch/source.txt" "$scratch/module.txt"
echo "check-wheel: the installed wheel reports what the source build does: $(head -1 "$scratch/source.txt")" >&2
