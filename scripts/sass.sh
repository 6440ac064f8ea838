#!/usr/bin/env bash
# The SASS of one kernel of a .cj program for sm_90a, here, without a GPU: our PTX (`cajeta emit
# --target=ptx`), CUDA's own ptxas (its notes: registers, spills, C7515 when it serialises wgmma),
# and cuobjdump/nvdisasm from PyPI's NVIDIA wheels (unpacked into .deps/cuda-tools the first time).
# Then each loop of the kernel (a backward branch) with its instruction count and the opcodes it
# issues most: what a step of a pipelined K-loop costs before a device is lent.
#
#   scripts/sass.sh FILE.cj Class.method [--sm sm_90a] [--keep DIR]
#
# Environment variables the compiler reads (CAJETA_GPU_WGMMA_CARRY=0, ...) pass through.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CAJETA=${CAJETA:-$ROOT/build/bin/cajeta}
TOOLS=$ROOT/.deps/cuda-tools
TOOLS_VERSION=13.5.37

[[ $# -ge 2 ]] || { sed -n '2,9p' "$0"; exit 2; }
SRC=$1 KERNEL=$2
shift 2
SM=sm_90a KEEP=
while [[ $# -gt 0 ]]; do
  case $1 in
  --sm) SM=$2; shift 2 ;;
  --keep) KEEP=$2; shift 2 ;;
  *) echo "sass.sh: unknown option $1"; exit 2 ;;
  esac
done

PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
[[ -x $PTXAS ]] || { echo "sass.sh: no ptxas (the CUDA toolkit) on this machine"; exit 1; }
[[ -x $CAJETA ]] || { echo "sass.sh: no $CAJETA: build first (cmake --build build --target cajeta)"; exit 1; }

if [[ ! -x $TOOLS/bin/cuobjdump || ! -x $TOOLS/bin/nvdisasm ]]; then
  echo "sass.sh: fetching cuobjdump and nvdisasm $TOOLS_VERSION from PyPI into $TOOLS"
  WHEELS=$(mktemp -d)
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$WHEELS" \
    "nvidia-cuda-cuobjdump==$TOOLS_VERSION" "nvidia-cuda-nvdisasm==$TOOLS_VERSION"
  mkdir -p "$TOOLS/bin"
  for W in "$WHEELS"/*.whl; do
    python3 - "$W" "$TOOLS/bin" <<'EOF'
import sys, zipfile, os
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if "/bin/" in name and not name.endswith("/"):
            path = os.path.join(out, os.path.basename(name))
            with open(path, "wb") as f:
                f.write(z.read(name))
            os.chmod(path, 0o755)
EOF
  done
  rm -rf "$WHEELS"
fi

WORK=${KEEP:-$(mktemp -d)}
mkdir -p "$WORK"
[[ -n $KEEP ]] || trap 'rm -rf "$WORK"' EXIT
SYMBOL="cj_k_${KERNEL//./_}"
"$CAJETA" emit --target=ptx --sm "$SM" "$SRC" -o "$WORK/k.ptx"
"$PTXAS" -arch="$SM" -v "$WORK/k.ptx" -o "$WORK/k.cubin" 2>"$WORK/ptxas.txt"
grep -F "'$SYMBOL'" "$WORK/ptxas.txt" | grep -v "Compiling entry" || true
grep -F -A3 "entry function '$SYMBOL'" "$WORK/ptxas.txt" | grep -E "Used|spill" || true
PATH="$TOOLS/bin:$PATH" "$TOOLS/bin/cuobjdump" -sass -fun "$SYMBOL" "$WORK/k.cubin" >"$WORK/k.sass"

# Each backward branch closes a loop: the instructions from its target to it, and their opcodes;
# and the path through it that takes every forward branch inside it (where the misaligned-copy
# fallbacks and other rare blocks are jumped over: a step's cost when nothing is rare).
python3 - "$WORK/k.sass" <<'EOF'
import collections, re, sys
insts = []
for line in open(sys.argv[1]):
    m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
    if m:
        insts.append((int(m.group(1), 16), m.group(2).strip()))
print(f"{len(insts)} instructions in the kernel")
at = {a: i for i, (a, _) in enumerate(insts)}
for i, (addr, text) in enumerate(insts):
    m = re.search(r"\bBRA\b.*?(0x[0-9a-f]+)", text)
    if not m:
        continue
    target = int(m.group(1), 16)
    if target >= addr or target not in at:
        continue
    body = insts[at[target]:i + 1]
    path, j = [], at[target]
    while j <= i:
        path.append(insts[j])
        f = re.search(r"\bBRA\b.*?(0x[0-9a-f]+)", insts[j][1])
        if f and j < i and insts[j][0] < int(f.group(1), 16) <= addr and int(f.group(1), 16) in at:
            j = at[int(f.group(1), 16)]
        else:
            j += 1
    def top(xs):
        ops = collections.Counter(re.sub(r"^@!?U?P\w+\s+", "", t).split()[0].split(".")[0] for _, t in xs)
        return ", ".join(f"{o} {n}" for o, n in ops.most_common(8))
    print(f"loop {target:#x}-{addr:#x}: {len(body)} instructions ({top(body)})")
    print(f"  taking every forward branch: {len(path)} ({top(path)})")
EOF
[[ -z $KEEP ]] || echo "sass.sh: PTX, cubin, ptxas notes and SASS in $WORK"
